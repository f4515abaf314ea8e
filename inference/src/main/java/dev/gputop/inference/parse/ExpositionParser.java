package dev.gputop.inference.parse;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Parses a Prometheus text format 0.0.4 or OpenMetrics 1.0 exposition into an {@link Exposition}.
 *
 * <p>What it accepts, the limits and the error messages are described in {@code docs/parser.md}.
 * In short: HELP, TYPE and UNIT lines, samples with optional labels, timestamp and exemplar, blank
 * lines, other comments, CRLF line endings and {@code # EOF}. A malformed line, or one beyond the
 * {@link ParserLimits}, fails the whole parse with an {@link ExpositionFormatException} reading
 * {@code line N: reason}; no other exception escapes {@link #parse(byte[], int, int)}, whatever
 * the bytes.
 *
 * <p>Samples are grouped into families: a sample joins the most recent family whose name is its
 * name less a suffix that the family's type allows ({@code _total} and {@code _created} for a
 * counter, {@code _bucket}, {@code _sum}, {@code _count} and {@code _created} for a histogram,
 * …), else the declared family it fits, else an {@link MetricType#UNTYPED} family named like the
 * sample. Families declared by HELP or TYPE without samples are kept, with no samples.
 *
 * <p>The parser is built to be reused for one server, scrape after scrape. It remembers, in a
 * bounded cache, the bytes of each series key (name and label set) and each HELP/TYPE line it has
 * seen with their parsed form, and the order in which they came. The next scrape of the same
 * server usually repeats the previous one line for line with new values, so most lines are
 * recognized by one byte comparison against the predicted key, and only the value is parsed: no
 * strings, label sets or family names are built again. The cache is emptied when it holds more
 * than 65,536 entries or 16 MiB of keys, so a server that invents new series on every scrape
 * costs time, not memory. What servers write alike (strings, label sets, key bytes, bounds) is
 * kept in {@link ParserTables} that the parsers of one receiver share; the parser itself keeps
 * only its cache entries, and nothing of the body between parses.
 *
 * <p>Not thread-safe: an instance is used by one thread at a time (one per scraped server, on the
 * inference receiver's refresh thread, after the scrape cycle fetched the bytes), and parsers
 * sharing tables parse one at a time. The {@link Exposition}s it returns are immutable and can be
 * shared.
 *
 * <pre>{@code
 * ParserTables tables = new ParserTables(); // one per receiver
 * ExpositionParser parser = new ExpositionParser(ParserLimits.defaults(), tables); // per server
 * Exposition exposition = parser.parse(body, 0, length);
 * MetricFamily running = exposition.family("vllm:num_requests_running");
 * }</pre>
 */
public final class ExpositionParser {

  /** Cache entries kept across parses before the cache is emptied. */
  static final int DEFAULT_MAX_CACHE_ENTRIES = 65_536;
  /** Bytes of cached keys kept across parses before the cache is emptied. */
  static final long DEFAULT_MAX_CACHE_BYTES = 16L << 20;
  /** Family builders kept for reuse between parses. */
  private static final int MAX_POOLED_FAMILIES = 4_096;

  private static final byte KIND_SERIES = 0;
  private static final byte KIND_HELP = 1;
  private static final byte KIND_TYPE = 2;
  private static final byte KIND_UNIT = 3;
  private static final byte KIND_COMMENT = 4;
  private static final byte KIND_EOF = 5;

  private static final byte SUFFIX_NONE = 0;
  private static final byte SUFFIX_TOTAL = 1;
  private static final byte SUFFIX_CREATED = 2;
  private static final byte SUFFIX_BUCKET = 3;
  private static final byte SUFFIX_SUM = 4;
  private static final byte SUFFIX_COUNT = 5;
  private static final byte SUFFIX_INFO = 6;
  private static final byte SUFFIX_GSUM = 7;
  private static final byte SUFFIX_GCOUNT = 8;

  private static final byte BOUND_NONE = 0;
  private static final byte BOUND_LE = 1;
  private static final byte BOUND_QUANTILE = 2;

  static final double[] NO_DOUBLES = new double[0];

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

  private final ParserLimits limits;
  private final int maxLineLength;
  private final int maxSeries;
  private final int maxCacheEntries;
  private final long maxCacheBytes;

  // Cache kept across parses.
  private static final int INITIAL_TABLE_SIZE = 256;
  private Entry[] table = new Entry[INITIAL_TABLE_SIZE];
  private int cacheSize;
  private long cacheBytes;
  private final long hashSeed = ThreadLocalRandom.current().nextLong();
  /** Strings, label sets, key bytes and scratch space, maybe shared with other parsers. */
  private final ParserTables tables;
  private final StringTable strings;
  /** Sentinel whose {@code next} is the first entry of the previous parse. */
  private final Entry head = new Entry(new byte[0], 0, KIND_COMMENT, null, null, null, null);

  // State of one parse.
  private byte[] b;
  private int end;
  private int line;
  private int sampleCount;
  private boolean openMetrics;
  private boolean sawIntegerTimestamp;
  /** The value {@link #plainValue} read. */
  private double plain;
  private Entry prev;
  private FamilyBuilder current;
  private String lastSampleName;
  private FamilyBuilder lastFamily;
  private final HashMap<String, FamilyBuilder> byName;
  private final ArrayList<FamilyBuilder> order;
  private final ArrayList<FamilyBuilder> pool;

  /** A parser that enforces these limits, with tables of its own. */
  public ExpositionParser(ParserLimits limits) {
    this(limits, new ParserTables());
  }

  /**
   * A parser that enforces these limits and shares {@code tables} with the other parsers of its
   * receiver: they must parse one at a time (see {@link ParserTables}).
   */
  public ExpositionParser(ParserLimits limits, ParserTables tables) {
    this(limits, tables, DEFAULT_MAX_CACHE_ENTRIES, DEFAULT_MAX_CACHE_BYTES);
  }

  /** A parser with a smaller or larger cache and tables of its own as small, for tests. */
  ExpositionParser(ParserLimits limits, int maxCacheEntries, long maxCacheBytes) {
    this(limits, new ParserTables(maxCacheEntries, maxCacheBytes), maxCacheEntries, maxCacheBytes);
  }

  private ExpositionParser(
      ParserLimits limits, ParserTables tables, int maxCacheEntries, long maxCacheBytes) {
    this.limits = Objects.requireNonNull(limits, "limits");
    this.maxLineLength = limits.maxLineLength();
    this.maxSeries = limits.maxSeries();
    this.tables = Objects.requireNonNull(tables, "tables");
    if (maxCacheEntries <= 0 || maxCacheBytes <= 0) {
      throw new IllegalArgumentException("cache bounds must be positive");
    }
    this.maxCacheEntries = maxCacheEntries;
    this.maxCacheBytes = maxCacheBytes;
    this.strings = tables.strings;
    this.byName = tables.byName;
    this.order = tables.order;
    this.pool = tables.pool;
  }

  /** Parses a whole exposition given as text; see {@link #parse(byte[], int, int)}. */
  public Exposition parse(String text) throws ExpositionFormatException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return parse(bytes, 0, bytes.length);
  }

  /**
   * Parses {@code length} bytes of {@code body} from {@code offset}: UTF-8 text in the
   * Prometheus 0.0.4 or OpenMetrics 1.0 format. OpenMetrics is recognized by its closing
   * {@code # EOF} line, which decides whether integer timestamps are milliseconds (0.0.4) or
   * seconds (OpenMetrics); timestamps are returned in milliseconds either way.
   *
   * @throws ExpositionFormatException when a line is malformed or a limit is exceeded
   * @throws IndexOutOfBoundsException when offset and length do not lie within body
   */
  public Exposition parse(byte[] body, int offset, int length) throws ExpositionFormatException {
    Objects.checkFromIndexSize(offset, length, body.length);
    tables.acquire();
    try {
      return parseRange(body, offset, offset + length, endsWithEof(body, offset, offset + length));
    } catch (RuntimeException e) {
      // A bug, not bad input: keep the promise that only format errors escape, and start afresh.
      clearCache();
      ExpositionFormatException f =
          new ExpositionFormatException(line, "internal parser error: " + e);
      f.initCause(e);
      throw f;
    } finally {
      // Also lets go of the body: a parser keeps nothing of it between parses.
      reset();
      tables.release();
    }
  }

  private Exposition parseRange(byte[] body, int start, int stop, boolean om)
      throws ExpositionFormatException {
    reset();
    this.b = body;
    this.end = stop;
    this.openMetrics = om;
    this.prev = head;
    int p = start;
    while (p < stop) {
      line++;
      int lineStart = p;
      while (p < stop && (body[p] == ' ' || body[p] == '\t')) {
        p++;
      }
      if (p == stop) {
        break;
      }
      byte c = body[p];
      if (c == '\n') {
        p++;
        continue;
      }
      if (c == '\r' && (p + 1 == stop || body[p + 1] == '\n')) {
        p += 2;
        continue;
      }
      if (c == '#') {
        int eofAt = p;
        p = comment(lineStart, p);
        if (p < 0) {
          if (!om && sawIntegerTimestamp) {
            // Integer timestamps were read as milliseconds before "# EOF" said OpenMetrics.
            return parseRange(body, start, eofAt, true);
          }
          break;
        }
      } else {
        p = sample(lineStart, p);
      }
    }
    return build();
  }

  // ---------------------------------------------------------------- comment lines

  /** Handles the comment line whose '#' is at {@code s}; the index after it, or -1 at EOF. */
  private int comment(int lineStart, int s) throws ExpositionFormatException {
    Entry e = prev.next;
    int contentEnd;
    int next;
    if (e != null && e.kind != KIND_SERIES && matches(e.key, s)) {
      int q = s + e.key.length;
      if (q == end) {
        contentEnd = q;
        next = q;
      } else if (b[q] == '\n') {
        contentEnd = q;
        next = q + 1;
      } else if (b[q] == '\r' && (q + 1 == end || b[q + 1] == '\n')) {
        contentEnd = q;
        next = Math.min(q + 2, end);
      } else {
        e = null;
        contentEnd = next = 0;
      }
    } else {
      e = null;
      contentEnd = next = 0;
    }
    if (e == null) {
      int q = s;
      while (q < end && b[q] != '\n') {
        q++;
      }
      next = q < end ? q + 1 : q;
      contentEnd = q > s && b[q - 1] == '\r' ? q - 1 : q;
      checkLineLength(lineStart, contentEnd);
      int hash = hash(b, s, contentEnd, hashSeed);
      e = lookup(s, contentEnd, hash);
      if (e == null) {
        e = parseComment(s, contentEnd, hash);
        if (e.kind == KIND_EOF) {
          return -1;
        }
        insert(e);
      }
    } else {
      checkLineLength(lineStart, contentEnd);
    }
    follow(e);
    if (e.kind != KIND_COMMENT) {
      // A declaration may introduce the family of the next sample, even one named like the last.
      lastSampleName = null;
    }
    switch (e.kind) {
      case KIND_HELP:
        declare(e.name).help = e.text;
        break;
      case KIND_TYPE:
        FamilyBuilder f = declare(e.name);
        if (f.typeDeclared && f.type != e.type) {
          throw error(
              "second TYPE line for '" + e.name + "' says " + typeName(e.type) + ", first said "
                  + typeName(f.type));
        }
        f.type = e.type;
        f.typeDeclared = true;
        break;
      case KIND_UNIT:
        declare(e.name).unit = e.text;
        break;
      default:
        break;
    }
    return next;
  }

  private Entry parseComment(int s, int e, int hash) throws ExpositionFormatException {
    int i = s + 1;
    if (i >= e || (b[i] != ' ' && b[i] != '\t')) {
      return newEntry(s, e, hash, KIND_COMMENT, null, null, null, null);
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
      return newEntry(s, e, hash, KIND_EOF, null, null, null, null);
    } else {
      return newEntry(s, e, hash, KIND_COMMENT, null, null, null, null);
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
        return newEntry(s, e, hash, KIND_HELP, name, null, strings.get(b, rest, e), null);
      case KIND_UNIT:
        String unit = strings.get(b, rest, trimEnd(rest, e));
        return newEntry(s, e, hash, KIND_UNIT, name, null, unit, null);
      default:
        int typeEnd = trimEnd(rest, e);
        if (rest == typeEnd) {
          throw error("TYPE line for '" + name + "' without a type");
        }
        MetricType type = metricType(rest, typeEnd);
        if (type == null) {
          throw error("unknown metric type " + quote(rest, typeEnd) + " for '" + name + "'");
        }
        return newEntry(s, e, hash, KIND_TYPE, name, null, null, type);
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

  private static String typeName(MetricType type) {
    switch (type) {
      case GAUGE_HISTOGRAM:
        return "gaugehistogram";
      case UNTYPED:
        return "untyped";
      default:
        return type.name().toLowerCase(Locale.ROOT);
    }
  }

  // ---------------------------------------------------------------- sample lines

  /** Handles the sample line starting at {@code s}; the index after it. */
  private int sample(int lineStart, int s) throws ExpositionFormatException {
    Entry e = prev.next;
    int keyEnd = -1;
    byte[] key;
    if (e != null && e.kind == KIND_SERIES && (key = e.key).length <= end - s
        && Arrays.equals(key, 0, key.length, b, s, s + key.length)) {
      keyEnd = s + key.length;
      if (!e.hasLabels && !endsBareName(keyEnd)) {
        keyEnd = -1;
      }
    }
    if (keyEnd < 0) {
      keyEnd = scanKey(s);
      checkLineLength(lineStart, keyEnd);
      int hash = hash(b, s, keyEnd, hashSeed);
      e = lookup(s, keyEnd, hash);
      if (e == null) {
        e = parseSeries(s, keyEnd, hash);
        insert(e);
      }
    }
    if (prev.next != e) {
      prev.next = e;
    }
    prev = e;
    if (++sampleCount > maxSeries) {
      throw error("more than " + maxSeries + " samples (limit maxSeries)");
    }

    // The body and its end in locals, for the client compiler, which reloads fields in loops.
    byte[] b = this.b;
    int end = this.end;
    int i = keyEnd;
    if (i >= end || b[i] == '\n' || b[i] == '\r') {
      throw error("missing value for '" + e.name + "'");
    }
    // Like Prometheus, a value may follow a closing brace without a blank.
    if (!e.hasLabels && b[i] != ' ' && b[i] != '\t') {
      throw error("invalid metric name " + quote(s, tokenEnd(s)));
    }
    while (i < end && (b[i] == ' ' || b[i] == '\t')) {
      i++;
    }
    int valueStart = i;
    double value;
    i = plainValue(valueStart);
    if (i >= 0) {
      value = plain;
      if (i < end && b[i] == '\n' && i - lineStart <= maxLineLength) {
        // The usual line: a plain value, then the line's end.
        FamilyBuilder f = e.name == lastSampleName ? lastFamily : familyOf(e);
        f.add(e, value, Sample.NO_TIMESTAMP);
        return i + 1;
      }
    } else {
      i = tokenEnd(valueStart);
      if (i == valueStart) {
        throw error("missing value for '" + e.name + "'");
      }
      try {
        value = FastDoubleParser.parse(b, valueStart, i);
      } catch (NumberFormatException ex) {
        throw error("bad number " + quote(valueStart, i) + " for '" + e.name + "'");
      }
    }
    i = skipBlanks(i, end);
    long timestamp = Sample.NO_TIMESTAMP;
    if (i < end && b[i] != '\n' && b[i] != '\r' && b[i] != '#') {
      int tsStart = i;
      i = tokenEnd(i);
      timestamp = timestamp(tsStart, i);
      i = skipBlanks(i, end);
    }
    if (i < end && b[i] == '#') {
      i = exemplar(i);
    }
    int next = endOfLine(i);
    checkLineLength(lineStart, i);

    familyOf(e).add(e, value, timestamp);
    return next;
  }

  /**
   * Reads the common value {@code digits[.digits]} of at most 15 digits, followed by a blank, a
   * line end or the end of the body, in one pass: its value in {@link #plain}, the index after
   * it returned. Any other text returns -1 for {@link FastDoubleParser} to read (exponents,
   * signs, specials, long mantissas) or reject. The result is the same as FastDoubleParser's:
   * below 2^53 the digits are exact in a double, and so is 10^k for k up to 15, so one division
   * rounds correctly (Clinger's fast path).
   */
  private int plainValue(int s) {
    byte[] b = this.b;
    int end = this.end;
    int i = s;
    long m = 0;
    int d;
    while (i < end && (d = b[i] - '0') >= 0 && d <= 9) {
      m = m * 10 + d;
      i++;
    }
    int digits = i - s;
    if (digits == 0) {
      return -1;
    }
    int fraction = 0;
    if (i < end && b[i] == '.') {
      int f = ++i;
      while (i < end && (d = b[i] - '0') >= 0 && d <= 9) {
        m = m * 10 + d;
        i++;
      }
      fraction = i - f;
      digits += fraction;
    }
    if (digits > 15) {
      return -1;
    }
    if (i < end) {
      byte c = b[i];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return -1;
      }
    }
    plain = fraction == 0 ? (double) m : m / POW10[fraction];
    return i;
  }

  private static final double[] POW10 = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15
  };

  /** After a bare metric name that matched a cached key: is the name complete, with no labels? */
  private boolean endsBareName(int q) {
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
  private int scanKey(int s) throws ExpositionFormatException {
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

  /** Parses and validates the series key {@code b[s, e)} found by {@link #scanKey}. */
  private Entry parseSeries(int s, int e, int hash) throws ExpositionFormatException {
    int i = s + 1;
    while (i < e && (CHAR_CLASS[b[i] & 0xff] & 2) != 0) {
      i++;
    }
    String name = strings.get(b, s, i);
    i = skipBlanks(i, e);
    if (i == e) {
      return seriesEntry(newEntry(s, e, hash, KIND_SERIES, name, Labels.EMPTY, null, null));
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
      if (n == limits.maxLabels()) {
        throw error("more than " + limits.maxLabels() + " labels on '" + name + "' (limit maxLabels)");
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
    Entry entry = newEntry(s, e, hash, KIND_SERIES, name, labels, null, null);
    entry.hasLabels = true;
    return seriesEntry(entry);
  }

  /**
   * Fills in what a series entry means to a histogram or summary, once per cached key: the
   * suffix of its name, its {@code le} or {@code quantile} parsed, its labels without it.
   */
  private Entry seriesEntry(Entry entry) {
    String name = entry.name;
    byte suffix = SUFFIX_NONE;
    for (int k = 0; k < SUFFIXES.length; k++) {
      if (name.endsWith(SUFFIXES[k])) {
        suffix = (byte) (k + 1);
        break;
      }
    }
    entry.suffix = suffix;
    if (suffix != SUFFIX_NONE) {
      // The key starts with the name, which has no escapes: its bytes less the suffix's.
      entry.text = strings.get(entry.key, 0, name.length() - SUFFIXES[suffix - 1].length());
    }
    Labels labels = entry.labels;
    Labels group = labels;
    String le = suffix == SUFFIX_BUCKET ? labels.get("le") : null;
    if (le != null) {
      entry.boundLabel = BOUND_LE;
      entry.bound = Bounds.parse(le);
      // The buckets of one histogram come one after another: share the previous one's group.
      Entry p = prev;
      if (p.kind == KIND_SERIES && p.boundLabel == BOUND_LE && p.name == name
          && sameExceptLe(p.labels, labels)) {
        entry.group = p.group;
        return entry;
      }
      group = labels.without("le");
    } else if (suffix != SUFFIX_SUM && suffix != SUFFIX_COUNT && suffix != SUFFIX_CREATED) {
      String q = labels.get("quantile");
      if (q != null) {
        entry.boundLabel = BOUND_QUANTILE;
        entry.bound = Bounds.parse(q);
        group = labels.without("quantile");
      }
    }
    entry.group = tables.labels(group);
    return entry;
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

  // ---------------------------------------------------------------- families

  /** The family a sample named {@code name} belongs to, created when there is none. */
  private FamilyBuilder familyOf(Entry e) throws ExpositionFormatException {
    String name = e.name;
    if (name == lastSampleName) {
      return lastFamily;
    }
    FamilyBuilder f = current;
    if (f == null || !fits(f, e)) {
      f = byName.get(name);
      if (f != null && !fitsSuffix(f.type, "")) {
        throw error("sample '" + name + "' has no suffix, which a " + typeName(f.type) + " needs");
      }
      if (f == null) {
        f = familyBySuffix(name);
      }
      if (f == null) {
        f = newFamily(name);
      }
    }
    lastSampleName = name;
    lastFamily = f;
    current = f;
    return f;
  }

  private static final String[] SUFFIXES = {
    "_total", "_created", "_bucket", "_sum", "_count", "_info", "_gsum", "_gcount"
  };

  private FamilyBuilder familyBySuffix(String name) {
    for (String suffix : SUFFIXES) {
      if (name.endsWith(suffix)) {
        FamilyBuilder f = byName.get(name.substring(0, name.length() - suffix.length()));
        if (f != null && fitsSuffix(f.type, suffix)) {
          return f;
        }
      }
    }
    return null;
  }

  /**
   * {@link #fits(FamilyBuilder, String)}, first by identity: family and sample names come from
   * one string table, so a sample of the family usually has the family's name as its {@link
   * Entry#text} (or its name), and its suffix is known.
   */
  private static boolean fits(FamilyBuilder f, Entry e) {
    if (f.name == e.text) {
      return fitsSuffix(f.type, SUFFIXES[e.suffix - 1]);
    }
    if (f.name == e.name) {
      return fitsSuffix(f.type, "");
    }
    return fits(f, e.name);
  }

  private static boolean fits(FamilyBuilder f, String name) {
    String base = f.name;
    if (!name.startsWith(base)) {
      return false;
    }
    int n = base.length();
    if (name.length() == n) {
      return fitsSuffix(f.type, "");
    }
    for (String suffix : SUFFIXES) {
      if (name.length() == n + suffix.length() && name.startsWith(suffix, n)) {
        return fitsSuffix(f.type, suffix);
      }
    }
    return false;
  }

  private static boolean fitsSuffix(MetricType type, String suffix) {
    switch (type) {
      case COUNTER:
        return suffix.isEmpty() || suffix.equals("_total") || suffix.equals("_created");
      case HISTOGRAM:
        return suffix.equals("_bucket")
            || suffix.equals("_sum")
            || suffix.equals("_count")
            || suffix.equals("_created");
      case GAUGE_HISTOGRAM:
        return suffix.equals("_bucket") || suffix.equals("_gsum") || suffix.equals("_gcount");
      case SUMMARY:
        return suffix.isEmpty()
            || suffix.equals("_sum")
            || suffix.equals("_count")
            || suffix.equals("_created");
      case INFO:
        return suffix.isEmpty() || suffix.equals("_info");
      default:
        return suffix.isEmpty();
    }
  }

  private FamilyBuilder declare(String name) {
    FamilyBuilder f = byName.get(name);
    if (f == null) {
      f = newFamily(name);
    }
    current = f;
    return f;
  }

  private FamilyBuilder newFamily(String name) {
    int k = order.size();
    FamilyBuilder f;
    if (k < pool.size()) {
      f = pool.get(k);
    } else {
      f = new FamilyBuilder();
      if (pool.size() < MAX_POOLED_FAMILIES) {
        pool.add(f);
      }
    }
    f.name = name;
    f.type = MetricType.UNTYPED;
    f.typeDeclared = false;
    f.help = null;
    f.unit = null;
    order.add(f);
    byName.put(name, f);
    return f;
  }

  private Exposition build() {
    MetricFamily[] built = new MetricFamily[order.size()];
    for (int k = 0, n = order.size(); k < n; k++) {
      FamilyBuilder f = order.get(k);
      List<Histogram> histograms = List.of();
      List<Summary> summaries = List.of();
      if (f.size > 0) {
        switch (f.type) {
          case HISTOGRAM:
          case GAUGE_HISTOGRAM:
            histograms = histograms(f, f.type == MetricType.GAUGE_HISTOGRAM);
            break;
          case SUMMARY:
            summaries = summaries(f);
            break;
          case UNTYPED:
            if (f.name.endsWith("_bucket") && hasBucketBounds(f)) {
              histograms = fragment(f);
            }
            break;
          default:
            break;
        }
      }
      built[k] = new MetricFamily(f.name, f.type, f.help, f.unit, f.samplesList(), histograms, summaries);
    }
    return new Exposition(FrozenList.wrap(built));
  }

  /** Groups a histogram family's samples into one {@link Histogram} per label set. */
  private List<Histogram> histograms(FamilyBuilder f, boolean gauge) {
    Entry[] entries = f.entries;
    double[] values = f.values;
    for (int i = 0, n = f.size; i < n; i++) {
      Entry e = entries[i];
      double v = values[i];
      switch (e.suffix) {
        case SUFFIX_BUCKET:
          // PromQL skips a bucket without le or whose le does not parse (BadBucketLabel).
          double bound = e.bound;
          if (e.boundLabel == BOUND_LE && bound == bound) {
            // Buckets of one series come together, with one interned label set.
            GroupBuilder g = f.lastGroup;
            if (g == null || g.labels != e.group) {
              g = f.group(e.group, e);
            }
            g.add(bound, v);
          }
          break;
        case SUFFIX_SUM:
        case SUFFIX_GSUM:
          if ((e.suffix == SUFFIX_GSUM) == gauge) {
            f.group(e.group, e).sum = v;
          }
          break;
        case SUFFIX_COUNT:
        case SUFFIX_GCOUNT:
          if ((e.suffix == SUFFIX_GCOUNT) == gauge) {
            f.group(e.group, e).count = v;
          }
          break;
        case SUFFIX_CREATED:
          f.group(e.group, e).created = v;
          break;
        default:
          break;
      }
    }
    return emitHistograms(f);
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

  /** An immutable list of these values, without copying the array for one or two. */
  private static <T> List<T> listOf(T[] a) {
    switch (a.length) {
      case 1:
        return List.of(a[0]);
      case 2:
        return List.of(a[0], a[1]);
      default:
        return List.of(a);
    }
  }

  private static boolean hasBucketBounds(FamilyBuilder f) {
    for (int i = 0; i < f.size; i++) {
      if (f.entries[i].boundLabel == BOUND_LE) {
        return true;
      }
    }
    return false;
  }

  /**
   * An undeclared {@code x_bucket} family (an excerpt without TYPE lines): its buckets, with the
   * {@code _sum} and {@code _count} of the undeclared {@code x_sum} and {@code x_count}.
   */
  private List<Histogram> fragment(FamilyBuilder f) {
    Entry[] entries = f.entries;
    for (int i = 0, n = f.size; i < n; i++) {
      Entry e = entries[i];
      if (e.boundLabel == BOUND_LE && !Double.isNaN(e.bound)) {
        f.group(e.group, e).add(e.bound, f.values[i]);
      }
    }
    String base = f.name.substring(0, f.name.length() - "_bucket".length());
    FamilyBuilder sums = byName.get(base + "_sum");
    if (sums != null && sums.type == MetricType.UNTYPED) {
      for (int i = 0; i < sums.size; i++) {
        f.group(sums.entries[i].group, sums.entries[i]).sum = sums.values[i];
      }
    }
    FamilyBuilder counts = byName.get(base + "_count");
    if (counts != null && counts.type == MetricType.UNTYPED) {
      for (int i = 0; i < counts.size; i++) {
        f.group(counts.entries[i].group, counts.entries[i]).count = counts.values[i];
      }
    }
    return emitHistograms(f);
  }

  private List<Histogram> emitHistograms(FamilyBuilder f) {
    if (f.groupCount == 0) {
      return List.of();
    }
    Histogram[] out = new Histogram[f.groupCount];
    for (int i = 0; i < f.groupCount; i++) {
      GroupBuilder g = f.groups.get(i);
      g.sort();
      out[i] = new Histogram(g.labels, g.boundsCopy(tables), g.valuesCopy(), g.sum, g.count, g.created);
    }
    return listOf(out);
  }

  /** Groups a summary family's samples into one {@link Summary} per label set. */
  private List<Summary> summaries(FamilyBuilder f) {
    Entry[] entries = f.entries;
    double[] values = f.values;
    for (int i = 0, n = f.size; i < n; i++) {
      Entry e = entries[i];
      double v = values[i];
      if (e.name.length() == f.name.length()) {
        if (e.boundLabel == BOUND_QUANTILE && !Double.isNaN(e.bound)) {
          f.group(e.group, e).add(e.bound, v);
        }
      } else if (e.suffix == SUFFIX_SUM) {
        f.group(e.group, e).sum = v;
      } else if (e.suffix == SUFFIX_COUNT) {
        f.group(e.group, e).count = v;
      } else if (e.suffix == SUFFIX_CREATED) {
        f.group(e.group, e).created = v;
      }
    }
    if (f.groupCount == 0) {
      return List.of();
    }
    Summary[] out = new Summary[f.groupCount];
    for (int i = 0; i < f.groupCount; i++) {
      GroupBuilder g = f.groups.get(i);
      g.sort();
      out[i] = new Summary(g.labels, g.boundsCopy(tables), g.valuesCopy(), g.sum, g.count, g.created);
    }
    return listOf(out);
  }

  private void reset() {
    for (FamilyBuilder f : order) {
      f.clear();
    }
    order.clear();
    byName.clear();
    b = null;
    line = 0;
    sampleCount = 0;
    sawIntegerTimestamp = false;
    current = null;
    lastSampleName = null;
    lastFamily = null;
    prev = head;
  }

  // ---------------------------------------------------------------- cache

  private boolean matches(byte[] key, int s) {
    int n = key.length;
    return n <= end - s && Arrays.equals(key, 0, n, b, s, s + n);
  }

  /** Records that {@code e} came after the previous line, for the next parse's prediction. */
  private void follow(Entry e) {
    if (prev.next != e) {
      prev.next = e;
    }
    prev = e;
  }

  private Entry lookup(int s, int e, int hash) {
    int n = e - s;
    for (Entry x = table[hash & (table.length - 1)]; x != null; x = x.chain) {
      if (x.hash == hash && x.key.length == n && Arrays.equals(x.key, 0, n, b, s, e)) {
        return x;
      }
    }
    return null;
  }

  private Entry newEntry(
      int s, int e, int hash, byte kind, String name, Labels labels, String text, MetricType type) {
    return new Entry(tables.keys.get(b, s, e), hash, kind, name, labels, text, type);
  }

  private void insert(Entry e) {
    if (cacheSize >= maxCacheEntries || cacheBytes + e.key.length > maxCacheBytes) {
      clearCache();
    }
    if (cacheSize >= table.length * 3 / 4) {
      grow();
    }
    int i = e.hash & (table.length - 1);
    e.chain = table[i];
    table[i] = e;
    cacheSize++;
    cacheBytes += e.key.length;
  }

  private void grow() {
    Entry[] old = table;
    Entry[] t = new Entry[old.length * 2];
    for (Entry x : old) {
      while (x != null) {
        Entry nextInChain = x.chain;
        int i = x.hash & (t.length - 1);
        x.chain = t[i];
        t[i] = x;
        x = nextInChain;
      }
    }
    table = t;
  }

  private void clearCache() {
    // Back to the initial size: a burst of series should not pin a large table for good.
    table = new Entry[INITIAL_TABLE_SIZE];
    cacheSize = 0;
    cacheBytes = 0;
    // The tables are bounded on their own: strings are interned before their line is known to be
    // valid, so a server whose scrapes keep failing could fill them without adding entries.
    // Drop the chain of predictions too, so the old generation can be collected.
    head.next = null;
    prev = head;
  }

  /** Number of cached entries, for tests. */
  int cacheSize() {
    return cacheSize;
  }

  /** Number of interned strings, for tests. */
  int stringCount() {
    return strings.size();
  }

  /** The tables this parser uses, for tests. */
  ParserTables tables() {
    return tables;
  }

  // ---------------------------------------------------------------- helpers

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * A hash of {@code b[s, e)}, eight bytes per step. The seed is random per parser, so a hostile
   * server cannot precompute keys that collide into one long chain.
   */
  static int hash(byte[] b, int s, int e, long seed) {
    long h = seed ^ (e - s);
    int i = s;
    for (; i + 8 <= e; i += 8) {
      h = (h ^ (long) LONGS.get(b, i)) * 0x9E3779B97F4A7C15L;
      h ^= h >>> 29;
    }
    for (; i < e; i++) {
      h = (h ^ b[i]) * 0x100000001B3L;
    }
    h ^= h >>> 32;
    h *= 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  private void checkLineLength(int lineStart, int lineEnd) throws ExpositionFormatException {
    if (lineEnd - lineStart > maxLineLength) {
      throw error(
          "line longer than " + maxLineLength + " bytes (limit maxLineLength)");
    }
  }

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

  private ExpositionFormatException error(String reason) {
    return new ExpositionFormatException(line, reason);
  }

  private static boolean endsWithEof(byte[] b, int start, int stop) {
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

  /**
   * A cached line: the bytes of a series key (metric name and label set) or of a whole comment
   * line, with what they parse to. {@code next} remembers which entry followed this one in the
   * last parse, which is usually what follows it in the next one.
   */
  static final class Entry {
    final byte[] key;
    final int hash;
    final byte kind;
    final String name;
    final Labels labels;
    /**
     * For a HELP or UNIT line: its text. For a series with a suffix: its name without it, from
     * the string table, to find its family by identity (one field for both keeps an entry at 64
     * bytes).
     */
    String text;
    final MetricType type;
    boolean hasLabels;
    /** For a series: the suffix its name ends with ({@code SUFFIX_*}). */
    byte suffix;
    /** For a series: which label {@link #bound} was read from ({@code BOUND_*}). */
    byte boundLabel;
    /** For a series: its {@code le} or {@code quantile} parsed once, NaN when it does not parse. */
    double bound = Double.NaN;
    /**
     * For a series: its labels without the bound label, interned so that the buckets of one
     * histogram share one instance, which is also the instance of its {@code _sum} and {@code
     * _count}.
     */
    Labels group;
    /** For the first sample of a histogram or summary series: its bounds in the last parse. */
    double[] lastBounds;
    Entry next;
    Entry chain;

    Entry(byte[] key, int hash, byte kind, String name, Labels labels, String text, MetricType type) {
      this.key = key;
      this.hash = hash;
      this.kind = kind;
      this.name = name;
      this.labels = labels;
      this.text = text;
      this.type = type;
    }
  }

  /** A family being assembled; reused from parse to parse. */
  static final class FamilyBuilder {
    String name;
    MetricType type;
    boolean typeDeclared;
    String help;
    String unit;
    /**
     * The samples of this parse, the first {@link #size}: the cache entry (name and labels), the
     * value and the timestamp of each. The {@link Sample}s are made when the family is built, so
     * that these long-lived arrays never point to young objects.
     */
    Entry[] entries = new Entry[8];
    double[] values = new double[8];
    long[] timestamps = new long[8];
    int size;
    /** Histogram or summary series being grouped, reused; the first {@link #groupCount} are live. */
    final ArrayList<GroupBuilder> groups = new ArrayList<>();
    int groupCount;
    GroupBuilder lastGroup;
    /** Groups by labels, once a family has more than {@link #LINEAR_GROUPS} of them. */
    HashMap<Labels, GroupBuilder> groupIndex;

    static final int LINEAR_GROUPS = 8;

    void add(Entry entry, double value, long timestamp) {
      int n = size;
      if (n == entries.length) {
        entries = Arrays.copyOf(entries, n * 2);
        values = Arrays.copyOf(values, n * 2);
        timestamps = Arrays.copyOf(timestamps, n * 2);
      }
      entries[n] = entry;
      values[n] = value;
      timestamps[n] = timestamp;
      size = n + 1;
    }

    /** The samples as an immutable list of their own. */
    List<Sample> samplesList() {
      int n = size;
      if (n == 0) {
        return List.of();
      }
      Sample[] out = new Sample[n];
      for (int i = 0; i < n; i++) {
        Entry e = entries[i];
        out[i] = new Sample(e.name, e.labels, values[i], timestamps[i]);
      }
      return n == 1 ? List.of(out[0]) : FrozenList.wrap(out);
    }

    void clear() {
      // Let go of the entries of a cache since emptied.
      Arrays.fill(entries, 0, size, null);
      size = 0;
      groupCount = 0;
      lastGroup = null;
      groupIndex = null;
    }

    /** The series of {@code labels}, started by {@code owner} when new. */
    GroupBuilder group(Labels labels, Entry owner) {
      GroupBuilder g = lastGroup;
      if (g != null && g.labels.equals(labels)) {
        return g;
      }
      g = null;
      if (groupIndex != null) {
        g = groupIndex.get(labels);
      } else {
        for (int i = 0; i < groupCount; i++) {
          GroupBuilder c = groups.get(i);
          if (c.labels.equals(labels)) {
            g = c;
            break;
          }
        }
      }
      if (g == null) {
        if (groupCount < groups.size()) {
          g = groups.get(groupCount);
        } else {
          g = new GroupBuilder();
          groups.add(g);
        }
        groupCount++;
        g.start(labels, owner);
        if (groupIndex != null) {
          groupIndex.put(labels, g);
        } else if (groupCount > LINEAR_GROUPS) {
          groupIndex = new HashMap<>();
          for (int i = 0; i < groupCount; i++) {
            groupIndex.put(groups.get(i).labels, groups.get(i));
          }
        }
      }
      lastGroup = g;
      return g;
    }
  }

  /** One histogram or summary series being assembled; reused from parse to parse. */
  static final class GroupBuilder {
    Labels labels;
    double[] bounds = new double[16];
    double[] values = new double[16];
    int n;
    double sum;
    double count;
    double created;
    /** The cache entry of the series' first sample, which keeps its bounds array. */
    Entry owner;

    void start(Labels labels, Entry owner) {
      this.labels = labels;
      this.owner = owner;
      n = 0;
      sum = Double.NaN;
      count = Double.NaN;
      created = Double.NaN;
    }

    void add(double bound, double value) {
      if (n == bounds.length) {
        bounds = Arrays.copyOf(bounds, n * 2);
        values = Arrays.copyOf(values, n * 2);
      }
      bounds[n] = bound;
      values[n++] = value;
    }

    /** Sorts by bound, keeping equal bounds in the order written; usually already sorted. */
    void sort() {
      for (int i = 1; i < n; i++) {
        double b = bounds[i];
        double v = values[i];
        int j = i - 1;
        while (j >= 0 && bounds[j] > b) {
          bounds[j + 1] = bounds[j];
          values[j + 1] = values[j];
          j--;
        }
        bounds[j + 1] = b;
        values[j + 1] = v;
      }
    }

    /**
     * The sorted bounds as a shared, never modified array: the one this series had last time
     * when they are equal, else the tables' (what other servers with these bounds have).
     */
    double[] boundsCopy(ParserTables tables) {
      double[] last = owner.lastBounds;
      if (last != null && last.length == n && Arrays.equals(last, 0, n, bounds, 0, n)) {
        return last;
      }
      last = tables.bounds(bounds, n);
      owner.lastBounds = last;
      return last;
    }

    double[] valuesCopy() {
      return n == 0 ? NO_DOUBLES : Arrays.copyOf(values, n);
    }
  }
}
