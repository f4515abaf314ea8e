package dev.gputop.agent;

import dev.gputop.config.AgentConfig;
import dev.gputop.receiver.Receiver;
import dev.gputop.receiver.ReceiverContext;
import dev.gputop.receiver.ReceiverProvider;
import java.util.function.Function;

/** A provider that hands out a receiver the test made. */
public final class FakeProvider implements ReceiverProvider {

  private final String name;
  private final int order;
  private final boolean enabled;
  private final Function<ReceiverContext, Receiver> factory;

  /** What {@link #prepare} does; nothing unless a test says. */
  public Runnable onPrepare = () -> {};

  public FakeProvider(String name, int order, boolean enabled, Function<ReceiverContext, Receiver> factory) {
    this.name = name;
    this.order = order;
    this.enabled = enabled;
    this.factory = factory;
  }

  public static FakeProvider of(FakeReceiver receiver, int order) {
    return new FakeProvider(receiver.name(), order, true, ctx -> receiver);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int order() {
    return order;
  }

  @Override
  public boolean enabled(AgentConfig config) {
    return enabled;
  }

  @Override
  public void prepare(AgentConfig config) {
    onPrepare.run();
  }

  @Override
  public Receiver create(ReceiverContext context) {
    return factory.apply(context);
  }
}
