package dev.gputop.inference.window;

import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.engine.SeriesKey;
import dev.gputop.inference.engine.Source;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The series of one counter or histogram concept that have a sample in a server's window, in the
 * order they first appeared (within a scrape, the order of the exposition), so that sums over
 * series add in a steady order. Read-only outside this package.
 */
public final class ConceptColumns {

  /** From this many series on, keys are found through a hash index instead of a scan. */
  private static final int INDEX_FROM = 24;

  private final Concept concept;
  private final List<SeriesColumn> columns = new ArrayList<>();
  private Map<SeriesKey, SeriesColumn> index;
  /** The source of the newest scrape that had the concept. */
  private Source source;
  private boolean inNewest;

  ConceptColumns(Concept concept) {
    this.concept = concept;
  }

  public Concept concept() {
    return concept;
  }

  /** How many series have a sample in the window. */
  public int size() {
    return columns.size();
  }

  /** The {@code i}-th series. */
  public SeriesColumn get(int i) {
    return columns.get(i);
  }

  /** Whether the newest scrape had this concept. */
  public boolean inNewest() {
    return inNewest;
  }

  Source source() {
    return source;
  }

  void newest(Source source, boolean present) {
    if (present) {
      this.source = source;
    }
    this.inNewest = present;
  }

  /**
   * The index of {@code key}'s column, or −1. {@code hint} is where it is expected (series come
   * in the same order scrape after scrape): checked first, by identity, then by equality.
   */
  int find(SeriesKey key, int hint) {
    if (hint < columns.size()) {
      SeriesKey k = columns.get(hint).key();
      if (k == key || k.equals(key)) {
        return hint;
      }
    }
    if (index != null) {
      SeriesColumn c = index.get(key);
      return c == null ? -1 : columns.indexOf(c);
    }
    for (int i = 0, n = columns.size(); i < n; i++) {
      if (columns.get(i).key().equals(key)) {
        return i;
      }
    }
    return -1;
  }

  /** Appends a column; returns its index. */
  int add(SeriesColumn column) {
    columns.add(column);
    if (index != null) {
      index.put(column.key(), column);
    } else if (columns.size() >= INDEX_FROM) {
      index = new HashMap<>();
      for (SeriesColumn c : columns) {
        index.put(c.key(), c);
      }
    }
    return columns.size() - 1;
  }

  /** Puts {@code now} in place of the column at {@code i} (same key, another bucket layout). */
  void replace(int i, SeriesColumn now) {
    columns.set(i, now);
    if (index != null) {
      index.put(now.key(), now);
    }
  }

  /** Forgets the slot's samples and the series left without any; returns whether any is left. */
  boolean clear(int slot) {
    boolean removed = false;
    for (int i = columns.size() - 1; i >= 0; i--) {
      if (!columns.get(i).clear(slot)) {
        SeriesColumn gone = columns.remove(i);
        if (index != null) {
          index.remove(gone.key());
        }
        removed = true;
      }
    }
    if (removed && index != null && columns.size() < INDEX_FROM / 2) {
      index = null;
    }
    return !columns.isEmpty();
  }

  void relayout(int head, int capacity) {
    for (SeriesColumn c : columns) {
      c.relayout(head, capacity);
    }
  }
}
