/**
 * The agent inside another JVM: {@code -javaagent:gputop-agent.jar} and dynamic attach ({@link
 * dev.gputop.agent.attach.AttachAgent}, the jar's {@code Premain-Class} and {@code Agent-Class}),
 * the options string ({@link dev.gputop.agent.attach.AgentOptions}), the look at the host for an
 * OpenTelemetry Java agent to share ({@link dev.gputop.agent.attach.HostProbe}) and the start on a
 * daemon thread ({@link dev.gputop.agent.attach.AttachedAgent}). An entry point on top of {@code
 * lifecycle} and {@code runtime}; it never reaches the command line.
 */
package dev.gputop.agent.attach;
