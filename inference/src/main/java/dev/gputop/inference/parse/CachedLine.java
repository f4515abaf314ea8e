package dev.gputop.inference.parse;

/**
 * A line the parser has seen, as the {@link LineCache} keeps it: the bytes of a series key (metric
 * name and label set) or of a whole comment line, with what they parse to, so that the same bytes
 * in a later scrape are not parsed again. {@link #next} remembers which line followed this one in
 * the last parse, which is usually what follows it in the next one. Made by the {@link
 * LineScanner}, which fills in the series fields once; read by the {@link FamilyAssembler}.
 */
final class CachedLine {

  static final byte KIND_SERIES = 0;
  static final byte KIND_HELP = 1;
  static final byte KIND_TYPE = 2;
  static final byte KIND_UNIT = 3;
  static final byte KIND_COMMENT = 4;
  static final byte KIND_EOF = 5;

  /** The suffixes a sample name may add to its family's name; {@code SUFFIX_x} is index + 1. */
  static final String[] SUFFIXES = {
    "_total", "_created", "_bucket", "_sum", "_count", "_info", "_gsum", "_gcount"
  };

  static final byte SUFFIX_NONE = 0;
  static final byte SUFFIX_TOTAL = 1;
  static final byte SUFFIX_CREATED = 2;
  static final byte SUFFIX_BUCKET = 3;
  static final byte SUFFIX_SUM = 4;
  static final byte SUFFIX_COUNT = 5;
  static final byte SUFFIX_INFO = 6;
  static final byte SUFFIX_GSUM = 7;
  static final byte SUFFIX_GCOUNT = 8;

  static final byte BOUND_NONE = 0;
  static final byte BOUND_LE = 1;
  static final byte BOUND_QUANTILE = 2;

  final byte[] key;
  final int hash;
  final byte kind;
  final String name;
  final Labels labels;
  /**
   * For a HELP or UNIT line: its text. For a series with a suffix: its name without it, from the
   * string table, to find its family by identity (one field for both keeps a line at 64 bytes).
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
  /** The line that followed this one in the last parse. */
  CachedLine next;
  /** The next line in the same bucket of the {@link LineCache}'s hash table. */
  CachedLine chain;

  CachedLine(
      byte[] key, int hash, byte kind, String name, Labels labels, String text, MetricType type) {
    this.key = key;
    this.hash = hash;
    this.kind = kind;
    this.name = name;
    this.labels = labels;
    this.text = text;
    this.type = type;
  }
}
