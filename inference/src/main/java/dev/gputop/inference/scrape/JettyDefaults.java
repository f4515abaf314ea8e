package dev.gputop.inference.scrape;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.jetty.util.MemoryUtils;

/**
 * The process-wide settings every Eclipse Jetty component of the agent needs before its first
 * use: the scraper's HTTP client here, and the agent's listener (its server), which call {@link
 * #apply()} first. Idempotent and thread-safe.
 */
public final class JettyDefaults {

  /**
   * Jetty logs through slf4j to java.util.logging; at FINE it would log request headers, which
   * may carry secrets. Held here so the level is not lost when the logger is collected. The name
   * is derived from a Jetty class so that it follows the shaded jar's relocation.
   */
  private static final Logger JETTY_LOGGER = quietJettyLogger();

  static {
    skipJettysMBeanServerLookup();
  }

  private JettyDefaults() {}

  /** Applies the settings (the class's initialisation does; later calls do nothing). */
  public static void apply() {
    // The static initialiser above did the work.
  }

  /**
   * Jetty pads its queues' indices to a cache line, and to find how many references fill one it
   * asks the platform MBean server whether oops are compressed, unless {@code
   * <jetty package>.util.referencesPerCacheLine} says. Starting that server (every platform MXBean
   * registered) is ~200 classes and 0.1 s of CPU on the agent's path to its first scrape, for a
   * padding size: 16 references span at least one 64-byte line with compressed oops or without.
   * The property's name is derived from the class so that it follows the shaded jar's relocation
   * (a host application's own Jetty reads its own property), and a value set by the user wins.
   */
  private static void skipJettysMBeanServerLookup() {
    String property = MemoryUtils.class.getPackageName() + ".referencesPerCacheLine";
    try {
      if (System.getProperty(property) == null) {
        System.setProperty(property, "16");
      }
    } catch (SecurityException e) {
      // Jetty looks it up then; slower to start, nothing else.
    }
  }

  private static Logger quietJettyLogger() {
    String name = MemoryUtils.class.getName();
    // org.eclipse.jetty.util.MemoryUtils -> org.eclipse.jetty (or its relocated name)
    String root = name.substring(0, name.lastIndexOf(".util.MemoryUtils"));
    Logger jetty = Logger.getLogger(root);
    if (jetty.getLevel() == null) {
      jetty.setLevel(Level.INFO);
    }
    return jetty;
  }
}
