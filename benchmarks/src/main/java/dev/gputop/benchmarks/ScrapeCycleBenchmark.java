package dev.gputop.benchmarks;

import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.export.HistogramExports;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.WindowStatistics;
import dev.gputop.inference.window.ServerWindow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One server's share of a refresh, without the network: parse the exposition (with the server's
 * reused parser), map it to concepts, add it to a full one-minute window of 3-second scrapes, and
 * compute every windowed statistic. The window is kept full (the same body is added 3 s later
 * each time), which is the steady state and the most expensive case.
 *
 * <p>Run from the repository root (see docs/PERFORMANCE.md, "Scrape cycle"):
 * {@code java -jar benchmarks/target/benchmarks.jar ScrapeCycleBenchmark -p file=PATH}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ScrapeCycleBenchmark {

  /** Any exposition file, relative to the working directory. */
  @Param("inference/src/test/resources/fixtures/vllm/vllm-v1-dp2.prom")
  public String file;

  private byte[] body;
  private ExpositionParser parser;
  private EngineMapper mapper;
  private ServerWindow window;
  private long nanos;

  @Setup
  public void setUp() throws Exception {
    body = Files.readAllBytes(Path.of(file));
    parser = new ExpositionParser(ParserLimits.defaults());
    mapper = new EngineMapper();
    window = new ServerWindow(Duration.ofMinutes(1), 44);
    for (int i = 0; i < 25; i++) {
      cycle();
    }
  }

  /** Parse, map, window update, statistics. */
  @Benchmark
  public ServerStats cycle() throws Exception {
    Exposition e = parser.parse(body, 0, body.length);
    ServerScrape s = mapper.map(e);
    nanos += 3_000_000_000L;
    window.add(nanos, nanos, s);
    return WindowStatistics.compute(window, null);
  }

  /** The cycle plus the re-exported histograms the receiver builds from the newest scrape. */
  @Benchmark
  public Object cycleWithHistogramExport() throws Exception {
    ServerStats stats = cycle();
    return HistogramExports.of("bench", "vllm", window).size() + (stats == null ? 0 : 1);
  }

  /** Only the statistics over the full window (no parse). */
  @Benchmark
  public ServerStats statistics() {
    return WindowStatistics.compute(window, null);
  }

  /** Parse and map to concepts, without the window and statistics. */
  @Benchmark
  public ServerScrape parseAndMap() throws Exception {
    return mapper.map(parser.parse(body, 0, body.length));
  }
}
