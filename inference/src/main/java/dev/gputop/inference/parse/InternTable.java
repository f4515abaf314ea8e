package dev.gputop.inference.parse;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A table that interns values by the bytes they were read from: {@link #get} finds the value of a
 * byte range seen before without building it again, and builds and keeps it otherwise. Open
 * addressing over parallel arrays (key bytes, value, hash), bounded in entries and key bytes and
 * emptied when a new entry would exceed either. The one mechanism behind {@link StringTable} and
 * {@link ByteTable}, which differ only in what they make of new bytes. Not thread-safe: owned by
 * one {@link ParserTables}.
 */
abstract class InternTable<V> {

  private static final int INITIAL_CAPACITY = 256;

  private final long hashSeed;
  private final int maxSize;
  private final long maxBytes;
  private byte[][] keys = new byte[INITIAL_CAPACITY][];
  private Object[] values = new Object[INITIAL_CAPACITY];
  private int[] hashes = new int[INITIAL_CAPACITY];
  private int size;
  private long bytes;

  InternTable(long hashSeed, int maxSize, long maxBytes) {
    this.hashSeed = hashSeed;
    this.maxSize = maxSize;
    this.maxBytes = maxBytes;
  }

  /**
   * The value for bytes not seen before.
   *
   * @param key the table's own copy of {@code b[s, e)}, never modified
   */
  abstract V create(byte[] b, int s, int e, byte[] key);

  /** The value of {@code b[s, e)}. */
  @SuppressWarnings("unchecked")
  final V get(byte[] b, int s, int e) {
    int n = e - s;
    int hash = hash(b, s, e, hashSeed);
    int mask = keys.length - 1;
    for (int i = hash & mask; ; i = (i + 1) & mask) {
      byte[] k = keys[i];
      if (k == null) {
        if (size > 0 && (size >= maxSize || bytes + n > maxBytes)) {
          clear();
          return get(b, s, e);
        }
        byte[] copy = Arrays.copyOfRange(b, s, e);
        V value = create(b, s, e, copy);
        keys[i] = copy;
        values[i] = value;
        hashes[i] = hash;
        bytes += n;
        if (++size > keys.length / 2) {
          grow();
        }
        return value;
      }
      if (hashes[i] == hash && k.length == n && Arrays.equals(k, 0, n, b, s, e)) {
        return (V) values[i];
      }
    }
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * A hash of {@code b[s, e)}, eight bytes per step, for these tables and the parser's {@link
   * LineCache}. Each table or cache has a random seed, so a hostile server cannot precompute keys
   * that collide into one long chain.
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

  /** Number of entries held. */
  final int size() {
    return size;
  }

  /** Bytes of the keys held. */
  final long bytes() {
    return bytes;
  }

  /** Forgets every entry and returns to the initial capacity. */
  final void clear() {
    keys = new byte[INITIAL_CAPACITY][];
    values = new Object[INITIAL_CAPACITY];
    hashes = new int[INITIAL_CAPACITY];
    size = 0;
    bytes = 0;
  }

  private void grow() {
    byte[][] oldKeys = keys;
    Object[] oldValues = values;
    int[] oldHashes = hashes;
    int capacity = oldKeys.length * 2;
    keys = new byte[capacity][];
    values = new Object[capacity];
    hashes = new int[capacity];
    int mask = capacity - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldKeys[j] != null) {
        int i = oldHashes[j] & mask;
        while (keys[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        values[i] = oldValues[j];
        hashes[i] = oldHashes[j];
      }
    }
  }
}
