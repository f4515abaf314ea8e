package dev.gputop.agent.demo;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Number formatting the way each engine's exposition library writes numbers. Stateless and
 * thread-safe.
 */
final class Fmt {

  private Fmt() {}

  /**
   * Python {@code prometheus_client}'s {@code floatToGoString}: Python's {@code repr(float)}, but
   * switching to an exponent sooner (Go style), e.g. {@code 1.0}, {@code 0.31326723098754883},
   * {@code 1.048576e+06}, {@code 9.75010481363281e-06}, {@code +Inf}.
   */
  static String python(double d) {
    if (d == Double.POSITIVE_INFINITY) {
      return "+Inf";
    }
    if (d == Double.NEGATIVE_INFINITY) {
      return "-Inf";
    }
    if (Double.isNaN(d)) {
      return "NaN";
    }
    String s = pythonRepr(d);
    int dot = s.indexOf('.');
    if (d > 0 && dot > 6) {
      // Go switches to exponents sooner than Python (prometheus_client/utils.py).
      String mantissa = s.charAt(0) + "." + s.substring(1, dot) + s.substring(dot + 1);
      mantissa = rstrip(mantissa, "0.");
      return mantissa + "e+0" + (dot - 1);
    }
    return s;
  }

  /** Python's {@code repr(float)}: shortest digits, exponent when decpt <= -4 or > 16. */
  static String pythonRepr(double d) {
    if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    if (d == Math.rint(d) && Math.abs(d) < 1e16) {
      return (long) d + ".0"; // fast path for counts, exact below 2^53 and as Python writes them
    }
    BigDecimal bd = new BigDecimal(Double.toString(d)).stripTrailingZeros();
    String digits = bd.unscaledValue().abs().toString();
    // value = 0.digits * 10^decpt
    int decpt = digits.length() - bd.scale();
    String sign = d < 0 ? "-" : "";
    if (decpt > -4 && decpt <= 16) {
      if (decpt <= 0) {
        return sign + "0." + "0".repeat(-decpt) + digits;
      }
      if (decpt >= digits.length()) {
        return sign + digits + "0".repeat(decpt - digits.length()) + ".0";
      }
      return sign + digits.substring(0, decpt) + "." + digits.substring(decpt);
    }
    int exp = decpt - 1;
    String mant = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    return sign + mant + "e" + (exp < 0 ? "-" : "+") + pad2(Math.abs(exp));
  }

  /**
   * Rust's {@code Display} for {@code f64} as metrics-exporter-prometheus (TGI) writes it: the
   * shortest digits, never an exponent, no trailing {@code .0} ({@code 109}, {@code
   * 0.00015000000000000001}).
   */
  static String rust(double d) {
    if (d == Double.POSITIVE_INFINITY) {
      return "+Inf";
    }
    if (Double.isNaN(d)) {
      return "NaN";
    }
    if (d == 0) {
      return "0";
    }
    if (d == Math.rint(d) && Math.abs(d) < 1e16) {
      return Long.toString((long) d);
    }
    return new BigDecimal(Double.toString(d)).stripTrailingZeros().toPlainString();
  }

  /**
   * C++ {@code std::ostream << double} with the default precision (llama.cpp): {@code %g} with
   * six significant digits, e.g. {@code 1.95238}, {@code 1.23457e+06}, {@code inf}.
   */
  static String cpp(double d) {
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == 0) {
      return "0";
    }
    BigDecimal r = new BigDecimal(d).round(new MathContext(6, RoundingMode.HALF_EVEN));
    int exp = r.precision() - r.scale() - 1;
    if (exp < -4 || exp >= 6) {
      BigDecimal mant = r.movePointLeft(exp).stripTrailingZeros();
      String m = mant.scale() <= 0 ? mant.toBigInteger().toString() : mant.toPlainString();
      return m + "e" + (exp < 0 ? "-" : "+") + pad2(Math.abs(exp));
    }
    BigDecimal plain = r.stripTrailingZeros();
    return plain.scale() <= 0 ? plain.toBigInteger().toString() : plain.toPlainString();
  }

  private static final java.util.concurrent.ConcurrentHashMap<Double, String> PYTHON_LE =
      new java.util.concurrent.ConcurrentHashMap<>();
  private static final java.util.concurrent.ConcurrentHashMap<Double, String> RUST_LE =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** {@link #python} for bucket bounds, cached: the writers' bounds are a small fixed set. */
  static String pythonLe(double bound) {
    return PYTHON_LE.computeIfAbsent(bound, Fmt::python);
  }

  /** {@link #rust} for bucket bounds, cached. */
  static String rustLe(double bound) {
    return RUST_LE.computeIfAbsent(bound, Fmt::rust);
  }

  /** The HELP and TYPE lines of a family, as prometheus_client writes them. */
  static void header(StringBuilder b, String name, String help, String type) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  /** A label value escaped for the text format. */
  static String escape(String v) {
    if (v.indexOf('\\') < 0 && v.indexOf('"') < 0 && v.indexOf('\n') < 0) {
      return v;
    }
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  private static String pad2(int n) {
    return n < 10 ? "0" + n : Integer.toString(n);
  }

  private static String rstrip(String s, String chars) {
    int end = s.length();
    while (end > 0 && chars.indexOf(s.charAt(end - 1)) >= 0) {
      end--;
    }
    return s.substring(0, end);
  }
}
