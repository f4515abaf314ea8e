package dev.gputop.config.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.config.internal.YamlTree.Node;
import org.junit.jupiter.api.Test;

class YamlTreeTest {

  /** The caller's exception, as ConfigLoader and ProfileLoader make theirs. */
  static final class Bad extends RuntimeException {
    Bad(String key, int line, String reason) {
      super(key + " @" + line + ": " + reason);
    }
  }

  @Test
  void parse_nestedDocument_keepsKeysLinesAndOrder() {
    Node root = YamlTree.parse("a:\n  b: 1\n  c:\n    - x\n    - d: 2\ne: ~\n", "(root)", Bad::new);

    assertThat(root.isMap()).isTrue();
    assertThat(root.map()).containsOnlyKeys("a", "e");
    Node a = root.map().get("a");
    assertThat(a.key()).isEqualTo("a");
    assertThat(a.line()).isEqualTo(1);
    assertThat(a.map().keySet()).containsExactly("b", "c");
    Node b = a.map().get("b");
    assertThat(b.text()).isEqualTo("1");
    assertThat(b.key()).isEqualTo("a.b");
    assertThat(b.line()).isEqualTo(2);
    Node c = a.map().get("c");
    assertThat(c.isList()).isTrue();
    assertThat(c.list().get(0).key()).isEqualTo("a.c[0]");
    Node d = c.list().get(1).map().get("d");
    assertThat(d.key()).isEqualTo("a.c[1].d");
    assertThat(d.line()).isEqualTo(5);
    assertThat(root.map().get("e").value()).isNull();
  }

  @Test
  void parse_emptyDocument_isNull() {
    assertThat(YamlTree.parse("", "", Bad::new)).isNull();
  }

  @Test
  void parse_keyGivenTwice_isTheCallersErrorWithKeyAndLine() {
    assertThatThrownBy(() -> YamlTree.parse("a:\n  b: 1\n  b: 2\n", "", Bad::new))
        .isInstanceOf(Bad.class)
        .hasMessage("a.b @3: given twice");
  }

  @Test
  void parse_invalidYaml_isTheCallersSyntaxError() {
    assertThatThrownBy(() -> YamlTree.parse("a: [1, 2\nb: 3\n", "", Bad::new))
        .isInstanceOf(Bad.class)
        .hasMessageStartingWith("(syntax) @")
        .hasMessageContaining(": not valid YAML: ");
  }
}
