package dev.gputop.agent.extension;

import dev.gputop.config.AgentConfig;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.ExportedCounter;
import dev.gputop.receiver.ExportedHistogram;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.Receiver;
import dev.gputop.receiver.ReceiverContext;
import dev.gputop.receiver.ReceiverProvider;
// internal: suppressing the Java agent's instrumentation has no public API; this is the context
// key the SDK's own exporters set and the agent honours (see the class comment).
import io.opentelemetry.exporter.internal.InstrumentationUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Receiver providers whose receivers are created and refreshed with the OpenTelemetry Java agent's
 * instrumentation suppressed. The agent instruments the JDK's HTTP client for the whole JVM, so
 * without this every scrape of an inference server (and every Kubernetes pod-list request) would
 * become a CLIENT span among the application's traces. Suppression is the mechanism the SDK's own
 * exporters use ({@link InstrumentationUtil}); the agent honours it, and its executor
 * instrumentation carries it to tasks a receiver hands to other threads. Without the agent it only
 * sets a context key nobody reads.
 *
 * <p>Stateless; the wrappers are as thread-safe as the receivers they wrap.
 */
final class UntracedReceivers {

  private UntracedReceivers() {}

  static List<ReceiverProvider> wrap(Iterable<ReceiverProvider> providers) {
    List<ReceiverProvider> out = new ArrayList<>();
    for (ReceiverProvider p : providers) {
      out.add(new Provider(p));
    }
    return out;
  }

  private record Provider(ReceiverProvider delegate) implements ReceiverProvider {
    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public int order() {
      return delegate.order();
    }

    @Override
    public boolean enabled(AgentConfig config) {
      return delegate.enabled(config);
    }

    @Override
    public Receiver create(ReceiverContext context) {
      Receiver[] created = new Receiver[1];
      RuntimeException[] failed = new RuntimeException[1];
      InstrumentationUtil.suppressInstrumentation(() -> {
        try {
          created[0] = delegate.create(context);
        } catch (RuntimeException e) {
          failed[0] = e;
        }
      });
      if (failed[0] != null) {
        throw failed[0];
      }
      return created[0] == null ? null : new Untraced(created[0]);
    }
  }

  private record Untraced(Receiver delegate) implements Receiver {
    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public void refresh() {
      InstrumentationUtil.suppressInstrumentation(delegate::refresh);
    }

    @Override
    public HealthStatus health() {
      return delegate.health();
    }

    @Override
    public Contribution contribution() {
      return delegate.contribution();
    }

    @Override
    public List<ExportedHistogram> exportedHistograms() {
      return delegate.exportedHistograms();
    }

    @Override
    public List<ExportedCounter> exportedCounters() {
      return delegate.exportedCounters();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
