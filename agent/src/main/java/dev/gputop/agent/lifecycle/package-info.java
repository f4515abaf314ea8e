/**
 * Starting and stopping a whole agent: the receivers' runtime, the OpenTelemetry SDK and the
 * listener brought up in order, rolled back if a step fails, and stopped within a budget ({@link
 * dev.gputop.agent.lifecycle.AgentLifecycle}, {@link dev.gputop.agent.lifecycle.StandaloneAgent}).
 * The {@code run} and {@code demo} commands and the attach entry point use it; it sits above
 * {@code http} because it starts the listener.
 */
package dev.gputop.agent.lifecycle;
