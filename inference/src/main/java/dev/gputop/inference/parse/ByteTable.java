package dev.gputop.inference.parse;

/**
 * Interns byte sequences: {@link #get} returns one shared array per distinct content, so the
 * series keys that many servers write alike are stored once ({@link ParserTables}). The returned
 * array is the table's key: never modify it. Bounded and not thread-safe, as {@link InternTable}.
 */
final class ByteTable extends InternTable<byte[]> {

  ByteTable(long hashSeed, int maxSize, long maxBytes) {
    super(hashSeed, maxSize, maxBytes);
  }

  @Override
  byte[] create(byte[] b, int s, int e, byte[] key) {
    return key;
  }
}
