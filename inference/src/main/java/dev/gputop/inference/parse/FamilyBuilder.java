package dev.gputop.inference.parse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * A family being assembled by the {@link FamilyAssembler}; reused from parse to parse, from the
 * pool in the {@link ParserTables}.
 */
final class FamilyBuilder {
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
  CachedLine[] entries = new CachedLine[8];
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

  void add(CachedLine entry, double value, long timestamp) {
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
      CachedLine e = entries[i];
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
  GroupBuilder group(Labels labels, CachedLine owner) {
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
