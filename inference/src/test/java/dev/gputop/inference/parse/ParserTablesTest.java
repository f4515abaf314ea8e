package dev.gputop.inference.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ParserTablesTest {

  private static final Path VLLM_DP2 = Path.of("src/test/resources/fixtures/vllm/vllm-v1-dp2.prom");

  @Test
  void parse_serversSharingTablesShareLabelsBoundsAndKeys() throws Exception {
    byte[] body = Files.readAllBytes(VLLM_DP2);
    ParserTables tables = new ParserTables();
    ExpositionParser a = new ExpositionParser(ParserLimits.defaults(), tables);
    ExpositionParser b = new ExpositionParser(ParserLimits.defaults(), tables);
    Exposition ea = a.parse(body, 0, body.length);
    int[] afterOne = tables.sizes();
    Exposition eb = b.parse(body, 0, body.length);
    // The second server adds nothing to the tables: every string, key, label set is shared.
    assertThat(tables.sizes()).containsExactly(afterOne);
    assertThat(afterOne[1]).as("keys").isEqualTo(a.cacheSize());

    MetricFamily fa = ea.family("vllm:time_to_first_token_seconds");
    MetricFamily fb = eb.family("vllm:time_to_first_token_seconds");
    assertThat(fb.samples().get(0).labels()).isSameAs(fa.samples().get(0).labels());
    assertThat(fb.histograms().get(0).labels()).isSameAs(fa.histograms().get(0).labels());
    assertThat(fb.histograms().get(0).bounds()).isSameAs(fa.histograms().get(0).bounds());
    assertThat(eb).isEqualTo(ea);
    assertThat(eb).isEqualTo(new ExpositionParser(ParserLimits.defaults()).parse(body, 0, body.length));
  }

  @Test
  void parse_serversSharingTablesReadTheirOwnBodies() throws Exception {
    ParserTables tables = new ParserTables();
    ExpositionParser a = new ExpositionParser(ParserLimits.defaults(), tables);
    ExpositionParser b = new ExpositionParser(ParserLimits.defaults(), tables);
    String textA = "# TYPE h histogram\nh_bucket{m=\"a\",le=\"1\"} 1\nh_bucket{m=\"a\",le=\"+Inf\"} 2\n"
        + "h_count{m=\"a\"} 2\n";
    String textB = "# TYPE h histogram\nh_bucket{m=\"b\",le=\"1\"} 5\nh_bucket{m=\"b\",le=\"2\"} 6\n"
        + "h_bucket{m=\"b\",le=\"+Inf\"} 7\nh_count{m=\"b\"} 7\n";
    for (int round = 0; round < 3; round++) {
      Histogram ha = a.parse(textA).family("h").histograms().get(0);
      Histogram hb = b.parse(textB).family("h").histograms().get(0);
      assertThat(ha.labels()).isEqualTo(Labels.of("m", "a"));
      assertThat(ha.bounds()).containsExactly(1.0, Double.POSITIVE_INFINITY);
      assertThat(ha.cumulative()).containsExactly(1.0, 2.0);
      assertThat(ha.count()).isEqualTo(2.0);
      assertThat(hb.labels()).isEqualTo(Labels.of("m", "b"));
      assertThat(hb.bounds()).containsExactly(1.0, 2.0, Double.POSITIVE_INFINITY);
      assertThat(hb.cumulative()).containsExactly(5.0, 6.0, 7.0);
    }
  }

  /** Two parsers on one set of small tables, each checked against a fresh parser, interleaved. */
  @Test
  void parse_interleavedServersAgreeWithFreshParsers() throws Exception {
    SplittableRandom random = new SplittableRandom(11);
    ParserTables tables = new ParserTables(16, 1 << 10);
    ExpositionParser[] servers = {
      new ExpositionParser(ParserLimits.defaults(), tables),
      new ExpositionParser(ParserLimits.defaults(), tables)
    };
    String[] names = {"a", "a_total", "h", "h_bucket", "h_sum", "h_count", "s", "s_sum"};
    String[] les = {"0.5", "1", "1.0", "+Inf", "x"};
    for (int round = 0; round < 300; round++) {
      StringBuilder sb = new StringBuilder();
      if (random.nextBoolean()) {
        sb.append("# TYPE h histogram\n");
      }
      if (random.nextInt(3) == 0) {
        sb.append("# TYPE s summary\n");
      }
      for (int i = 0, n = random.nextInt(1, 20); i < n; i++) {
        String name = names[random.nextInt(names.length)];
        sb.append(name).append("{m=\"").append(random.nextInt(3)).append('"');
        if (name.equals("h_bucket")) {
          sb.append(",le=\"").append(les[random.nextInt(les.length)]).append('"');
        } else if (name.equals("s")) {
          sb.append(",quantile=\"0.").append(random.nextInt(10)).append('"');
        }
        sb.append("} ").append(random.nextInt(100)).append('\n');
      }
      String text = sb.toString();
      String fresh;
      try {
        fresh = new ExpositionParser(ParserLimits.defaults()).parse(text).toString();
      } catch (ExpositionFormatException e) {
        fresh = e.getMessage();
      }
      String shared;
      try {
        shared = servers[random.nextInt(2)].parse(text).toString();
      } catch (ExpositionFormatException e) {
        shared = e.getMessage();
      }
      assertThat(shared).as(text).isEqualTo(fresh);
      int[] sizes = tables.sizes();
      assertThat(sizes[0]).as("strings").isLessThanOrEqualTo(4 * 16);
      assertThat(sizes[1]).as("keys").isLessThanOrEqualTo(16);
      assertThat(sizes[2]).as("label sets").isLessThanOrEqualTo(16);
      assertThat(sizes[3]).as("bounds arrays").isLessThanOrEqualTo(16);
    }
  }

  @Test
  void parse_tablesInUseByAnotherParseAreRefused() throws Exception {
    ParserTables tables = new ParserTables();
    ExpositionParser parser = new ExpositionParser(ParserLimits.defaults(), tables);
    tables.acquire();
    assertThatThrownBy(() -> parser.parse("a 1\n"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("one at a time");
    tables.release();
    assertThat(parser.parse("a 1\n").family("a").samples().get(0).value()).isEqualTo(1.0);
  }

  @Test
  void parse_tablesAreReleasedAfterAFailedParse() throws Exception {
    ExpositionParser parser = new ExpositionParser(ParserLimits.defaults(), new ParserTables());
    assertThatThrownBy(() -> parser.parse("a{x=1} 1\n")).isInstanceOf(ExpositionFormatException.class);
    assertThat(parser.parse("a 2\n").family("a").samples().get(0).value()).isEqualTo(2.0);
  }

  @Test
  void parse_keepsNothingOfTheBody() throws Exception {
    ExpositionParser parser = new ExpositionParser(ParserLimits.defaults(), new ParserTables());
    byte[] body = Files.readAllBytes(VLLM_DP2);
    parser.parse(body, 0, body.length);
    WeakReference<byte[]> ref = new WeakReference<>(body);
    body = null;
    for (int i = 0; i < 20 && ref.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }
    assertThat(ref.get()).as("the body after the parse").isNull();
    // The parser still knows the server: the next body is read from its cache.
    byte[] next = Files.readAllBytes(VLLM_DP2);
    int before = parser.cacheSize();
    assertThat(parser.parse(next, 0, next.length).sampleCount()).isEqualTo(622);
    assertThat(parser.cacheSize()).isEqualTo(before);
  }
}
