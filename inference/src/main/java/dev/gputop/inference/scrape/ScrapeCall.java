package dev.gputop.inference.scrape;

import dev.gputop.config.Endpoint;
import dev.gputop.config.Clock;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.ProtocolException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * One scrape of one target, from request to {@link ScrapeResult}: sends the request, follows
 * same-host redirects, collects the body within its limits, inflates gzip, and maps every failure
 * to an outcome with a message a person can act on.
 *
 * <p>The whole call, redirects included, has one deadline. A timer completes the call with
 * {@link Outcome#TIMEOUT} when it passes and closes the connection, however the server behaves
 * (silent, or trickling one byte a second): the HTTP client's own request timeout only covers
 * the wait for response headers.
 *
 * <p>Completed exactly once, by whichever comes first: the response, a failure, the deadline or
 * {@link #abort}. Callbacks run on the HTTP client's executor and the timer thread; the fields
 * they share are volatile and the result is published through a {@link CompletableFuture}.
 */
final class ScrapeCall {

  /** What the scraper asks for: the Prometheus text format, which every engine serves. */
  static final String ACCEPT = "text/plain;version=0.0.4";

  static final String USER_AGENT = "gputop-agent";

  /** Redirects followed before giving up; a metrics path needs one at most (a trailing slash). */
  static final int MAX_REDIRECTS = 3;

  /** Bytes of an error page kept, of which {@link #SNIPPET_CHARS} are shown. */
  static final int ERROR_BODY_BYTES = 4096;

  static final int SNIPPET_CHARS = 200;

  /**
   * A finished call: the result plus what only the telemetry and the backoff need.
   *
   * @param protocolViolation the response was not valid HTTP
   */
  record Completed(
      ScrapeResult result, int statusCode, long transferredBytes, boolean protocolViolation) {}

  private final Endpoint target;
  private final ScrapeConfig config;
  private final Clock clock;
  private final long deadlineNanos;
  private volatile long startEpochNanos;
  private volatile long startNanos;
  private final CompletableFuture<Completed> completion = new CompletableFuture<>();

  private volatile HttpClient client;
  private volatile String token;
  private volatile CompletableFuture<HttpResponse<BoundedBodySubscriber.Body>> inFlight;
  private volatile BoundedBodySubscriber subscriber;
  private volatile Future<?> deadlineTask;
  private volatile URI currentUri;
  private volatile int statusCode;
  private volatile boolean protocolViolation;

  /**
   * @param deadlineNanos when the call must be finished, on the {@link System#nanoTime()} scale
   *     (the timer's scale; the clock only stamps the result)
   */
  ScrapeCall(Endpoint target, ScrapeConfig config, Clock clock, long deadlineNanos) {
    this.target = target;
    this.config = config;
    this.clock = clock;
    this.deadlineNanos = deadlineNanos;
    this.startEpochNanos = clock.epochNanos();
    this.startNanos = clock.nanoTime();
    this.currentUri = target.url();
  }

  Endpoint target() {
    return target;
  }

  /** Completes when the call is finished; never exceptionally. */
  CompletableFuture<Completed> completion() {
    return completion;
  }

  /** Starts the call; returns at once (reads the token and TLS files on the caller's thread). */
  CompletableFuture<Completed> start(HttpClients clients, ScheduledExecutorService timer) {
    // The duration measures the scrape itself, not the wait for a free slot.
    startEpochNanos = clock.epochNanos();
    startNanos = clock.nanoTime();
    try {
      // The URL is http(s) with a host: an Endpoint can't be built otherwise.
      client = clients.get(target.tls());
      if (target.bearerTokenFile() != null) {
        token = BearerTokens.read(target.bearerTokenFile());
      }
    } catch (ScrapeFailure f) {
      fail(f);
      return completion;
    }
    long delay = deadlineNanos - System.nanoTime();
    try {
      deadlineTask = timer.schedule(this::onDeadline, Math.max(delay, 0), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      abort("scraper is closed");
      return completion;
    }
    send(target.url(), 0);
    return completion;
  }

  /** Ends the call now with {@link Outcome#IO_ERROR}, if it is still running. */
  void abort(String message) {
    abort(Outcome.IO_ERROR, message);
  }

  /** Ends the call now, if it is still running (never started, or the scraper is closing). */
  void abort(Outcome outcome, String message) {
    if (finish(outcome, null, null, message)) {
      cancelInFlight();
    }
  }

  private void send(URI uri, int hop) {
    currentUri = uri;
    subscriber = null;
    statusCode = 0;
    long remaining = deadlineNanos - System.nanoTime();
    if (remaining <= 0) {
      onDeadline();
      return;
    }
    HttpRequest request;
    try {
      request = request(uri, Duration.ofNanos(remaining));
    } catch (ScrapeFailure f) {
      fail(f);
      return;
    }
    CompletableFuture<HttpResponse<BoundedBodySubscriber.Body>> future;
    try {
      future = client.sendAsync(request, this::bodySubscriber);
    } catch (RuntimeException e) {
      fail(new ScrapeFailure(Outcome.IO_ERROR,
          "cannot send the request: " + e.getClass().getSimpleName()));
      return;
    }
    inFlight = future;
    if (completion.isDone()) {
      // The deadline passed while the request was being handed over.
      future.cancel(true);
      return;
    }
    future.whenComplete((response, error) -> onResponse(uri, hop, response, error));
  }

  private HttpRequest request(URI uri, Duration timeout) throws ScrapeFailure {
    HttpRequest.Builder builder;
    try {
      builder = HttpRequest.newBuilder(uri).GET().timeout(timeout);
    } catch (IllegalArgumentException e) {
      // Not the JDK's message: it quotes the URL, whose query may hold a secret.
      throw new ScrapeFailure(Outcome.IO_ERROR, "the HTTP client rejects this URL");
    }
    builder.header("Accept", ACCEPT);
    builder.header("Accept-Encoding", "gzip");
    builder.header("User-Agent", USER_AGENT);
    for (Map.Entry<String, String> header : target.headers().entrySet()) {
      try {
        builder.setHeader(header.getKey(), header.getValue());
      } catch (IllegalArgumentException e) {
        // The JDK's message may quote the value, which may be a secret: name the header only.
        throw new ScrapeFailure(Outcome.IO_ERROR, "header '" + header.getKey()
            + "' can't be sent: its name is reserved by the HTTP client or its value is invalid");
      }
    }
    if (token != null) {
      builder.setHeader("Authorization", "Bearer " + token);
    }
    return builder.build();
  }

  /** Chooses how to read the body once the status and headers are known. */
  private HttpResponse.BodySubscriber<BoundedBodySubscriber.Body> bodySubscriber(
      HttpResponse.ResponseInfo info) {
    statusCode = info.statusCode();
    long contentLength = info.headers().firstValueAsLong("Content-Length").orElse(-1);
    BoundedBodySubscriber s;
    if (info.statusCode() / 100 != 2) {
      // Redirect or error: only the start of the page is shown.
      s = new BoundedBodySubscriber(ERROR_BODY_BYTES, true, contentLength, null);
    } else {
      String limitMessage = "body exceeds " + Formats.size(config.maxBodyBytes()) + " limit";
      s = new BoundedBodySubscriber(config.maxBodyBytes(), false, contentLength, limitMessage);
      if (contentLength > config.maxBodyBytes()) {
        s.reject(new ScrapeFailure(Outcome.TOO_LARGE,
            limitMessage + " (Content-Length " + contentLength + ")"));
      }
    }
    subscriber = s;
    if (completion.isDone()) {
      s.cancel();
    }
    return s;
  }

  private void onResponse(URI uri, int hop,
      HttpResponse<BoundedBodySubscriber.Body> response, Throwable error) {
    if (completion.isDone()) {
      return;
    }
    if (error != null) {
      fail(classify(error, uri, config.timeout(), target.tls().certFile() != null));
      return;
    }
    try {
      int status = response.statusCode();
      if (isRedirect(status)) {
        send(redirectTarget(uri, hop, response), hop + 1);
        return;
      }
      BoundedBodySubscriber.Body body = response.body();
      String encoding = response.headers().firstValue("Content-Encoding").orElse("")
          .trim().toLowerCase(Locale.ROOT);
      if (status / 100 != 2) {
        if (isGzip(encoding)) {
          body = GzipDecoder.decode(body.bytes(), body.length(), ERROR_BODY_BYTES, true);
        }
        String snippet = Formats.snippet(body.bytes(), body.length(), SNIPPET_CHARS);
        String reason = Formats.reason(status);
        throw new ScrapeFailure(Outcome.HTTP_ERROR, "HTTP " + status
            + (reason.isEmpty() ? "" : " " + reason) + " from " + Formats.hostPort(uri)
            + (snippet.isEmpty() ? "" : ": " + snippet));
      }
      if (isGzip(encoding)) {
        body = GzipDecoder.decode(body.bytes(), body.length(), config.maxBodyBytes(), false);
      } else if (!encoding.isEmpty() && !encoding.equals("identity")) {
        throw new ScrapeFailure(Outcome.IO_ERROR,
            "unsupported Content-Encoding '" + encoding + "' (only gzip was accepted)");
      }
      String contentType = response.headers().firstValue("Content-Type").orElse(null);
      finish(Outcome.SUCCESS, body, contentType, null);
    } catch (ScrapeFailure f) {
      fail(f);
    } catch (RuntimeException e) {
      fail(new ScrapeFailure(Outcome.IO_ERROR, "unexpected error: " + e));
    }
  }

  private URI redirectTarget(URI from, int hop, HttpResponse<?> response) throws ScrapeFailure {
    int status = response.statusCode();
    Optional<String> location = response.headers().firstValue("Location");
    if (location.isEmpty() || location.get().isBlank()) {
      throw new ScrapeFailure(Outcome.HTTP_ERROR,
          "HTTP " + status + " from " + Formats.hostPort(from) + " without a Location header");
    }
    URI to;
    try {
      to = from.resolve(location.get().trim());
    } catch (IllegalArgumentException e) {
      throw new ScrapeFailure(Outcome.HTTP_ERROR,
          "HTTP " + status + " from " + Formats.hostPort(from) + " with an invalid Location");
    }
    String fromScheme = from.getScheme().toLowerCase(Locale.ROOT);
    String toScheme = to.getScheme() == null ? "" : to.getScheme().toLowerCase(Locale.ROOT);
    if (!toScheme.equals("http") && !toScheme.equals("https")) {
      throw new ScrapeFailure(Outcome.REDIRECT_REJECTED,
          "redirect to unsupported scheme '" + toScheme + "' rejected");
    }
    if (to.getHost() == null || !to.getHost().equalsIgnoreCase(from.getHost())) {
      throw new ScrapeFailure(Outcome.REDIRECT_REJECTED,
          "redirect to other host " + to.getHost() + " rejected");
    }
    if (fromScheme.equals("https") && toScheme.equals("http")) {
      throw new ScrapeFailure(Outcome.REDIRECT_REJECTED, "redirect from https to http rejected");
    }
    if (hop >= MAX_REDIRECTS) {
      throw new ScrapeFailure(Outcome.REDIRECT_REJECTED,
          "more than " + MAX_REDIRECTS + " redirects rejected");
    }
    return to;
  }

  private void onDeadline() {
    String timeout = Formats.duration(config.timeout());
    URI uri = currentUri;
    BoundedBodySubscriber s = subscriber;
    String message = s == null
        ? "timed out after " + timeout + " waiting for a response from " + Formats.hostPort(uri)
        : "timed out after " + timeout + " reading the body from " + Formats.hostPort(uri)
            + " (" + Formats.size(s.received()) + " received)";
    if (finish(Outcome.TIMEOUT, null, null, message)) {
      cancelInFlight();
    }
  }

  private void cancelInFlight() {
    BoundedBodySubscriber s = subscriber;
    if (s != null) {
      s.cancel();
    }
    CompletableFuture<?> f = inFlight;
    if (f != null) {
      f.cancel(true);
    }
  }

  private void fail(ScrapeFailure f) {
    protocolViolation = f.protocolViolation();
    finish(f.outcome(), null, null, f.getMessage());
  }

  private boolean finish(Outcome outcome, BoundedBodySubscriber.Body body, String contentType,
      String error) {
    if (completion.isDone()) {
      return false;
    }
    Future<?> task = deadlineTask;
    long duration = clock.nanoTime() - startNanos;
    BoundedBodySubscriber s = subscriber;
    ScrapeResult result = new ScrapeResult(target, outcome,
        body == null ? null : body.bytes(), body == null ? 0 : body.length(), contentType,
        startEpochNanos, startNanos, duration, error);
    boolean won = completion.complete(
        new Completed(result, statusCode, s == null ? 0 : s.received(), protocolViolation));
    if (won && task != null) {
      task.cancel(false);
    }
    return won;
  }

  /** Maps what the HTTP client threw to an outcome and a message naming the host. */
  static ScrapeFailure classify(Throwable error, URI uri, Duration timeout,
      boolean clientCertificate) {
    String host = Formats.hostPort(uri);
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof ScrapeFailure) {
        return (ScrapeFailure) t;
      }
    }
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof HttpConnectTimeoutException) {
        return new ScrapeFailure(Outcome.TIMEOUT, "connect to " + host + " timed out after "
            + Formats.duration(HttpScraper.connectTimeout(timeout)));
      }
      if (t instanceof HttpTimeoutException) {
        return new ScrapeFailure(Outcome.TIMEOUT,
            "timed out after " + Formats.duration(timeout)
                + " waiting for a response from " + host);
      }
      if (t instanceof SSLHandshakeException) {
        return new ScrapeFailure(Outcome.TLS_ERROR,
            "TLS handshake failed with " + host + ": " + describeTls(t.getMessage()));
      }
      if (t instanceof SSLException) {
        return new ScrapeFailure(Outcome.TLS_ERROR,
            "TLS failed with " + host + ": " + describeTls(t.getMessage()));
      }
      if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
        return new ScrapeFailure(Outcome.CONNECT_ERROR, "unknown host " + uri.getHost());
      }
      if (t instanceof NoRouteToHostException) {
        return new ScrapeFailure(Outcome.CONNECT_ERROR, "no route to host " + host);
      }
      if (t instanceof ProtocolException) {
        return new ScrapeFailure(Outcome.IO_ERROR,
            "invalid HTTP response from " + host + ": " + t.getMessage(), true);
      }
      if (t instanceof ConnectException) {
        String message = t.getMessage();
        if (message == null || message.toLowerCase(Locale.ROOT).contains("refused")) {
          return new ScrapeFailure(Outcome.CONNECT_ERROR, "connect to " + host + " refused");
        }
        return new ScrapeFailure(Outcome.CONNECT_ERROR,
            "connect to " + host + " failed: " + message);
      }
    }
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root
        && (root instanceof java.util.concurrent.CompletionException
            || root instanceof java.util.concurrent.ExecutionException)) {
      root = root.getCause();
    }
    String message =
        root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    if (root instanceof IOException) {
      String lower = message.toLowerCase(Locale.ROOT);
      if (lower.contains("closed") || lower.contains("eof") || lower.contains("reset")
          || lower.contains("bytes received") || lower.contains("no bytes")) {
        // Over TLS 1.3 a server that wants a client certificate checks it after the handshake
        // and just hangs up: this is all the client gets to see.
        String hint = "https".equalsIgnoreCase(uri.getScheme()) && !clientCertificate
            ? "; if the server requires a client certificate, set tls.certFile and tls.keyFile"
            : "";
        return new ScrapeFailure(Outcome.IO_ERROR, "connection to " + host
            + " closed before the response was complete (" + message + ")" + hint);
      }
      return new ScrapeFailure(Outcome.IO_ERROR, "I/O error with " + host + ": " + message);
    }
    return new ScrapeFailure(Outcome.IO_ERROR, "scrape of " + host + " failed: " + message);
  }

  /** Turns the JSSE messages people meet most into what to do about them. */
  private static String describeTls(String message) {
    if (message == null) {
      return "unknown reason";
    }
    if (message.contains("PKIX path")
        || message.contains("unable to find valid certification path")) {
      return "the server's certificate is not trusted (set tls.caFile to the CA that signed it)";
    }
    if (message.contains("No subject alternative") || message.contains("No name matching")) {
      return "the server's certificate does not name this host (" + message + ")";
    }
    if (message.contains("bad_certificate") || message.contains("certificate_required")
        || message.contains("certificate_unknown")) {
      return "the server rejected the client certificate (" + message
          + "; check tls.certFile and tls.keyFile)";
    }
    if (message.contains("plaintext connection")
        || message.contains("Unsupported or unrecognized SSL")) {
      return "the server does not speak TLS on this port (use http://)";
    }
    return message;
  }

  private static boolean isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
  }

  private static boolean isGzip(String encoding) {
    return encoding.equals("gzip") || encoding.equals("x-gzip");
  }
}
