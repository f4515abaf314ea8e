package dev.gputop.agent.top;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;

/**
 * An {@code /api/history} document as {@code top} reads it: a server's series of the last ten
 * minutes, or (without {@code ?server=}) the index, of which top reads the interval. Components
 * are named as the document names its fields; read leniently like {@link SnapshotView}: a point
 * that is null or not a number is null (not drawn). Immutable.
 *
 * @param times each point's time, epoch milliseconds, oldest first (null for one that is not a number)
 * @param spanSeconds how far back the history goes, or null
 * @param intervalSeconds the agent's refresh interval, or null
 * @param series the server's values, each list parallel to {@code times}
 */
public record HistoryView(List<Long> times, Long spanSeconds, Double intervalSeconds, Series series) {

  /** No points. */
  public static final HistoryView EMPTY = new HistoryView(null, null, null, null);

  public HistoryView {
    times = Lenient.values(times);
    series = Lenient.orEmpty(series, Series.EMPTY);
  }

  /** The document as the agent serves it. @throws IOException when it is not JSON */
  public static HistoryView parse(byte[] json) throws IOException {
    return Lenient.orEmpty(Lenient.read(json, HistoryView.class), EMPTY);
  }

  /** The document as the local history makes it (a tree, not yet written). */
  public static HistoryView of(JsonNode document) {
    return Lenient.orEmpty(Lenient.read(document, HistoryView.class), EMPTY);
  }

  /** The series top draws; a missing one is empty. */
  public record Series(List<Double> ttftP50, List<Double> ttftP99, List<Double> requestsPerSecond,
      List<Double> generationTokensPerSecond, List<Double> kvCacheUsage) {
    static final Series EMPTY = new Series(null, null, null, null, null);

    public Series {
      ttftP50 = Lenient.values(ttftP50);
      ttftP99 = Lenient.values(ttftP99);
      requestsPerSecond = Lenient.values(requestsPerSecond);
      generationTokensPerSecond = Lenient.values(generationTokensPerSecond);
      kvCacheUsage = Lenient.values(kvCacheUsage);
    }
  }
}
