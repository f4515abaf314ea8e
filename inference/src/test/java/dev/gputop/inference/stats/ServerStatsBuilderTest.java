package dev.gputop.inference.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The builder sets every component by its name. */
class ServerStatsBuilderTest {

  /** A value of {@code type} that no default has, different per component. */
  private static Object valueOf(Class<?> type, int i) {
    if (type == Integer.class) {
      return 100 + i;
    }
    if (type == Double.class) {
      return 0.5 + i;
    }
    if (type == LatencyStats.class) {
      return new LatencyStats(0.1 * i, 0.2, 0.3, 0.4, (long) i);
    }
    if (type == Map.class) {
      return Map.of("stop", (double) i);
    }
    if (type == SloStats.class) {
      return new SloStats(new SloStats.Value(1.0, 0.99, 0.5, 50.0), null, null, null, i);
    }
    if (type == RequestLengths.class) {
      return new RequestLengths(new LatencyStats(100.0 + i, 90.0, 200.0, 400.0, (long) i), null);
    }
    throw new AssertionError("a component of a new type: give it a value here: " + type);
  }

  @Test
  void everyComponentHasASetter() throws Exception {
    RecordComponent[] components = ServerStats.class.getRecordComponents();
    ServerStats.Builder b = ServerStats.builder();
    Object[] values = new Object[components.length];
    for (int i = 0; i < components.length; i++) {
      RecordComponent c = components[i];
      values[i] = valueOf(c.getType(), i);
      Method setter = ServerStats.Builder.class.getMethod(c.getName(), c.getType());
      setter.invoke(b, values[i]);
    }
    ServerStats stats = b.build();
    for (int i = 0; i < components.length; i++) {
      assertThat(components[i].getAccessor().invoke(stats)).as(components[i].getName()).isEqualTo(values[i]);
    }
    assertThat(ServerStats.builder().build()).isEqualTo(ServerStats.EMPTY);
    assertThat(ServerStats.EMPTY.slo()).isSameAs(SloStats.NONE);
  }
}
