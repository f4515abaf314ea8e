package dev.gputop.agent.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The files of the live web page, served from the jar so the page works on a node without
 * internet access: {@code /} (index.html), the page's script and style under {@code /assets/}, and
 * uPlot's script and style from the {@code org.webjars.npm:uplot} webjar on the classpath (its
 * version read from the webjar's own {@code pom.properties}, so the pom names it once).
 *
 * <p>Thread-safe: files are read on first request and kept.
 */
public final class WebAssets {

  /** A file to send. */
  record Asset(String contentType, byte[] body) {}

  private static final String UPLOT_POM = "/META-INF/maven/org.webjars.npm/uplot/pom.properties";

  /** Request path → (classpath resource, content type); the uPlot paths are resolved on use. */
  private static final Map<String, String[]> ROUTES = Map.of(
      "/", new String[] {"/dev/gputop/agent/web/index.html", "text/html; charset=utf-8"},
      "/assets/app.js", new String[] {"/dev/gputop/agent/web/app.js", "text/javascript; charset=utf-8"},
      "/assets/app.css", new String[] {"/dev/gputop/agent/web/app.css", "text/css; charset=utf-8"},
      "/assets/uPlot.iife.min.js", new String[] {"uplot:dist/uPlot.iife.min.js", "text/javascript; charset=utf-8"},
      "/assets/uPlot.min.css", new String[] {"uplot:dist/uPlot.min.css", "text/css; charset=utf-8"});

  private static final Map<String, Asset> CACHE = new ConcurrentHashMap<>();

  private WebAssets() {}

  /** The file for a request path, or null when there is none. */
  static Asset get(String path) {
    String[] route = ROUTES.get(path);
    if (route == null) {
      return null;
    }
    return CACHE.computeIfAbsent(path, p -> new Asset(route[1], read(resource(route[0]))));
  }

  private static String resource(String name) {
    if (!name.startsWith("uplot:")) {
      return name;
    }
    return "/META-INF/resources/webjars/uplot/" + uplotVersion() + "/" + name.substring("uplot:".length());
  }

  /** The uPlot version the classpath's webjar carries. */
  public static String uplotVersion() {
    Properties p = new Properties();
    try (InputStream in = WebAssets.class.getResourceAsStream(UPLOT_POM)) {
      if (in == null) {
        throw new IllegalStateException("the uPlot webjar is not on the classpath (" + UPLOT_POM + ")");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p.getProperty("version");
  }

  private static byte[] read(String resource) {
    try (InputStream in = WebAssets.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("web asset missing from the jar: " + resource);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
