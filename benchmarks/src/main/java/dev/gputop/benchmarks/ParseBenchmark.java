package dev.gputop.benchmarks;

import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionFormatException;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.parse.ParserTables;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput of {@link ExpositionParser} on one exposition file.
 *
 * <ul>
 *   <li>{@code parse}: steady state, one parser reused scrape after scrape for the same server,
 *       as the agent does (its cache of series keys is warm);
 *   <li>{@code parseCold}: a new parser for every parse, the first scrape of a server;
 *   <li>{@code parseColdShared}: the same with the {@link ParserTables} of a receiver that has
 *       already read this exposition from another server: the first scrape of a fleet's next
 *       server.
 * </ul>
 *
 * <p>Each reports its throughput in ops/s and, through the {@code inputBytes} counter, in bytes
 * of input per second (divide by 10^6 for MB/s). With {@code -prof gc}, {@code
 * gc.alloc.rate.norm} is the allocation per parse; divided by the file size it gives bytes
 * allocated per input byte.
 *
 * <pre>
 * ./mvnw -B -q package -pl benchmarks -am -DskipTests
 * java -jar benchmarks/target/benchmarks.jar ParseBenchmark -f 1 -wi 3 -i 5 -prof gc
 * java -jar benchmarks/target/benchmarks.jar ParseBenchmark -p file=/path/to/metrics.prom
 * </pre>
 *
 * <p>On a busy machine, add {@code -prof dev.gputop.benchmarks.CpuTimeProfiler}: it reports input
 * bytes per CPU second ({@code cpu.inputBytes}) and the share of a core the benchmark got.
 *
 * <p>{@code file} is a path, or {@code classpath:} and a resource in this jar; the default is
 * the project's 66 KB vLLM V1 data-parallel-2 exposition (inference test fixtures, copied in at
 * build time).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ParseBenchmark {

  /** The exposition to parse: a file path, or {@code classpath:resource}. */
  @Param("classpath:fixtures/vllm/vllm-v1-dp2.prom")
  public String file;

  private byte[] body;
  private ExpositionParser parser;
  private ParserTables tables;

  /** Bytes of input parsed, reported per second next to the operations. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class InputBytes {
    public long inputBytes;

    @Setup(Level.Iteration)
    public void reset() {
      inputBytes = 0;
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws ExpositionFormatException {
    body = read(file);
    System.setProperty(CpuTimeProfiler.BYTES_PER_OP, Integer.toString(body.length));
    parser = new ExpositionParser(ParserLimits.defaults());
    tables = new ParserTables();
    new ExpositionParser(ParserLimits.defaults(), tables).parse(body, 0, body.length);
    // Fail now, not in the measurement, if the file does not parse.
    Exposition e = parser.parse(body, 0, body.length);
    System.out.printf(
        "%n%s: %,d bytes, %d families, %d samples%n",
        file, body.length, e.families().size(), e.sampleCount());
  }

  @Benchmark
  public Exposition parse(InputBytes counter) throws ExpositionFormatException {
    counter.inputBytes += body.length;
    return parser.parse(body, 0, body.length);
  }

  @Benchmark
  public Exposition parseCold(InputBytes counter) throws ExpositionFormatException {
    counter.inputBytes += body.length;
    return new ExpositionParser(ParserLimits.defaults()).parse(body, 0, body.length);
  }

  @Benchmark
  public Exposition parseColdShared(InputBytes counter) throws ExpositionFormatException {
    counter.inputBytes += body.length;
    return new ExpositionParser(ParserLimits.defaults(), tables).parse(body, 0, body.length);
  }

  static byte[] read(String location) {
    try {
      if (location.startsWith("classpath:")) {
        String resource = location.substring("classpath:".length());
        try (InputStream in = ParseBenchmark.class.getClassLoader().getResourceAsStream(resource)) {
          if (in == null) {
            throw new IllegalArgumentException("no resource " + resource + " in the benchmark jar");
          }
          return in.readAllBytes();
        }
      }
      return Files.readAllBytes(Path.of(location));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
