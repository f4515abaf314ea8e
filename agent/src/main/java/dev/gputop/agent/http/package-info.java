/**
 * The agent's HTTP listener ({@link dev.gputop.agent.http.AgentHttpServer}, on Jetty): {@code
 * /metrics} in the Prometheus text and OpenMetrics formats, {@code /api/snapshot}, {@code
 * /api/history}, {@code /healthz}, {@code /readyz} and the web page with its assets; its TLS,
 * authentication and rate limits ({@link dev.gputop.agent.http.ListenerSecurity}), and the
 * per-connection deadlines that keep slow clients from holding threads ({@link
 * dev.gputop.agent.http.ConnectionDeadlines}). It serves what the runtime holds and writes nothing
 * back.
 */
package dev.gputop.agent.http;
