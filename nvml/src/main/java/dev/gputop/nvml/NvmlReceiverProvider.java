package dev.gputop.nvml;

import dev.gputop.config.AgentConfig;
import dev.gputop.receiver.Receiver;
import dev.gputop.receiver.ReceiverContext;
import dev.gputop.receiver.ReceiverProvider;

/** Creates the {@code nvml} receiver (order 100, before inference) when {@code nvml.enabled}. */
public final class NvmlReceiverProvider implements ReceiverProvider {

  @Override
  public String name() {
    return NvmlReceiver.NAME;
  }

  @Override
  public int order() {
    return 100;
  }

  @Override
  public boolean enabled(AgentConfig config) {
    return config.nvml().enabled();
  }

  @Override
  public Receiver create(ReceiverContext context) {
    return NvmlReceiver.create(context);
  }
}
