package dev.gputop.inference.parse;

import java.util.Arrays;

/**
 * Interns byte sequences: {@link #get} returns one shared array per distinct content, so the
 * series keys that many servers write alike are stored once ({@link ParserTables}). Open
 * addressing over parallel arrays; emptied when it would exceed its bounds. Not thread-safe.
 */
final class ByteTable {

  private static final int INITIAL_CAPACITY = 256;

  private final long hashSeed;
  private final int maxSize;
  private final long maxBytes;
  private byte[][] keys = new byte[INITIAL_CAPACITY][];
  private int[] hashes = new int[INITIAL_CAPACITY];
  private int size;
  private long bytes;

  ByteTable(long hashSeed, int maxSize, long maxBytes) {
    this.hashSeed = hashSeed;
    this.maxSize = maxSize;
    this.maxBytes = maxBytes;
  }

  /** The shared array holding {@code b[s, e)}; never modify it. */
  byte[] get(byte[] b, int s, int e) {
    int n = e - s;
    int hash = ExpositionParser.hash(b, s, e, hashSeed);
    int mask = keys.length - 1;
    for (int i = hash & mask; ; i = (i + 1) & mask) {
      byte[] k = keys[i];
      if (k == null) {
        if (size > 0 && (size >= maxSize || bytes + n > maxBytes)) {
          clear();
          return get(b, s, e);
        }
        byte[] copy = Arrays.copyOfRange(b, s, e);
        keys[i] = copy;
        hashes[i] = hash;
        bytes += n;
        if (++size > keys.length / 2) {
          grow();
        }
        return copy;
      }
      if (hashes[i] == hash && k.length == n && Arrays.equals(k, 0, n, b, s, e)) {
        return k;
      }
    }
  }

  int size() {
    return size;
  }

  void clear() {
    keys = new byte[INITIAL_CAPACITY][];
    hashes = new int[INITIAL_CAPACITY];
    size = 0;
    bytes = 0;
  }

  private void grow() {
    byte[][] oldKeys = keys;
    int[] oldHashes = hashes;
    int capacity = oldKeys.length * 2;
    keys = new byte[capacity][];
    hashes = new int[capacity];
    int mask = capacity - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldKeys[j] != null) {
        int i = oldHashes[j] & mask;
        while (keys[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        hashes[i] = oldHashes[j];
      }
    }
  }
}
