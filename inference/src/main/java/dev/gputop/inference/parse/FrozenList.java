package dev.gputop.inference.parse;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;

/**
 * An immutable list over an array that nothing else holds, so that the parser hands out its
 * samples and families with one copy instead of the two that {@link List#copyOf} of an {@code
 * ArrayList} makes. The records of this package keep it as it is ({@link #frozen}); any other
 * list they are given is copied. Equality, hash code and string form are those of every {@link
 * List}; every mutator throws {@link UnsupportedOperationException}.
 */
final class FrozenList<T> extends AbstractList<T> implements RandomAccess {

  private final Object[] elements;

  private FrozenList(Object[] elements) {
    this.elements = elements;
  }

  /** The first {@code n} elements of {@code a}, copied; none may be null. */
  static <T> List<T> of(T[] a, int n) {
    return new FrozenList<>(Arrays.copyOf(a, n, Object[].class));
  }

  /** A list over {@code a}, which the caller gives up: nobody may write to it afterwards. */
  static <T> List<T> wrap(T[] a) {
    return new FrozenList<>(a);
  }

  /** {@code list} itself when it is already frozen, else an immutable copy. */
  static <T> List<T> frozen(List<T> list) {
    return list instanceof FrozenList ? list : List.copyOf(list);
  }

  @Override
  @SuppressWarnings("unchecked")
  public T get(int index) {
    return (T) elements[index];
  }

  @Override
  public int size() {
    return elements.length;
  }
}
