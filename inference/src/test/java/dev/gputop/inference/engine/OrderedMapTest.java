package dev.gputop.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The compact map of a concept's series: order, lookups small and large, immutability. */
class OrderedMapTest {

  private static Map<String, Integer> numbers(int n) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (int i = n - 1; i >= 0; i--) {
      m.put("k" + i, i);
    }
    return m;
  }

  @Test
  void copyOf_keepsInsertionOrderAndEqualsTheSource() {
    for (int n : new int[] {1, 3, 8, 9, 40}) {
      Map<String, Integer> source = numbers(n);
      Map<String, Integer> copy = OrderedMap.copyOf(source);
      assertThat(copy).isEqualTo(source).hasSameHashCodeAs(source);
      assertThat(List.copyOf(copy.keySet())).isEqualTo(List.copyOf(source.keySet()));
      assertThat(List.copyOf(copy.values())).isEqualTo(List.copyOf(source.values()));
      for (int i = 0; i < n; i++) {
        assertThat(copy.get(new String("k" + i))).isEqualTo(i);
      }
      assertThat(copy.get("k" + n)).isNull();
      assertThat(copy.containsKey(null)).isFalse();
    }
  }

  @Test
  void ofDistinct_takesTheArraysInOrderAndRefusesEqualKeys() {
    for (int n : new int[] {1, 3, 8, 9, 40}) {
      Object[] keys = new Object[n];
      Object[] values = new Object[n];
      for (int i = 0; i < n; i++) {
        keys[i] = "k" + i;
        values[i] = i;
      }
      Map<String, Integer> m = OrderedMap.ofDistinct(keys, values);
      assertThat(m.values()).containsExactly(java.util.Arrays.copyOf(values, n, Integer[].class));
      assertThat(m.keySet()).containsExactly(java.util.Arrays.copyOf(keys, n, String[].class));
      assertThat(m.get(new String("k" + (n - 1)))).isEqualTo(n - 1);
      if (n > 1) {
        // An equal key (another String object) anywhere: null, so the caller applies put's rule.
        Object[] twice = keys.clone();
        twice[n - 1] = new String("k0");
        assertThat(OrderedMap.<String, Integer>ofDistinct(twice, values)).isNull();
      }
    }
  }

  @Test
  void copyOf_emptyIsOneSharedInstanceAndACopyIsNotCopiedAgain() {
    assertThat(OrderedMap.copyOf(Map.of())).isSameAs(OrderedMap.copyOf(new LinkedHashMap<>()));
    Map<String, Integer> copy = OrderedMap.copyOf(numbers(3));
    assertThat(OrderedMap.copyOf(copy)).isSameAs(copy);
  }

  @Test
  void copyOf_isUnmodifiable() {
    Map<String, Integer> copy = OrderedMap.copyOf(numbers(3));
    assertThatThrownBy(() -> copy.put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> copy.values().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
