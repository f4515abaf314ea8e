package dev.gputop.inference.scrape;

import dev.gputop.config.Endpoint;
import dev.gputop.receiver.Clock;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The scraper's own telemetry, through the OpenTelemetry API only: per scrape, its duration,
 * body size and outcome as metrics (docs/metrics.md, "Scrapes"), and a trace per scrape cycle
 * with a child span per target, so a slow or failing scrape can be inspected in a trace backend.
 * Without a configured SDK every instrument is a no-op. Spans are timed on the scraper's clock,
 * since a scrape's span may be ended after its body is read, on another thread (see {@link
 * #record}). Thread-safe.
 */
final class ScrapeTelemetry {

  /** Instrumentation scope of the inference receiver. */
  static final String SCOPE = "dev.gputop.inference";

  static final String DURATION_METRIC = "gputop.scrape.duration";
  static final String SIZE_METRIC = "gputop.scrape.size";
  static final String COUNT_METRIC = "gputop.scrape.count";
  static final String CYCLE_SPAN = "scrape cycle";

  static final AttributeKey<String> SERVER = AttributeKey.stringKey("server");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");
  static final AttributeKey<Long> CYCLE_TARGETS = AttributeKey.longKey("gputop.scrape.targets");
  static final AttributeKey<Long> CYCLE_FAILURES = AttributeKey.longKey("gputop.scrape.failures");
  static final AttributeKey<Long> SCRAPE_SIZE = AttributeKey.longKey("gputop.scrape.size");

  // Copied from the OpenTelemetry semantic conventions (HTTP client spans, url, error).
  static final AttributeKey<String> URL_FULL = AttributeKey.stringKey("url.full");
  static final AttributeKey<String> HTTP_REQUEST_METHOD =
      AttributeKey.stringKey("http.request.method");
  static final AttributeKey<Long> HTTP_RESPONSE_STATUS_CODE =
      AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<Long> HTTP_RESPONSE_BODY_SIZE =
      AttributeKey.longKey("http.response.body.size");
  static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  /** Seconds: from a fast local scrape to a timeout well past the default 2s. */
  static final List<Double> DURATION_BUCKETS =
      List.of(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0);

  /** Bytes: llama.cpp (~1.5 KB) to the default body limit (16 MiB), by fours. */
  static final List<Long> SIZE_BUCKETS =
      List.of(1L << 10, 1L << 12, 1L << 14, 1L << 16, 1L << 18, 1L << 20, 1L << 22, 1L << 24);

  /** Query parameters whose values are never put in a span. */
  private static final List<String> SECRET_PARAMETERS =
      List.of("token", "key", "secret", "password", "passwd", "auth", "sig", "credential");

  private final DoubleHistogram duration;
  private final LongHistogram size;
  private final LongCounter count;
  private final Tracer tracer;
  private final Clock clock;

  ScrapeTelemetry(OpenTelemetry openTelemetry, Clock clock) {
    this.clock = clock;
    Meter meter = openTelemetry.getMeter(SCOPE);
    duration = meter.histogramBuilder(DURATION_METRIC)
        .setUnit("s")
        .setDescription("Duration of each scrape of an inference server's metrics endpoint.")
        .setExplicitBucketBoundariesAdvice(DURATION_BUCKETS)
        .build();
    size = meter.histogramBuilder(SIZE_METRIC)
        .ofLongs()
        .setUnit("By")
        .setDescription("Size of each successfully scraped body, after gzip decompression.")
        .setExplicitBucketBoundariesAdvice(SIZE_BUCKETS)
        .build();
    count = meter.counterBuilder(COUNT_METRIC)
        .setUnit("{scrape}")
        .setDescription("Scrapes of inference servers, by outcome.")
        .build();
    tracer = openTelemetry.getTracer(SCOPE);
  }

  /** The span of one {@code scrapeAll}; its children are the targets' spans. */
  Span startCycle(int targets) {
    return tracer.spanBuilder(CYCLE_SPAN)
        .setSpanKind(SpanKind.INTERNAL)
        .setNoParent()
        .setStartTimestamp(clock.epochNanos(), TimeUnit.NANOSECONDS)
        .setAttribute(CYCLE_TARGETS, (long) targets)
        .startSpan();
  }

  /** The span of one target's scrape, a child of the cycle. */
  Span startScrape(Span cycle, Endpoint target) {
    URI url = target.url();
    var builder = tracer.spanBuilder("scrape " + target.name())
        .setSpanKind(SpanKind.CLIENT)
        .setParent(Context.root().with(cycle))
        .setStartTimestamp(clock.epochNanos(), TimeUnit.NANOSECONDS)
        .setAttribute(SERVER, target.name())
        .setAttribute(HTTP_REQUEST_METHOD, "GET")
        .setAttribute(URL_FULL, redactedUrl(url));
    if (url.getHost() != null) {
      builder.setAttribute(SERVER_ADDRESS, url.getHost());
      int port = url.getPort() >= 0 ? url.getPort()
          : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
      builder.setAttribute(SERVER_PORT, (long) port);
    }
    return builder.startSpan();
  }

  /**
   * Records one finished scrape as metrics and ends its span at {@code endEpochNanos} (when the
   * call ended). {@code result} is the call's own, or the verdict of the caller's reading of its
   * body ({@link Scraper.BodyReader}), so a body that fails to parse counts as {@code malformed}.
   */
  void record(Span span, ScrapeCall.Completed completed, ScrapeResult result, long endEpochNanos) {
    String server = result.target().name();
    String outcome = result.outcome().attributeValue();
    Attributes withOutcome = Attributes.of(SERVER, server, OUTCOME, outcome);
    duration.record(result.durationNanos() / 1e9, withOutcome);
    count.add(1, withOutcome);
    if (result.ok()) {
      size.record(result.length(), Attributes.of(SERVER, server));
    }
    span.setAttribute(OUTCOME, outcome);
    if (completed.statusCode() > 0) {
      span.setAttribute(HTTP_RESPONSE_STATUS_CODE, (long) completed.statusCode());
    }
    if (completed.transferredBytes() > 0) {
      span.setAttribute(HTTP_RESPONSE_BODY_SIZE, completed.transferredBytes());
    }
    if (result.ok()) {
      span.setAttribute(SCRAPE_SIZE, (long) result.length());
    } else {
      span.setAttribute(ERROR_TYPE, outcome);
      span.setStatus(StatusCode.ERROR, result.error() == null ? outcome : result.error());
    }
    span.end(endEpochNanos, TimeUnit.NANOSECONDS);
  }

  /** Ends the cycle's span, marked as an error when any target failed. */
  void endCycle(Span cycle, List<ScrapeResult> results) {
    long failures = results.stream().filter(r -> !r.ok()).count();
    cycle.setAttribute(CYCLE_FAILURES, failures);
    if (failures > 0) {
      cycle.setStatus(StatusCode.ERROR, failures + " of " + results.size() + " scrapes failed");
    }
    cycle.end(clock.epochNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * The URL as the semantic conventions want it in {@code url.full}: user info replaced by
   * {@code REDACTED:REDACTED}, the values of secret-looking query parameters by {@code REDACTED},
   * no fragment.
   */
  static String redactedUrl(URI url) {
    StringBuilder out = new StringBuilder();
    if (url.getScheme() != null) {
      out.append(url.getScheme()).append("://");
    }
    if (url.getRawUserInfo() != null) {
      out.append("REDACTED:REDACTED@");
    }
    if (url.getHost() != null) {
      out.append(url.getHost());
    }
    if (url.getPort() >= 0) {
      out.append(':').append(url.getPort());
    }
    if (url.getRawPath() != null) {
      out.append(url.getRawPath());
    }
    String query = url.getRawQuery();
    if (query != null) {
      out.append('?');
      String[] parameters = query.split("&", -1);
      for (int i = 0; i < parameters.length; i++) {
        if (i > 0) {
          out.append('&');
        }
        String parameter = parameters[i];
        int eq = parameter.indexOf('=');
        String name = eq < 0 ? parameter : parameter.substring(0, eq);
        if (eq >= 0 && isSecret(name)) {
          out.append(name).append("=REDACTED");
        } else {
          out.append(parameter);
        }
      }
    }
    return out.toString();
  }

  private static boolean isSecret(String parameter) {
    String lower = parameter.toLowerCase(Locale.ROOT);
    for (String secret : SECRET_PARAMETERS) {
      if (lower.contains(secret)) {
        return true;
      }
    }
    return false;
  }
}
