/**
 * The agent as an extension of the OpenTelemetry Java agent ({@code
 * -Dotel.javaagent.extensions=gputop-agent-extension.jar}): {@link
 * dev.gputop.agent.extension.GputopExtension} registers the servers' histograms on the agent's
 * meter provider and starts the receivers against its SDK. Only the extension jar holds this
 * package (and its {@code META-INF/services} file). An entry point on top of {@code runtime} and
 * {@code http}; it never reaches the command line.
 */
package dev.gputop.agent.extension;
