package dev.gputop.inference.engine;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An immutable map that keeps its entries in the order they were given, in two arrays. It holds
 * the series of one concept in one scrape, and a server's window keeps twenty or more scrapes of
 * every concept: a {@code LinkedHashMap} behind an unmodifiable view costs about 240 bytes for
 * two series, this about 70, and nothing when empty. Lookups scan up to {@value #SCAN} keys
 * (comparing identity first: a window shares key objects from one scrape to the next) and use an
 * open-addressing index beyond. Iteration order is insertion order, like the {@code
 * LinkedHashMap} it replaces, so sums over series add in the same order.
 */
final class OrderedMap<K, V> extends AbstractMap<K, V> {

  private static final int SCAN = 8;
  private static final OrderedMap<?, ?> EMPTY = new OrderedMap<>(new Object[0], new Object[0]);

  private final Object[] keys;
  private final Object[] values;
  /** Slot i holds index+1 of a key, 0 when free; null while the map is small enough to scan. */
  private final int[] index;
  private Collection<V> valuesView;

  private OrderedMap(Object[] keys, Object[] values) {
    this.keys = keys;
    this.values = values;
    this.index = keys.length > SCAN ? buildIndex(keys) : null;
  }

  /** An immutable copy of {@code map} in its iteration order; the same object when it is one. */
  @SuppressWarnings("unchecked")
  static <K, V> Map<K, V> copyOf(Map<? extends K, ? extends V> map) {
    if (map instanceof OrderedMap) {
      return (Map<K, V>) map;
    }
    int n = map.size();
    if (n == 0) {
      return (Map<K, V>) EMPTY;
    }
    Object[] k = new Object[n];
    Object[] v = new Object[n];
    int i = 0;
    for (Map.Entry<? extends K, ? extends V> e : map.entrySet()) {
      k[i] = java.util.Objects.requireNonNull(e.getKey(), "key");
      v[i++] = java.util.Objects.requireNonNull(e.getValue(), "value");
    }
    return new OrderedMap<>(k, v);
  }

  /**
   * A map of these keys and values in this order, taking the arrays (not copied: the caller
   * gives them up); null when two keys are equal, so that the caller can apply {@code put}'s
   * rule (the last value wins, in the first key's place).
   */
  static <K, V> Map<K, V> ofDistinct(Object[] keys, Object[] values) {
    if (keys.length == 0) {
      @SuppressWarnings("unchecked")
      Map<K, V> empty = (Map<K, V>) EMPTY;
      return empty;
    }
    for (Object k : keys) {
      java.util.Objects.requireNonNull(k, "key");
    }
    for (Object v : values) {
      java.util.Objects.requireNonNull(v, "value");
    }
    OrderedMap<K, V> m = new OrderedMap<>(keys, values);
    if (m.index == null) {
      for (int i = 1; i < keys.length; i++) {
        for (int j = 0; j < i; j++) {
          if (keys[j].equals(keys[i])) {
            return null;
          }
        }
      }
    } else {
      for (int i = 0; i < keys.length; i++) {
        if (m.find(keys[i]) != i) {
          return null;
        }
      }
    }
    return m;
  }

  private static int[] buildIndex(Object[] keys) {
    int[] slots = new int[Integer.highestOneBit(keys.length * 2 - 1) << 1];
    int mask = slots.length - 1;
    for (int i = 0; i < keys.length; i++) {
      int s = spread(keys[i].hashCode()) & mask;
      while (slots[s] != 0) {
        s = (s + 1) & mask;
      }
      slots[s] = i + 1;
    }
    return slots;
  }

  private static int spread(int h) {
    return h ^ (h >>> 16);
  }

  private int find(Object key) {
    if (key == null) {
      return -1;
    }
    if (index == null) {
      for (int i = 0; i < keys.length; i++) {
        if (keys[i] == key) {
          return i;
        }
      }
      for (int i = 0; i < keys.length; i++) {
        if (keys[i].equals(key)) {
          return i;
        }
      }
      return -1;
    }
    int mask = index.length - 1;
    for (int s = spread(key.hashCode()) & mask; index[s] != 0; s = (s + 1) & mask) {
      Object k = keys[index[s] - 1];
      if (k == key || k.equals(key)) {
        return index[s] - 1;
      }
    }
    return -1;
  }

  /** The value at {@code i} in insertion order. */
  @SuppressWarnings("unchecked")
  V valueAt(int i) {
    return (V) values[i];
  }

  @Override
  public int size() {
    return keys.length;
  }

  @Override
  public boolean isEmpty() {
    return keys.length == 0;
  }

  @Override
  public boolean containsKey(Object key) {
    return find(key) >= 0;
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(Object key) {
    int i = find(key);
    return i < 0 ? null : (V) values[i];
  }

  @Override
  public Collection<V> values() {
    Collection<V> v = valuesView;
    if (v == null) {
      v = new AbstractCollection<>() {
        @Override
        public Iterator<V> iterator() {
          return new Cursor<>(values);
        }

        @Override
        public int size() {
          return values.length;
        }
      };
      valuesView = v;
    }
    return v;
  }

  @Override
  public Set<K> keySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<K> iterator() {
        return new Cursor<>(keys);
      }

      @Override
      public int size() {
        return keys.length;
      }

      @Override
      public boolean contains(Object o) {
        return containsKey(o);
      }
    };
  }

  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<K, V>> iterator() {
        return new Iterator<>() {
          private int i;

          @Override
          public boolean hasNext() {
            return i < keys.length;
          }

          @Override
          @SuppressWarnings("unchecked")
          public Map.Entry<K, V> next() {
            if (i >= keys.length) {
              throw new NoSuchElementException();
            }
            int at = i++;
            return new AbstractMap.SimpleImmutableEntry<>((K) keys[at], (V) values[at]);
          }
        };
      }

      @Override
      public int size() {
        return keys.length;
      }
    };
  }

  /** Iterates one of the arrays; read-only. */
  private static final class Cursor<T> implements Iterator<T> {
    private final Object[] items;
    private int i;

    Cursor(Object[] items) {
      this.items = items;
    }

    @Override
    public boolean hasNext() {
      return i < items.length;
    }

    @Override
    @SuppressWarnings("unchecked")
    public T next() {
      if (i >= items.length) {
        throw new NoSuchElementException();
      }
      return (T) items[i++];
    }
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("{");
    for (int i = 0; i < keys.length; i++) {
      b.append(i == 0 ? "" : ", ").append(keys[i]).append('=').append(values[i]);
    }
    return b.append('}').toString();
  }
}
