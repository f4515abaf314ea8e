package dev.gputop.nvml;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.Receiver;
import dev.gputop.config.ReceiverContext;
import dev.gputop.config.ReceiverProvider;

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
