package dev.gputop.agent.extension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigException;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.Receiver;
import dev.gputop.receiver.ReceiverContext;
import dev.gputop.receiver.ReceiverProvider;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.internal.InstrumentationUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UntracedReceiversTest {

  private final List<Boolean> suppressedDuring = new ArrayList<>();

  @Test
  void wrap_createAndRefreshRunSuppressedEverythingElseDelegates() {
    ReceiverProvider wrapped = UntracedReceivers.wrap(List.of(new Provider(false))).get(0);
    assertThat(wrapped.name()).isEqualTo("probe");
    assertThat(wrapped.order()).isEqualTo(7);
    assertThat(wrapped.enabled(AgentConfig.defaults())).isTrue();

    Receiver r = wrapped.create(null);
    r.refresh();
    assertThat(suppressedDuring).containsExactly(true, true);
    assertThat(InstrumentationUtil.shouldSuppressInstrumentation(Context.current())).isFalse();
    assertThat(r.name()).isEqualTo("probe");
    assertThat(r.contribution().furtherSections()).containsEntry("probe", 1);
    assertThat(r.health().state()).isEqualTo(HealthStatus.State.HEALTHY);
  }

  @Test
  void wrap_createFailurePassesThrough() {
    ReceiverProvider wrapped = UntracedReceivers.wrap(List.of(new Provider(true))).get(0);
    assertThatThrownBy(() -> wrapped.create(null)).isInstanceOf(ConfigException.class).hasMessageContaining("probe.key");
  }

  private final class Provider implements ReceiverProvider {
    private final boolean fail;

    Provider(boolean fail) {
      this.fail = fail;
    }

    @Override
    public String name() {
      return "probe";
    }

    @Override
    public int order() {
      return 7;
    }

    @Override
    public boolean enabled(AgentConfig config) {
      return true;
    }

    @Override
    public Receiver create(ReceiverContext context) {
      if (fail) {
        throw new ConfigException("probe.key", 3, "bad");
      }
      suppressedDuring.add(InstrumentationUtil.shouldSuppressInstrumentation(Context.current()));
      return new Receiver() {
        @Override
        public String name() {
          return "probe";
        }

        @Override
        public void refresh() {
          suppressedDuring.add(InstrumentationUtil.shouldSuppressInstrumentation(Context.current()));
        }

        @Override
        public HealthStatus health() {
          return HealthStatus.healthy();
        }

        @Override
        public Contribution contribution() {
          return new Contribution(List.of(), List.of(), List.of(), null, Map.of("probe", 1));
        }

        @Override
        public void close() {}
      };
    }
  }
}
