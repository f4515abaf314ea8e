package dev.gputop.agent.attach;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostProbeTest {

  @TempDir Path dir;

  @Test
  void inspect_plainJvmHasNoAgentAndNoGlobal() {
    ClassLoader empty = new URLClassLoader(new URL[0], null);
    assertThat(HostProbe.inspect(empty, k -> null, k -> null)).isEqualTo(new HostProbe(false, false, false));
  }

  @Test
  void inspect_findsTheOtelJavaagentAndOurExtensionInItsSettings() throws Exception {
    Path cls = dir.resolve("io/opentelemetry/javaagent/OpenTelemetryAgent.class");
    Files.createDirectories(cls.getParent());
    Files.write(cls, new byte[] {0});
    try (URLClassLoader agent = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
      assertThat(HostProbe.inspect(agent, k -> null, k -> null).otelJavaagent()).isTrue();
      assertThat(HostProbe.inspect(agent, k -> null, k -> null).gputopExtension()).isFalse();
      Map<String, String> props = Map.of("otel.javaagent.extensions", "/opt/ext/other.jar,/opt/gputop-agent-extension.jar");
      assertThat(HostProbe.inspect(agent, props::get, k -> null).gputopExtension()).isTrue();
      Map<String, String> env = Map.of("OTEL_JAVAAGENT_EXTENSIONS", "/opt/GPUTOP-agent-extension.jar");
      assertThat(HostProbe.inspect(agent, k -> null, env::get).gputopExtension()).isTrue();
    }
  }

  @Test
  void inspect_extensionSettingWithoutTheAgentMeansNothing() {
    ClassLoader empty = new URLClassLoader(new URL[0], null);
    Map<String, String> props = Map.of("otel.javaagent.extensions", "/opt/gputop-agent-extension.jar");
    assertThat(HostProbe.inspect(empty, props::get, k -> null).gputopExtension()).isFalse();
  }

  @Test
  void inspect_readsTheApplicationsGlobalOpenTelemetry() {
    // The test class path has the (unrelocated) API, as an instrumented application would.
    io.opentelemetry.api.GlobalOpenTelemetry.resetForTest();
    try {
      assertThat(HostProbe.inspect(getClass().getClassLoader(), k -> null, k -> null).globalOpenTelemetrySet()).isFalse();
      io.opentelemetry.api.GlobalOpenTelemetry.set(io.opentelemetry.api.OpenTelemetry.noop());
      assertThat(HostProbe.inspect(getClass().getClassLoader(), k -> null, k -> null).globalOpenTelemetrySet()).isTrue();
    } finally {
      io.opentelemetry.api.GlobalOpenTelemetry.resetForTest();
    }
  }
}
