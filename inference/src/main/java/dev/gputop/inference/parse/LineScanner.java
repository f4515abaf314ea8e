package dev.gputop.inference.parse;

import static dev.gputop.inference.parse.CachedLine.BOUND_LE;
import static dev.gputop.inference.parse.CachedLine.BOUND_QUANTILE;
import static dev.gputop.inference.parse.CachedLine.KIND_COMMENT;
import static dev.gputop.inference.parse.CachedLine.KIND_EOF;
import static dev.gputop.inference.parse.CachedLine.KIND_HELP;
import static dev.gputop.inference.parse.CachedLine.KIND_SERIES;
import static dev.gputop.inference.parse.CachedLine.KIND_TYPE;
import static dev.gputop.inference.parse.CachedLine.KIND_UNIT;
import static dev.gputop.inference.parse.CachedLine.SUFFIXES;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_BUCKET;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_COUNT;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_CREATED;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_NONE;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_SUM;

import java.util.Arrays;

/**
 * Reads the bytes of one exposition, line by line, for the {@link ExpositionParser}: it finds
 * where a series key or comment line ends, checks a line against the key its parser predicts,
 * parses a key it has not seen into a {@link CachedLine} (names, label set, suffix and bound,
 * interned in the {@link ParserTables}), and reads a sample's value, timestamp and exemplar (all
 * but the usual number before a newline, which the parser reads in its own loop). It
 * counts lines, so that every {@link ExpositionFormatException} it makes says where.
 *
 * <p>Byte-level scanning of the {@code byte[]} body: no regex, no String per line. The body and
 * its end are fields set for one parse and dropped after it; the scanning methods copy them into
 * locals where they loop, for the client compiler, which reloads fields in loops.
 */
final class LineScanner {

  /** Bit 0: may start a metric name; bit 1: may continue one; bit 2: may continue a label name. */
  private static final byte[] CHAR_CLASS = new byte[256];

  static {
    for (int c = 0; c < 256; c++) {
      boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
      boolean digit = c >= '0' && c <= '9';
      int cls = 0;
      if (letter || c == ':') {
        cls |= 1 | 2;
      }
      if (digit) {
        cls |= 2;
      }
      if (letter || digit) {
        cls |= 4;
      }
      CHAR_CLASS[c] = (byte) cls;
    }
  }

  private final int maxLineLength;
  private final int maxLabels;
  private final ParserTables tables;
  private final StringTable strings;

  // State of one parse.
  private byte[] b;
  private int end;
  private boolean openMetrics;
  /** The number of the line being read, from 1. */
  int line;
  /** Whether an integer timestamp was read as milliseconds (0.0.4). */
  boolean sawIntegerTimestamp;
  /** The value {@link #valueAndRest} read. */
  double value;
  /** The timestamp {@link #valueAndRest} read, in milliseconds, or {@link Sample#NO_TIMESTAMP}. */
  long timestamp;

  LineScanner(ParserLimits limits, ParserTables tables) {
    this.maxLineLength = limits.maxLineLength();
    this.maxLabels = limits.maxLabels();
    this.tables = tables;
    this.strings = tables.strings;
  }

  /** Starts reading {@code body} up to {@code stop}, as OpenMetrics or as 0.0.4. */
  void start(byte[] body, int stop, boolean om) {
    b = body;
    end = stop;
    openMetrics = om;
    line = 0;
    sawIntegerTimestamp = false;
  }

  /** Lets go of the body. */
  void reset() {
    b = null;
    line = 0;
    sawIntegerTimestamp = false;
  }

  ExpositionFormatException error(String reason) {
    return new ExpositionFormatException(line, reason);
  }

  void checkLineLength(int lineStart, int lineEnd) throws ExpositionFormatException {
    if (lineEnd - lineStart > maxLineLength) {
      throw error("line longer than " + maxLineLength + " bytes (limit maxLineLength)");
    }
  }

  /**
   * Whether the body ends with a {@code # EOF} line (then trailing blanks and line ends), which
   * makes it OpenMetrics.
   */
  static boolean endsWithEof(byte[] b, int start, int stop) {
    int e = stop;
    while (e > start && (b[e - 1] == '\n' || b[e - 1] == '\r' || b[e - 1] == ' ' || b[e - 1] == '\t')) {
      e--;
    }
    int n = "# EOF".length();
    if (e - start < n) {
      return false;
    }
    int s = e - n;
    if (s > start && b[s - 1] != '\n') {
      return false;
    }
    return b[s] == '#' && b[s + 1] == ' ' && b[s + 2] == 'E' && b[s + 3] == 'O' && b[s + 4] == 'F';
  }

  // ---------------------------------------------------------------- comment lines

  /**
   * Where the comment line at {@code s} ends if it is exactly {@code key} then a line end (the
   * content's end, before any CR), else -1.
   */
  int predictedCommentEnd(byte[] key, int s) {
    int n = key.length;
    if (n > end - s || !Arrays.equals(key, 0, n, b, s, s + n)) {
      return -1;
    }
    int q = s + n;
    if (q == end || b[q] == '\n' || (b[q] == '\r' && (q + 1 == end || b[q + 1] == '\n'))) {
      return q;
    }
    return -1;
  }

  /** The end of the content of the line at {@code s}: before its LF, or its CR LF, or the body's end. */
  int contentEnd(int s) {
    int q = s;
    while (q < end && b[q] != '\n') {
      q++;
    }
    return q > s && b[q - 1] == '\r' ? q - 1 : q;
  }

  /** The start of the next line, after the line end at {@code q} (LF, CR LF, a lone final CR). */
  int nextLine(int q) {
    if (q >= end) {
      return q;
    }
    return b[q] == '\n' ? q + 1 : Math.min(q + 2, end);
  }

  /** Parses the comment line {@code b[s, e)} (its '#' at s) into a new cached line. */
  CachedLine parseComment(int s, int e, int hash) throws ExpositionFormatException {
    int i = s + 1;
    if (i >= e || (b[i] != ' ' && b[i] != '\t')) {
      return newLine(s, e, hash, KIND_COMMENT, null, null, null, null);
    }
    i = skipBlanks(i, e);
    int wordEnd = i;
    while (wordEnd < e && b[wordEnd] != ' ' && b[wordEnd] != '\t') {
      wordEnd++;
    }
    byte kind;
    if (isWord(i, wordEnd, "HELP")) {
      kind = KIND_HELP;
    } else if (isWord(i, wordEnd, "TYPE")) {
      kind = KIND_TYPE;
    } else if (isWord(i, wordEnd, "UNIT")) {
      kind = KIND_UNIT;
    } else if (isWord(i, wordEnd, "EOF") && skipBlanks(wordEnd, e) == e) {
      return newLine(s, e, hash, KIND_EOF, null, null, null, null);
    } else {
      return newLine(s, e, hash, KIND_COMMENT, null, null, null, null);
    }
    String keyword = kind == KIND_HELP ? "HELP" : kind == KIND_TYPE ? "TYPE" : "UNIT";
    int nameStart = skipBlanks(wordEnd, e);
    int nameEnd = nameStart;
    while (nameEnd < e && b[nameEnd] != ' ' && b[nameEnd] != '\t') {
      nameEnd++;
    }
    if (nameStart == nameEnd) {
      throw error(keyword + " line without a metric name");
    }
    if (!isMetricName(nameStart, nameEnd)) {
      throw error("invalid metric name " + quote(nameStart, nameEnd) + " in " + keyword + " line");
    }
    String name = strings.get(b, nameStart, nameEnd);
    int rest = skipBlanks(nameEnd, e);
    switch (kind) {
      case KIND_HELP:
        return newLine(s, e, hash, KIND_HELP, name, null, strings.get(b, rest, e), null);
      case KIND_UNIT:
        String unit = strings.get(b, rest, trimEnd(rest, e));
        return newLine(s, e, hash, KIND_UNIT, name, null, unit, null);
      default:
        int typeEnd = trimEnd(rest, e);
        if (rest == typeEnd) {
          throw error("TYPE line for '" + name + "' without a type");
        }
        MetricType type = metricType(rest, typeEnd);
        if (type == null) {
          throw error("unknown metric type " + quote(rest, typeEnd) + " for '" + name + "'");
        }
        return newLine(s, e, hash, KIND_TYPE, name, null, null, type);
    }
  }

  private MetricType metricType(int s, int e) {
    if (isWord(s, e, "counter")) {
      return MetricType.COUNTER;
    } else if (isWord(s, e, "gauge")) {
      return MetricType.GAUGE;
    } else if (isWord(s, e, "histogram")) {
      return MetricType.HISTOGRAM;
    } else if (isWord(s, e, "gaugehistogram")) {
      return MetricType.GAUGE_HISTOGRAM;
    } else if (isWord(s, e, "summary")) {
      return MetricType.SUMMARY;
    } else if (isWord(s, e, "info")) {
      return MetricType.INFO;
    } else if (isWord(s, e, "stateset")) {
      return MetricType.STATESET;
    } else if (isWord(s, e, "untyped") || isWord(s, e, "unknown")) {
      return MetricType.UNTYPED;
    }
    return null;
  }

  // ---------------------------------------------------------------- series keys

  /** After a bare metric name that matched a cached key: is the name complete, with no labels? */
  boolean endsBareName(int q) {
    if (q >= end) {
      return true;
    }
    if ((CHAR_CLASS[b[q] & 0xff] & 2) != 0) {
      return false;
    }
    int r = skipBlanks(q, end);
    return r >= end || b[r] != '{';
  }

  /**
   * Finds the end of the series key starting at {@code s}: the metric name and its label set.
   * Quotes are followed so that a brace inside a label value does not end the set.
   */
  int scanKey(int s) throws ExpositionFormatException {
    if ((CHAR_CLASS[b[s] & 0xff] & 1) == 0) {
      throw error("invalid metric name " + quote(s, tokenEnd(s)));
    }
    int i = s + 1;
    while (i < end && (CHAR_CLASS[b[i] & 0xff] & 2) != 0) {
      i++;
    }
    int nameEnd = i;
    i = skipBlanks(i, end);
    if (i >= end || b[i] != '{') {
      return nameEnd;
    }
    i++;
    while (true) {
      if (i >= end || b[i] == '\n') {
        throw error("unterminated label set (missing '}')");
      }
      byte c = b[i];
      if (c == '}') {
        return i + 1;
      }
      if (c == '"') {
        i++;
        while (true) {
          if (i >= end || b[i] == '\n') {
            throw error("unterminated label value");
          }
          byte d = b[i];
          if (d == '"') {
            break;
          }
          if (d == '\\') {
            if (i + 1 >= end || b[i + 1] == '\n') {
              throw error("unterminated label value");
            }
            i += 2;
          } else {
            i++;
          }
        }
      }
      i++;
    }
  }

  /**
   * Parses and validates the series key {@code b[s, e)} found by {@link #scanKey} into a new
   * cached line; {@code prev} is the line before it, whose label group the buckets of one
   * histogram share.
   */
  CachedLine parseSeries(int s, int e, int hash, CachedLine prev) throws ExpositionFormatException {
    int i = s + 1;
    while (i < e && (CHAR_CLASS[b[i] & 0xff] & 2) != 0) {
      i++;
    }
    String name = strings.get(b, s, i);
    i = skipBlanks(i, e);
    if (i == e) {
      return seriesLine(newLine(s, e, hash, KIND_SERIES, name, Labels.EMPTY, null, null), prev);
    }
    // b[i] == '{' and b[e - 1] == '}', as scanKey found them.
    i++;
    String[] names = new String[4];
    String[] values = new String[4];
    int n = 0;
    while (true) {
      i = skipBlanks(i, e);
      if (b[i] == '}') {
        break;
      }
      int nameStart = i;
      if ((CHAR_CLASS[b[i] & 0xff] & 4) == 0 || isDigit(b[i])) {
        throw error("invalid label name " + quote(nameStart, labelTokenEnd(nameStart, e)) + " on '" + name + "'");
      }
      while ((CHAR_CLASS[b[i] & 0xff] & 4) != 0) {
        i++;
      }
      String labelName = strings.get(b, nameStart, i);
      i = skipBlanks(i, e);
      if (b[i] != '=') {
        if ((CHAR_CLASS[b[i] & 0xff] & 2) != 0 || b[i] < 0) {
          throw error("invalid label name " + quote(nameStart, labelTokenEnd(nameStart, e)) + " on '" + name + "'");
        }
        throw error("expected '=' after label name '" + labelName + "' on '" + name + "'");
      }
      i = skipBlanks(i + 1, e);
      if (b[i] != '"') {
        throw error("expected '\"' to open the value of label '" + labelName + "' on '" + name + "'");
      }
      int valueStart = ++i;
      while (b[i] != '"') {
        i += b[i] == '\\' ? 2 : 1;
      }
      String labelValue = strings.get(b, valueStart, i);
      i++;
      if (n == maxLabels) {
        throw error("more than " + maxLabels + " labels on '" + name + "' (limit maxLabels)");
      }
      for (int k = 0; k < n; k++) {
        if (names[k].equals(labelName)) {
          throw error("duplicate label name '" + labelName + "' on '" + name + "'");
        }
      }
      if (n == names.length) {
        names = Arrays.copyOf(names, n * 2);
        values = Arrays.copyOf(values, n * 2);
      }
      names[n] = labelName;
      values[n++] = labelValue;
      i = skipBlanks(i, e);
      if (b[i] == ',') {
        i++;
      } else if (b[i] != '}') {
        throw error("expected ',' or '}' after label '" + labelName + "' on '" + name + "', found " + quote(i, labelTokenEnd(i, e)));
      }
    }
    Labels labels =
        n == 0
            ? Labels.EMPTY
            : tables.labels(Labels.fromArrays(Arrays.copyOf(names, n), Arrays.copyOf(values, n)));
    CachedLine line = newLine(s, e, hash, KIND_SERIES, name, labels, null, null);
    line.hasLabels = true;
    return seriesLine(line, prev);
  }

  /**
   * Fills in what a series line means to a histogram or summary, once per cached key: the suffix
   * of its name, its {@code le} or {@code quantile} parsed, its labels without it.
   */
  private CachedLine seriesLine(CachedLine line, CachedLine prev) {
    String name = line.name;
    byte suffix = SUFFIX_NONE;
    for (int k = 0; k < SUFFIXES.length; k++) {
      if (name.endsWith(SUFFIXES[k])) {
        suffix = (byte) (k + 1);
        break;
      }
    }
    line.suffix = suffix;
    if (suffix != SUFFIX_NONE) {
      // The key starts with the name, which has no escapes: its bytes less the suffix's.
      line.text = strings.get(line.key, 0, name.length() - SUFFIXES[suffix - 1].length());
    }
    Labels labels = line.labels;
    Labels group = labels;
    String le = suffix == SUFFIX_BUCKET ? labels.get("le") : null;
    if (le != null) {
      line.boundLabel = BOUND_LE;
      line.bound = Bounds.parse(le);
      // The buckets of one histogram come one after another: share the previous one's group.
      if (prev.kind == KIND_SERIES && prev.boundLabel == BOUND_LE && prev.name == name
          && sameExceptLe(prev.labels, labels)) {
        line.group = prev.group;
        return line;
      }
      group = labels.without("le");
    } else if (suffix != SUFFIX_SUM && suffix != SUFFIX_COUNT && suffix != SUFFIX_CREATED) {
      String q = labels.get("quantile");
      if (q != null) {
        line.boundLabel = BOUND_QUANTILE;
        line.bound = Bounds.parse(q);
        group = labels.without("quantile");
      }
    }
    line.group = tables.labels(group);
    return line;
  }

  /** Whether two label sets differ at most in the value of {@code le}. */
  private static boolean sameExceptLe(Labels a, Labels b) {
    int n = a.size();
    if (n != b.size()) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      String name = a.name(i);
      if (!name.equals(b.name(i))) {
        return false;
      }
      if (!name.equals("le") && !a.value(i).equals(b.value(i))) {
        return false;
      }
    }
    return true;
  }

  private CachedLine newLine(
      int s, int e, int hash, byte kind, String name, Labels labels, String text, MetricType type) {
    return new CachedLine(tables.keys.get(b, s, e), hash, kind, name, labels, text, type);
  }

  // ---------------------------------------------------------------- values

  /**
   * Reads the rest of any sample line of {@code line} whose key ends at {@code keyEnd}: its value
   * into {@link #value}, its timestamp into {@link #timestamp} (or {@link Sample#NO_TIMESTAMP}),
   * an exemplar checked and dropped, then the line's end. Returns the start of the next line.
   */
  int valueAndRest(int lineStart, int s, int keyEnd, CachedLine line)
      throws ExpositionFormatException {
    byte[] b = this.b;
    int end = this.end;
    int i = keyEnd;
    if (i >= end || b[i] == '\n' || b[i] == '\r') {
      throw error("missing value for '" + line.name + "'");
    }
    // Like Prometheus, a value may follow a closing brace without a blank.
    if (!line.hasLabels && b[i] != ' ' && b[i] != '\t') {
      throw error("invalid metric name " + quote(s, tokenEnd(s)));
    }
    i = skipBlanks(i, end);
    int valueStart = i;
    i = tokenEnd(valueStart);
    if (i == valueStart) {
      throw error("missing value for '" + line.name + "'");
    }
    double v;
    try {
      v = FastDoubleParser.parse(b, valueStart, i);
    } catch (NumberFormatException ex) {
      throw error("bad number " + quote(valueStart, i) + " for '" + line.name + "'");
    }
    i = skipBlanks(i, end);
    long ts = Sample.NO_TIMESTAMP;
    if (i < end && b[i] != '\n' && b[i] != '\r' && b[i] != '#') {
      int tsStart = i;
      i = tokenEnd(i);
      ts = timestamp(tsStart, i);
      i = skipBlanks(i, end);
    }
    if (i < end && b[i] == '#') {
      i = exemplar(i);
    }
    int next = endOfLine(i);
    checkLineLength(lineStart, i);
    value = v;
    timestamp = ts;
    return next;
  }

  private long timestamp(int s, int e) throws ExpositionFormatException {
    boolean integer = true;
    for (int k = b[s] == '-' ? s + 1 : s; k < e; k++) {
      if (!isDigit(b[k])) {
        integer = false;
        break;
      }
    }
    int digits = e - s - (b[s] == '-' ? 1 : 0);
    if (integer && digits > 0 && digits <= 18 && !openMetrics) {
      sawIntegerTimestamp = true;
      long v = 0;
      for (int k = b[s] == '-' ? s + 1 : s; k < e; k++) {
        v = v * 10 + (b[k] - '0');
      }
      return b[s] == '-' ? -v : v;
    }
    double seconds;
    try {
      seconds = FastDoubleParser.parse(b, s, e);
    } catch (NumberFormatException ex) {
      throw error("bad timestamp " + quote(s, e));
    }
    double millis = seconds * 1000.0;
    if (Double.isNaN(millis) || Math.abs(millis) >= 9.0e18) {
      throw error("bad timestamp " + quote(s, e));
    }
    return Math.round(millis);
  }

  /** Validates the OpenMetrics exemplar starting at the '#' at {@code s}; the index after it. */
  private int exemplar(int s) throws ExpositionFormatException {
    int i = skipBlanks(s + 1, end);
    if (i >= end || b[i] != '{') {
      throw error("malformed exemplar: expected '{' after '#'");
    }
    i++;
    while (true) {
      if (i >= end || b[i] == '\n') {
        throw error("malformed exemplar: unterminated label set");
      }
      if (b[i] == '}') {
        break;
      }
      if (b[i] == '"') {
        i++;
        while (i < end && b[i] != '"' && b[i] != '\n') {
          i += b[i] == '\\' ? 2 : 1;
        }
        if (i >= end || b[i] != '"') {
          throw error("malformed exemplar: unterminated label value");
        }
      }
      i++;
    }
    i = skipBlanks(i + 1, end);
    int valueStart = i;
    i = tokenEnd(i);
    if (valueStart == i) {
      throw error("malformed exemplar: missing value");
    }
    try {
      FastDoubleParser.parse(b, valueStart, i);
    } catch (NumberFormatException ex) {
      throw error("malformed exemplar: bad number " + quote(valueStart, i));
    }
    i = skipBlanks(i, end);
    if (i < end && b[i] != '\n' && b[i] != '\r') {
      int tsStart = i;
      i = tokenEnd(i);
      try {
        FastDoubleParser.parse(b, tsStart, i);
      } catch (NumberFormatException ex) {
        throw error("malformed exemplar: bad timestamp " + quote(tsStart, i));
      }
      i = skipBlanks(i, end);
    }
    return i;
  }

  /** Expects the end of the line at {@code i}; the index of the next line. */
  private int endOfLine(int i) throws ExpositionFormatException {
    if (i >= end) {
      return i;
    }
    if (b[i] == '\n') {
      return i + 1;
    }
    if (b[i] == '\r' && (i + 1 == end || b[i + 1] == '\n')) {
      return Math.min(i + 2, end);
    }
    throw error("unexpected text after the value: " + quote(i, tokenEnd(i)));
  }

  // ---------------------------------------------------------------- helpers

  private boolean isMetricName(int s, int e) {
    if ((CHAR_CLASS[b[s] & 0xff] & 1) == 0) {
      return false;
    }
    for (int i = s + 1; i < e; i++) {
      if ((CHAR_CLASS[b[i] & 0xff] & 2) == 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean isDigit(byte c) {
    return c >= '0' && c <= '9';
  }

  private boolean isWord(int s, int e, String word) {
    if (e - s != word.length()) {
      return false;
    }
    for (int k = 0; k < word.length(); k++) {
      if (b[s + k] != word.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  private int skipBlanks(int i, int e) {
    while (i < e && (b[i] == ' ' || b[i] == '\t')) {
      i++;
    }
    return i;
  }

  private int trimEnd(int s, int e) {
    while (e > s && (b[e - 1] == ' ' || b[e - 1] == '\t')) {
      e--;
    }
    return e;
  }

  /** The end of the token at {@code i}: the next blank, CR, LF or the end. */
  private int tokenEnd(int i) {
    while (i < end) {
      byte c = b[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        break;
      }
      i++;
    }
    return i;
  }

  private int labelTokenEnd(int i, int e) {
    int k = i;
    while (k < e && b[k] != '=' && b[k] != ',' && b[k] != '}' && b[k] != ' ' && b[k] != '"') {
      k++;
    }
    return Math.max(k, Math.min(i + 1, e));
  }

  /** A short, printable, quoted rendering of {@code b[s, e)} for an error message. */
  private String quote(int s, int e) {
    int n = Math.min(e - s, 40);
    StringBuilder sb = new StringBuilder(n + 5).append('"');
    for (int i = s; i < s + n; i++) {
      int c = b[i] & 0xff;
      sb.append(c >= 0x20 && c < 0x7f ? (char) c : '?');
    }
    if (e - s > n) {
      sb.append("...");
    }
    return sb.append('"').toString();
  }
}
