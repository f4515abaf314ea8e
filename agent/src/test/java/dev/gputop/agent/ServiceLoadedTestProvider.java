package dev.gputop.agent;

import dev.gputop.config.AgentConfig;
import dev.gputop.receiver.Receiver;
import dev.gputop.receiver.ReceiverContext;
import dev.gputop.receiver.ReceiverProvider;

/**
 * Registered in the test classpath's META-INF/services so a test can see the runtime find
 * providers through ServiceLoader. Enabled only while a test sets {@link #receiver}, so it stays
 * out of every other test.
 */
public final class ServiceLoadedTestProvider implements ReceiverProvider {

  public static volatile FakeReceiver receiver;

  @Override
  public String name() {
    return "service-loaded-test";
  }

  @Override
  public int order() {
    return 1000;
  }

  @Override
  public boolean enabled(AgentConfig config) {
    return receiver != null;
  }

  @Override
  public Receiver create(ReceiverContext context) {
    return receiver;
  }
}
