package dev.gputop.inference.parse;

import static dev.gputop.inference.parse.CachedLine.KIND_EOF;
import static dev.gputop.inference.parse.CachedLine.KIND_SERIES;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

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
 * <p>This class drives a parse, line by line; three parts do the work: a {@link LineScanner}
 * reads the bytes (keys, values, timestamps, the errors with their line numbers), a {@link
 * LineCache} is the intern table of lines seen with their predictions, and a {@link
 * FamilyAssembler} groups the lines into families and builds the result. The parser walks the
 * chain of predictions, and reads the usual line, a predicted key then a blank, a number and a
 * newline, here, in one method.
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

  private final int maxSeries;
  private final int maxLineLength;
  /** Strings, label sets, key bytes and scratch space, maybe shared with other parsers. */
  private final ParserTables tables;
  private final LineScanner scanner;
  private final LineCache cache;
  private final FamilyAssembler assembler;
  // State of one parse. The body and the walk through the chain of predictions are this class's
  // fields rather than the scanner's and the cache's: read from here, one object fewer stands
  // between the line loop and each line's first test (docs/PERFORMANCE.md, 2026-12-02: with the
  // value read below, the split parser is back at the speed of the single class).
  private int sampleCount;
  /** The body being parsed, which the scanner also reads. */
  private byte[] b;
  private int end;
  /** The line before the one being parsed: the line whose successor this parse records. */
  private CachedLine prev;
  /**
   * The line predicted next, {@code prev.next}, read as soon as {@code prev} is known, so that
   * the load, often a cache miss, overlaps the rest of the previous line.
   */
  private CachedLine predicted;
  /** The exponent that {@link #exponent} read last. */
  private int exponentValue;

  /** A parser that enforces these limits, with tables of its own. */
  public ExpositionParser(ParserLimits limits) {
    this(limits, new ParserTables());
  }

  /**
   * A parser that enforces these limits and shares {@code tables} with the other parsers of its
   * receiver: they must parse one at a time (see {@link ParserTables}).
   */
  public ExpositionParser(ParserLimits limits, ParserTables tables) {
    this(limits, tables, LineCache.DEFAULT_MAX_ENTRIES, LineCache.DEFAULT_MAX_BYTES);
  }

  /** A parser with a smaller or larger cache and tables of its own as small, for tests. */
  ExpositionParser(ParserLimits limits, int maxCacheEntries, long maxCacheBytes) {
    this(limits, new ParserTables(maxCacheEntries, maxCacheBytes), maxCacheEntries, maxCacheBytes);
  }

  private ExpositionParser(
      ParserLimits limits, ParserTables tables, int maxCacheEntries, long maxCacheBytes) {
    Objects.requireNonNull(limits, "limits");
    this.maxSeries = limits.maxSeries();
    this.maxLineLength = limits.maxLineLength();
    this.tables = Objects.requireNonNull(tables, "tables");
    this.cache = new LineCache(maxCacheEntries, maxCacheBytes);
    this.scanner = new LineScanner(limits, tables);
    this.assembler = new FamilyAssembler(tables, scanner);
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
      int stop = offset + length;
      return parseRange(body, offset, stop, LineScanner.endsWithEof(body, offset, stop));
    } catch (RuntimeException e) {
      // A bug, not bad input: keep the promise that only format errors escape, and start afresh.
      cache.clear();
      ExpositionFormatException f =
          new ExpositionFormatException(scanner.line, "internal parser error: " + e);
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
    scanner.start(body, stop, om);
    b = body;
    end = stop;
    LineScanner scanner = this.scanner;
    int p = start;
    while (p < stop) {
      scanner.line++;
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
          if (!om && scanner.sawIntegerTimestamp) {
            // Integer timestamps were read as milliseconds before "# EOF" said OpenMetrics.
            return parseRange(body, start, eofAt, true);
          }
          break;
        }
      } else {
        p = sample(lineStart, p);
      }
    }
    return assembler.build();
  }

  /** Handles the comment line whose '#' is at {@code s}; the index after it, or -1 at EOF. */
  private int comment(int lineStart, int s) throws ExpositionFormatException {
    LineScanner scanner = this.scanner;
    CachedLine e = predicted;
    int contentEnd = e != null && e.kind != KIND_SERIES ? scanner.predictedCommentEnd(e.key, s) : -1;
    if (contentEnd < 0) {
      contentEnd = scanner.contentEnd(s);
      scanner.checkLineLength(lineStart, contentEnd);
      byte[] b = this.b;
      int hash = cache.hash(b, s, contentEnd);
      e = cache.lookup(b, s, contentEnd, hash);
      if (e == null) {
        e = scanner.parseComment(s, contentEnd, hash);
        if (e.kind == KIND_EOF) {
          return -1;
        }
        insert(e);
      }
    } else {
      scanner.checkLineLength(lineStart, contentEnd);
    }
    follow(e);
    assembler.comment(e);
    return scanner.nextLine(contentEnd);
  }

  /** Handles the sample line starting at {@code s}; the index after it. */
  private int sample(int lineStart, int s) throws ExpositionFormatException {
    // Fields in locals, for the client compiler, which reloads them.
    LineScanner scanner = this.scanner;
    byte[] b = this.b;
    CachedLine e = predicted;
    int keyEnd = -1;
    byte[] key;
    // The predicted key compared here rather than in a scanner method, which the client compiler
    // would not inline: this is the test every sample line of a steady-state parse passes.
    if (e != null && e.kind == KIND_SERIES && (key = e.key).length <= end - s
        && Arrays.equals(key, 0, key.length, b, s, s + key.length)) {
      keyEnd = s + key.length;
      // A bare name must not go on, nor be followed by a label set.
      if (!e.hasLabels && !scanner.endsBareName(keyEnd)) {
        keyEnd = -1;
      }
    }
    if (keyEnd < 0) {
      keyEnd = scanner.scanKey(s);
      scanner.checkLineLength(lineStart, keyEnd);
      int hash = cache.hash(b, s, keyEnd);
      e = cache.lookup(b, s, keyEnd, hash);
      if (e == null) {
        e = scanner.parseSeries(s, keyEnd, hash, prev);
        insert(e);
      }
    }
    follow(e);
    if (++sampleCount > maxSeries) {
      throw scanner.error("more than " + maxSeries + " samples (limit maxSeries)");
    }
    // The usual rest of a line, a blank, a number and a newline, is read here, in the pass that
    // finds the value's end: in this method rather than the scanner's so that the compiler keeps
    // the whole usual line in one compiled unit (docs/PERFORMANCE.md: a call here cost 3-4 % of a
    // steady-state parse, and one for the 12 % of vLLM's values that have an exponent or 16-17
    // digits about 5 %). The number digits[.digits][e[+-]digits] is read in one pass; when its
    // digits make at most 2^53 and its power of ten is within 10^22, both are exact in a double,
    // so one multiplication or division rounds correctly (Clinger's fast path), as
    // FastDoubleParser would; a longer number is given to FastDoubleParser, having been checked
    // here to be one. Any other rest of a line (a sign, a special, a timestamp, an exemplar, CR
    // LF, an error) is the scanner's (valueAndRest).
    int end = this.end;
    int i = keyEnd;
    if (i < end && b[i] == ' ') {
      do {
        i++;
      } while (i < end && b[i] == ' ');
      int valueStart = i;
      long m = 0;
      int d;
      while (i < end && (d = b[i] - '0') >= 0 && d <= 9) {
        m = m * 10 + d;
        i++;
      }
      int digits = i - valueStart;
      int power = 0;
      if (digits > 0 && i < end && b[i] == '.') {
        int f = ++i;
        while (i < end && (d = b[i] - '0') >= 0 && d <= 9) {
          m = m * 10 + d;
          i++;
        }
        power = f - i;
        digits -= power;
      }
      if (digits > 0 && i < end && (b[i] | 0x20) == 'e') {
        i = exponent(b, i + 1, end);
        power += exponentValue;
      }
      if (digits > 0 && i >= 0 && i < end && b[i] == '\n' && i - lineStart <= maxLineLength) {
        double v;
        if (digits <= 16 && m <= FastDoubleParser.MAX_EXACT && power >= -22 && power <= 22) {
          v = power < 0 ? m / FastDoubleParser.POW10[-power] : m * FastDoubleParser.POW10[power];
        } else {
          v = FastDoubleParser.parse(b, valueStart, i);
        }
        assembler.familyOf(e).add(e, v, Sample.NO_TIMESTAMP);
        return i + 1;
      }
    }
    int next = scanner.valueAndRest(lineStart, s, keyEnd, e);
    assembler.familyOf(e).add(e, scanner.value, scanner.timestamp);
    return next;
  }

  /**
   * Reads the exponent {@code [+-]digits} from {@code i}, after the 'e', into {@link
   * #exponentValue}; the index after it, or -1 when there is none (no digits) for valueAndRest to
   * reject. A longer exponent stops growing past 10,000: it only has to fall outside the fast path.
   */
  private int exponent(byte[] b, int i, int end) {
    boolean negative = false;
    if (i < end && (b[i] == '-' || b[i] == '+')) {
      negative = b[i] == '-';
      i++;
    }
    int start = i;
    int x = 0;
    int d;
    while (i < end && (d = b[i] - '0') >= 0 && d <= 9) {
      if (x < 10_000) {
        x = x * 10 + d;
      }
      i++;
    }
    if (i == start) {
      return -1;
    }
    exponentValue = negative ? -x : x;
    return i;
  }

  /** Records that {@code e} came after the previous line, for the next parse, and steps on. */
  private void follow(CachedLine e) {
    if (prev.next != e) {
      prev.next = e;
    }
    moveTo(e);
  }

  private void moveTo(CachedLine line) {
    prev = line;
    predicted = line.next;
  }

  /** Caches a new line; when that empties the cache, the walk starts again from its head. */
  private void insert(CachedLine e) {
    if (cache.insert(e)) {
      moveTo(cache.head());
    }
  }

  private void reset() {
    assembler.reset();
    scanner.reset();
    moveTo(cache.head());
    b = null;
    sampleCount = 0;
  }

  /** Number of cached lines, for tests. */
  int cacheSize() {
    return cache.size();
  }

  /** Number of interned strings, for tests. */
  int stringCount() {
    return tables.strings.size();
  }

  /** The tables this parser uses, for tests. */
  ParserTables tables() {
    return tables;
  }
}
