package dev.gputop.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.config.AgentConfig;
import io.opentelemetry.api.OpenTelemetry;
import org.junit.jupiter.api.Test;

class StandardReceiverContextTest {

  /** A service one receiver offers another. */
  interface Greeter {
    String greet();
  }

  private final AgentConfig config = AgentConfig.defaults();
  private final StandardReceiverContext context =
      new StandardReceiverContext(config, OpenTelemetry.noop(), Clock.system());

  @Test
  void hands_outWhatItWasGiven() {
    assertThat(context.config()).isSameAs(config);
    assertThat(context.openTelemetry()).isSameAs(OpenTelemetry.noop());
    assertThat(context.clock()).isSameAs(Clock.system());
  }

  @Test
  void lookup_findsThePublishedServiceByItsType_andNullForOneNeverPublished() {
    Greeter greeter = () -> "hello";

    assertThat(context.lookup(Greeter.class)).isNull();
    context.publish(Greeter.class, greeter);

    assertThat(context.lookup(Greeter.class)).isSameAs(greeter);
    assertThat(context.lookup(Runnable.class)).isNull();
  }

  @Test
  void publish_laterServiceOfTheSameType_replacesTheEarlier() {
    Greeter first = () -> "first";
    Greeter second = () -> "second";

    context.publish(Greeter.class, first);
    context.publish(Greeter.class, second);

    assertThat(context.lookup(Greeter.class).greet()).isEqualTo("second");
  }

  @Test
  void nulls_areRejectedWithTheirName() {
    assertThatThrownBy(() -> context.publish(Greeter.class, null))
        .isInstanceOf(NullPointerException.class).hasMessage("service");
    assertThatThrownBy(() -> new StandardReceiverContext(null, OpenTelemetry.noop(), Clock.system()))
        .isInstanceOf(NullPointerException.class).hasMessage("config");
  }
}
