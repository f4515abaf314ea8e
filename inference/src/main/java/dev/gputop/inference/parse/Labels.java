package dev.gputop.inference.parse;

import java.util.Arrays;
import java.util.Objects;

/**
 * An immutable set of label name/value pairs, sorted by name, as on one exposition sample.
 * Equality and hash code are by content, so Labels work as map keys. Thread-safe.
 */
public final class Labels {

  public static final Labels EMPTY = new Labels(new String[0], new String[0]);

  private final String[] names;
  private final String[] values;
  private final int hash;

  private Labels(String[] names, String[] values) {
    this.names = names;
    this.values = values;
    this.hash = 31 * Arrays.hashCode(names) + Arrays.hashCode(values);
  }

  /** Labels from alternating names and values: {@code of("model_name", "m", "engine", "0")}. */
  public static Labels of(String... namesAndValues) {
    if (namesAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("names and values must alternate");
    }
    int n = namesAndValues.length / 2;
    String[] names = new String[n];
    String[] values = new String[n];
    for (int i = 0; i < n; i++) {
      names[i] = Objects.requireNonNull(namesAndValues[2 * i], "label name");
      values[i] = Objects.requireNonNull(namesAndValues[2 * i + 1], "label value");
    }
    return fromArrays(names, values);
  }

  /**
   * Labels from parallel arrays, which this method owns afterwards (they are sorted in place).
   * Duplicate names are rejected.
   */
  public static Labels fromArrays(String[] names, String[] values) {
    if (names.length != values.length) {
      throw new IllegalArgumentException("names and values differ in length");
    }
    if (names.length == 0) {
      return EMPTY;
    }
    // Insertion sort: label sets are small and usually already sorted.
    for (int i = 1; i < names.length; i++) {
      String n = names[i];
      String v = values[i];
      int j = i - 1;
      while (j >= 0 && names[j].compareTo(n) > 0) {
        names[j + 1] = names[j];
        values[j + 1] = values[j];
        j--;
      }
      names[j + 1] = n;
      values[j + 1] = v;
    }
    for (int i = 1; i < names.length; i++) {
      if (names[i].equals(names[i - 1])) {
        throw new IllegalArgumentException("duplicate label name '" + names[i] + "'");
      }
    }
    return new Labels(names, values);
  }

  public int size() {
    return names.length;
  }

  public String name(int i) {
    return names[i];
  }

  public String value(int i) {
    return values[i];
  }

  /** The value of a label, or null when absent. */
  public String get(String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return values[i];
      }
    }
    return null;
  }

  /** These labels without the named ones (e.g. without {@code le} to group buckets). */
  public Labels without(String... drop) {
    int keep = 0;
    boolean[] dropped = new boolean[names.length];
    for (int i = 0; i < names.length; i++) {
      for (String d : drop) {
        if (names[i].equals(d)) {
          dropped[i] = true;
          break;
        }
      }
      if (!dropped[i]) {
        keep++;
      }
    }
    if (keep == names.length) {
      return this;
    }
    String[] n = new String[keep];
    String[] v = new String[keep];
    for (int i = 0, j = 0; i < names.length; i++) {
      if (!dropped[i]) {
        n[j] = names[i];
        v[j++] = values[i];
      }
    }
    return keep == 0 ? EMPTY : new Labels(n, v);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Labels)) {
      return false;
    }
    Labels other = (Labels) o;
    return hash == other.hash && Arrays.equals(names, other.names) && Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < names.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(names[i]).append("=\"").append(values[i]).append('"');
    }
    return sb.append('}').toString();
  }
}
