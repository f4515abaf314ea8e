package dev.gputop.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The type of one configuration key: how its YAML text is read and checked, how {@code
 * check-config} writes it back, and how the configuration table shows its default. The readers
 * throw {@link IllegalArgumentException} with a message that the loader prefixes with the key and
 * its line. Stateless and thread-safe.
 *
 * @param <T> the Java type of the value
 */
public abstract class ConfigType<T> {

  /** What the configuration table calls values of this type, e.g. "duration". */
  private final String name;

  private ConfigType(String name) {
    this.name = name;
  }

  /** The type's name in the configuration table and in examples. */
  public String name() {
    return name;
  }

  /** Reads the scalar's text as written in the file (untrimmed). */
  abstract T parse(String text);

  /** The value as {@code check-config} prints it (a String, Boolean, Number, Map or null). */
  Object write(T value) {
    return value;
  }

  /** The value as the configuration table shows it, without backquotes. */
  String doc(T value) {
    return String.valueOf(write(value));
  }

  // ---------------------------------------------------------------- the types

  /** {@code 500ms}, {@code 3s}, {@code 1.5m}, {@code 1h} or ISO-8601 {@code PT3S}; positive. */
  public static final ConfigType<Duration> DURATION =
      new ConfigType<>("duration") {
        @Override
        Duration parse(String s) {
          Duration d;
          try {
            d = ConfigLoader.parseDuration(s.trim());
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                "expected a duration such as 500ms, 3s, 1m or 1h, not '" + s + "'");
          }
          if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException("must be positive, not '" + s + "'");
          }
          return d;
        }

        @Override
        Object write(Duration d) {
          return d == null ? null : formatDuration(d);
        }
      };

  /** A positive whole number of bytes up to 2^63-1, with an optional Ki/Mi/Gi suffix. */
  public static final ConfigType<Long> SIZE =
      new ConfigType<>("size") {
        @Override
        Long parse(String s) {
          return positive(s, Long.MAX_VALUE);
        }

        @Override
        String doc(Long v) {
          return binary(v);
        }
      };

  /** A positive whole number up to 2^31-1, with an optional Ki/Mi/Gi suffix. */
  public static final ConfigType<Integer> COUNT =
      new ConfigType<>("count") {
        @Override
        Integer parse(String s) {
          return (int) positive(s, Integer.MAX_VALUE);
        }

        @Override
        String doc(Integer v) {
          return binary(v);
        }
      };

  /** A number strictly between 0 and 1, such as an SLO objective {@code 0.99}. */
  public static final ConfigType<Double> FRACTION =
      new ConfigType<>("fraction") {
        @Override
        Double parse(String s) {
          double d;
          try {
            d = Double.parseDouble(s.trim());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a number between 0 and 1 such as 0.99, not '" + s + "'");
          }
          if (!(d > 0 && d < 1)) {
            throw new IllegalArgumentException("must lie strictly between 0 and 1, not '" + s + "'");
          }
          return d;
        }
      };

  /** A number of zero or more, such as a price {@code 2.49}; currency-free. */
  public static final ConfigType<Double> NUMBER =
      new ConfigType<>("number") {
        @Override
        Double parse(String s) {
          double d;
          try {
            d = Double.parseDouble(s.trim());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a number such as 2.5, not '" + s + "'");
          }
          if (!(d >= 0) || Double.isInfinite(d)) {
            throw new IllegalArgumentException("must be a finite number of zero or more, not '" + s + "'");
          }
          return d;
        }
      };

  /** {@code true}/{@code false}, also {@code yes}/{@code no} and {@code on}/{@code off}. */
  public static final ConfigType<Boolean> BOOLEAN =
      new ConfigType<>("boolean") {
        @Override
        Boolean parse(String s) {
          switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "true":
            case "yes":
            case "on":
              return true;
            case "false":
            case "no":
            case "off":
              return false;
            default:
              throw new IllegalArgumentException("expected true or false, not '" + s + "'");
          }
        }
      };

  /** A boolean that may also be {@code auto} (read as null: the caller detects it). */
  public static final ConfigType<Boolean> AUTO_BOOLEAN =
      new ConfigType<>("boolean or auto") {
        @Override
        Boolean parse(String s) {
          return "auto".equalsIgnoreCase(s) ? null : BOOLEAN.parse(s);
        }

        @Override
        Object write(Boolean v) {
          return v == null ? "auto" : v;
        }
      };

  /** Any text, taken as written. */
  public static final ConfigType<String> STRING =
      new ConfigType<>("string") {
        @Override
        String parse(String s) {
          return s;
        }
      };

  /** {@code host:port} with a port of 0-65535 ({@link ListenAddress}), or {@code off}. */
  public static final ConfigType<String> LISTEN =
      new ConfigType<>("host:port or off") {
        @Override
        String parse(String listen) {
          if ("off".equalsIgnoreCase(listen)) {
            return listen;
          }
          ListenAddress.parse(listen); // the check; the text stays what the file said
          return listen;
        }
      };

  /** An absolute {@code http} or {@code https} URL with a host. */
  public static final ConfigType<java.net.URI> HTTP_URL =
      new ConfigType<>("http(s) URL") {
        @Override
        java.net.URI parse(String text) {
          return Endpoint.parseUrl(text); // the one check of a metrics URL
        }

        @Override
        Object write(java.net.URI url) {
          return url == null ? null : url.toString();
        }
      };

  /**
   * A mapping of {@code noun} names (e.g. header names) to string values that may reference the environment as {@code
   * ${env:NAME}}; the values are secrets, printed by {@code check-config} as {@code <redacted>}.
   */
  public static ConfigType<Map<String, String>> secrets(String noun) {
    return new SecretMap(noun);
  }

  /** A list of URL paths, each starting with {@code /}: a YAML sequence, or one path. */
  public static final ConfigType<List<String>> PATHS = new PathList();

  /**
   * A list of quantiles, each a number strictly between 0 and 1, at least one and none twice: a
   * YAML sequence ({@code [0.5, 0.95, 0.99]}), or one number; kept in ascending order.
   */
  public static final ConfigType<List<Double>> QUANTILES = new QuantileList();

  /** A TLS protocol version the listener accepts as its lowest: {@code 1.2} or {@code 1.3}. */
  public static final ConfigType<String> TLS_VERSION =
      new ConfigType<>("1.2 or 1.3") {
        @Override
        String parse(String s) {
          String v = s.trim();
          if (!v.equals("1.2") && !v.equals("1.3")) {
            throw new IllegalArgumentException("must be 1.2 or 1.3 (TLS 1.0 and 1.1 are not offered), not '" + s + "'");
          }
          return v;
        }
      };

  /**
   * A list of TLS cipher suites by their IANA names (as the JDK names them, e.g. {@code
   * TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}), each one this JVM supports: a YAML sequence, or
   * one name.
   */
  public static final ConfigType<List<String>> CIPHER_SUITES = new CipherSuiteList();

  /** NVML GPU indices, such as {@code [0, 1]}: a sequence (or a single scalar) of whole numbers of 0 or more. */
  public static final ConfigType<List<Integer>> GPU_INDICES = new IndexList();

  /** One of an enum's constants, written in lower case. */
  public static <E extends Enum<E>> ConfigType<E> oneOf(Class<E> type) {
    E[] values = type.getEnumConstants();
    String names = Arrays.stream(values).map(v -> "'" + lower(v) + "'").collect(Collectors.joining(", "));
    int last = names.lastIndexOf(", ");
    String choice = last < 0 ? names : names.substring(0, last) + " or " + names.substring(last + 2);
    return new ConfigType<>("one of " + choice) {
      @Override
      E parse(String s) {
        for (E v : values) {
          if (lower(v).equals(s.toLowerCase(Locale.ROOT))) {
            return v;
          }
        }
        throw new IllegalArgumentException("must be " + choice + ", not '" + s + "'");
      }

      @Override
      Object write(E v) {
        return v == null ? null : lower(v);
      }
    };
  }

  /** The type of {@link #secrets}: read by the loader from a mapping, not from one scalar. */
  static final class SecretMap extends ConfigType<Map<String, String>> {
    static final String REDACTED = "<redacted>";

    private SecretMap(String noun) {
      super("mapping of " + noun + " names to values");
    }

    @Override
    Map<String, String> parse(String text) {
      throw new IllegalArgumentException("expected a " + name());
    }

    @Override
    Object write(Map<String, String> value) {
      Map<String, Object> out = new java.util.LinkedHashMap<>();
      value.keySet().forEach(k -> out.put(k, REDACTED));
      return out;
    }

    @Override
    String doc(Map<String, String> value) {
      return value.isEmpty() ? "none" : value.keySet().toString();
    }
  }

  /**
   * A type read by the loader from a sequence (or a single scalar), element by element.
   *
   * @param <E> the type of one element
   */
  abstract static class SequenceType<E> extends ConfigType<List<E>> {
    private final String element;

    private SequenceType(String name, String element) {
      super(name);
      this.element = element;
    }

    /** What one element is, for "expected a ..." messages. */
    String elementName() {
      return element;
    }

    @Override
    List<E> parse(String text) {
      return whole(List.of(element(text)));
    }

    /** One element, checked; {@link IllegalArgumentException} says what is wrong with it. */
    abstract E element(String text);

    /**
     * The list of checked elements as the value, checked as a whole (none by default);
     * {@link IllegalArgumentException} says what is wrong with it.
     */
    List<E> whole(List<E> elements) {
      return List.copyOf(elements);
    }

    @Override
    Object write(List<E> value) {
      return value;
    }

    @Override
    String doc(List<E> value) {
      return value.toString();
    }
  }

  /** The type of {@link #QUANTILES}. */
  static final class QuantileList extends SequenceType<Double> {
    private QuantileList() {
      super("list of quantiles", "number between 0 and 1");
    }

    @Override
    Double element(String text) {
      double q;
      try {
        q = Double.parseDouble(text.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "expected a quantile between 0 and 1 such as 0.95, not '" + text + "'");
      }
      if (!(q > 0 && q < 1)) {
        throw new IllegalArgumentException(
            "a quantile lies strictly between 0 and 1, not '" + text + "'");
      }
      return q;
    }

    @Override
    List<Double> whole(List<Double> elements) {
      if (elements.isEmpty()) {
        throw new IllegalArgumentException("needs at least one quantile, such as [0.5, 0.9, 0.99]");
      }
      java.util.TreeSet<Double> sorted = new java.util.TreeSet<>();
      for (Double q : elements) {
        if (!sorted.add(q)) {
          throw new IllegalArgumentException("lists " + q + " twice");
        }
      }
      return List.copyOf(sorted);
    }
  }

  /** The type of {@link #GPU_INDICES}. */
  static final class IndexList extends SequenceType<Integer> {
    private IndexList() {
      super("list of GPU indices", "GPU index");
    }

    @Override
    Integer element(String text) {
      try {
        int i = Integer.parseInt(text.trim());
        if (i >= 0) {
          return i;
        }
      } catch (NumberFormatException e) {
        // the message below
      }
      throw new IllegalArgumentException("a GPU index is a whole number of 0 or more (NVML's index), not '" + text + "'");
    }
  }

  /** The type of {@link #PATHS}: read by the loader from a sequence (or a single scalar). */
  static final class PathList extends SequenceType<String> {
    private PathList() {
      super("list of paths", "path");
    }

    @Override
    String element(String text) {
      return path(text);
    }

    /** One element, checked. */
    String path(String text) {
      String p = text.trim();
      if (!p.startsWith("/")) {
        throw new IllegalArgumentException("a path starts with '/', not '" + text + "'");
      }
      return p;
    }
  }

  /** The type of {@link #CIPHER_SUITES}. */
  static final class CipherSuiteList extends SequenceType<String> {
    private CipherSuiteList() {
      super("list of cipher suites", "cipher suite name");
    }

    @Override
    String element(String text) {
      String name = text.trim();
      if (!Tls.supportedCipherSuites().contains(name)) {
        throw new IllegalArgumentException("'" + text + "' is not a cipher suite this JVM supports (IANA names,"
            + " e.g. TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)");
      }
      return name;
    }

    /** The JVM's suites, looked up only when a list is configured (it loads the TLS provider). */
    private static final class Tls {
      static java.util.Set<String> supportedCipherSuites() {
        try {
          return java.util.Set.of(javax.net.ssl.SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites());
        } catch (java.security.NoSuchAlgorithmException e) {
          throw new IllegalStateException("the JVM has no TLS", e);
        }
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  /** The shortest of the file's own duration forms: 1h, 2m, 3s or 500ms. */
  public static String formatDuration(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  private static String lower(Enum<?> v) {
    return v.name().toLowerCase(Locale.ROOT);
  }

  private static long positive(String s, long max) {
    long v;
    try {
      v = parseSize(s.trim());
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("expected a positive whole number, not '" + s + "'");
    }
    if (v <= 0) {
      throw new IllegalArgumentException("must be positive, not '" + s + "'");
    }
    if (v > max) {
      throw new IllegalArgumentException("too large: '" + s + "'");
    }
    return v;
  }

  /** Whole numbers with an optional binary suffix: 1048576, 1Mi, 64Ki, 1Gi. */
  private static long parseSize(String s) {
    long mult = 1;
    String lower = s.toLowerCase(Locale.ROOT);
    if (lower.endsWith("ki")) {
      mult = 1L << 10;
    } else if (lower.endsWith("mi")) {
      mult = 1L << 20;
    } else if (lower.endsWith("gi")) {
      mult = 1L << 30;
    }
    String digits = mult == 1 ? s : s.substring(0, s.length() - 2);
    return Math.multiplyExact(Long.parseLong(digits.replace("_", "")), mult);
  }

  /** 16Mi, 64Ki or the plain number when it is no whole number of KiB. */
  private static String binary(long v) {
    if (v >= 1L << 30 && v % (1L << 30) == 0) {
      return v / (1L << 30) + "Gi";
    }
    if (v >= 1L << 20 && v % (1L << 20) == 0) {
      return v / (1L << 20) + "Mi";
    }
    if (v >= 1L << 10 && v % (1L << 10) == 0) {
      return v / (1L << 10) + "Ki";
    }
    return Long.toString(v);
  }
}
