package dev.gputop.agent.attach;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.function.Function;

/**
 * What the host JVM already runs of OpenTelemetry, looked up reflectively through the system class
 * loader (this jar's own copy of OpenTelemetry is relocated to {@code dev.gputop.shaded}, so the
 * host's classes are never confused with it):
 *
 * <ul>
 *   <li>the OpenTelemetry Java agent (its {@code OpenTelemetryAgent} class is on the system class
 *       path of every JVM started with it, whichever order the {@code -javaagent} options come in);
 *   <li>whether that agent was told to load gputop's extension ({@code otel.javaagent.extensions}
 *       or {@code OTEL_JAVAAGENT_EXTENSIONS} naming a {@code gputop} jar);
 *   <li>whether the application registered an instance with its own {@code GlobalOpenTelemetry}
 *       (read without triggering its auto-configuration).
 * </ul>
 *
 * <p>Immutable.
 *
 * @param otelJavaagent the OpenTelemetry Java agent runs in this JVM
 * @param gputopExtension that agent loads gputop's extension
 * @param globalOpenTelemetrySet the application's {@code GlobalOpenTelemetry} holds an instance
 */
record HostProbe(boolean otelJavaagent, boolean gputopExtension, boolean globalOpenTelemetrySet) {

  /*
   * Class names are assembled at run time: the shade plugin rewrites string constants that start
   * with a relocated package, which would make these point at our own relocated copies.
   */
  static final String OTEL_AGENT_CLASS = dotted("io", "opentelemetry", "javaagent", "OpenTelemetryAgent");
  static final String GLOBAL_CLASS = dotted("io", "opentelemetry", "api", "GlobalOpenTelemetry");

  /** Inspects this JVM. Never throws. */
  static HostProbe inspect() {
    return inspect(ClassLoader.getSystemClassLoader(), System::getProperty, System::getenv);
  }

  static HostProbe inspect(ClassLoader loader, Function<String, String> properties, Function<String, String> env) {
    boolean agent = loader.getResource(OTEL_AGENT_CLASS.replace('.', '/') + ".class") != null;
    String extensions = properties.apply("otel.javaagent.extensions");
    if (extensions == null) {
      extensions = env.apply("OTEL_JAVAAGENT_EXTENSIONS");
    }
    boolean extension = agent && extensions != null && extensions.toLowerCase(Locale.ROOT).contains("gputop");
    return new HostProbe(agent, extension, globalSet(loader));
  }

  private static boolean globalSet(ClassLoader loader) {
    try {
      Class<?> global = Class.forName(GLOBAL_CLASS, false, loader);
      try {
        Method isSet = global.getMethod("isSet"); // API 1.49+
        return Boolean.TRUE.equals(isSet.invoke(null));
      } catch (NoSuchMethodException e) {
        Field f = global.getDeclaredField("globalOpenTelemetry");
        f.setAccessible(true);
        return f.get(null) != null;
      }
    } catch (ClassNotFoundException e) {
      return false; // the application has no OpenTelemetry API
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return false; // an API we can't read: treat it as unset, our own SDK runs either way
    }
  }

  private static String dotted(String... parts) {
    return String.join(".", parts);
  }
}
