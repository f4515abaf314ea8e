package dev.gputop.inference.scrape;

import dev.gputop.config.Endpoint;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import dev.gputop.receiver.Clock;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpResponseException;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;

/**
 * One scrape of one target, from request to {@link ScrapeResult}: sends the request through
 * Jetty's non-blocking {@link HttpClient}, follows same-host redirects, collects the body within
 * its limits, inflates gzip, and maps every failure to an outcome with a message a person can act
 * on.
 *
 * <p>The whole call, redirects included, has one deadline, its cycle's {@link ScrapeDeadline}
 * on the injected clock: each request's total timeout is the time left until it, as the clock
 * says when the request is sent (Jetty's timeout covers connecting, sending, the headers and the
 * body, so a server that trickles one byte a second is cut off at the deadline, not merely when
 * it pauses), and the scraper ends whatever is still running a moment later. Ending a call aborts its
 * request, which closes the connection.
 *
 * <p>Completed exactly once, by whichever comes first: the response, a failure, the deadline or
 * {@link #abort}. Callbacks run on the HTTP client's threads (serially for one exchange); the
 * fields they share with {@link #abort} are volatile and the result is published through a
 * {@link CompletableFuture}. Once completed, the call drops its request and buffers, so nothing
 * of the exchange outlives the result.
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
   * Request headers a target may not set: the client writes them from the URL and the exchange
   * itself (java.net.http, which the scraper used before, refused the same set, so a configuration
   * that worked then works now).
   */
  private static final Set<String> RESERVED_HEADERS =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding");

  /**
   * A finished call: the result plus what only the telemetry and the backoff need.
   *
   * @param protocolViolation the response was not valid HTTP
   */
  record Completed(
      ScrapeResult result, int statusCode, long transferredBytes, boolean protocolViolation) {}

  /** Ends an error page's exchange once its start is kept; never reported. */
  private static final class Truncated extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Truncated() {
      super("error page truncated", null, false, false);
    }
  }

  private static final Truncated TRUNCATED = new Truncated();

  private final Endpoint target;
  private final ScrapeConfig config;
  private final Clock clock;
  private final ScrapeDeadline deadline;
  private volatile long startEpochNanos;
  private volatile long startNanos;
  private final CompletableFuture<Completed> completion = new CompletableFuture<>();

  private volatile HttpClient client;
  private volatile String token;
  private volatile Request request;
  private volatile Exchange exchange;
  private volatile URI currentUri;
  private volatile int statusCode;
  private volatile long transferred;
  private volatile boolean protocolViolation;

  /**
   * @param clock stamps the result and measures its duration
   * @param deadline when the call must be finished: its cycle's deadline
   */
  ScrapeCall(Endpoint target, ScrapeConfig config, Clock clock, ScrapeDeadline deadline) {
    this.target = target;
    this.config = config;
    this.clock = clock;
    this.deadline = deadline;
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
  CompletableFuture<Completed> start(HttpClients clients) {
    // The duration measures the scrape itself, not the wait for a free slot.
    startEpochNanos = clock.epochNanos();
    startNanos = clock.nanoTime();
    try {
      // The URL is http(s) with a host: an Endpoint can't be built otherwise.
      checkHeaders(target.headers());
      client = clients.get(target.tls());
      if (target.bearerTokenFile() != null) {
        token = BearerTokens.read(target.bearerTokenFile());
      }
    } catch (ScrapeFailure f) {
      fail(f);
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
    Request r = request;
    if (finish(outcome, null, null, message) && r != null) {
      r.abort(new ScrapeFailure(outcome, message));
    }
  }

  private void send(URI uri, int hop) {
    currentUri = uri;
    exchange = null;
    statusCode = 0;
    long remaining = deadline.remainingNanos();
    if (remaining <= 0) {
      finish(Outcome.TIMEOUT, null, null, deadlineMessage(null));
      return;
    }
    Request r;
    try {
      r = client.newRequest(uri);
    } catch (IllegalArgumentException e) {
      // Not the client's message: it quotes the URL, whose query may hold a secret.
      fail(new ScrapeFailure(Outcome.IO_ERROR, "the HTTP client rejects this URL"));
      return;
    }
    Exchange ex = new Exchange(uri, hop);
    r.method(HttpMethod.GET)
        // Rounded up: a timeout of 0 would be none at all.
        .timeout(TimeUnit.NANOSECONDS.toMillis(remaining) + 1, TimeUnit.MILLISECONDS)
        .headers(this::requestHeaders)
        .onResponseHeaders(ex::onHeaders)
        .onResponseContent(ex::onContent);
    exchange = ex;
    request = r;
    if (completion.isDone()) {
      return; // aborted while the request was being built
    }
    try {
      r.send(ex::onComplete);
    } catch (RuntimeException e) {
      fail(new ScrapeFailure(Outcome.IO_ERROR,
          "cannot send the request: " + e.getClass().getSimpleName()));
    }
  }

  private void requestHeaders(HttpFields.Mutable headers) {
    headers.put(HttpHeader.ACCEPT, ACCEPT);
    headers.put(HttpHeader.ACCEPT_ENCODING, "gzip");
    for (Map.Entry<String, String> header : target.headers().entrySet()) {
      headers.put(header.getKey(), header.getValue());
    }
    if (token != null) {
      headers.put(HttpHeader.AUTHORIZATION, "Bearer " + token);
    }
  }

  /** Refuses headers the client must write itself or that can't be sent, naming only the header. */
  private static void checkHeaders(Map<String, String> headers) throws ScrapeFailure {
    for (Map.Entry<String, String> header : headers.entrySet()) {
      String name = header.getKey();
      if (RESERVED_HEADERS.contains(name.toLowerCase(Locale.ROOT)) || !isToken(name)
          || !isFieldValue(header.getValue())) {
        // The value may be a secret: name the header only.
        throw new ScrapeFailure(Outcome.IO_ERROR, "header '" + name
            + "' can't be sent: its name is reserved by the HTTP client or its value is invalid");
      }
    }
  }

  private static boolean isToken(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static boolean isFieldValue(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f || c > 0xff) {
        return false;
      }
    }
    return true;
  }

  /** One request of the call (the first, or a redirect's): its response as it arrives. */
  private final class Exchange {
    private final URI uri;
    private final int hop;
    private volatile BodyBuffer body;
    private boolean errorPage;
    private boolean truncated;

    Exchange(URI uri, int hop) {
      this.uri = uri;
      this.hop = hop;
    }

    long received() {
      BodyBuffer b = body;
      return b == null ? 0 : b.received();
    }

    boolean headersReceived() {
      return body != null;
    }

    void onHeaders(Response response) {
      if (completion.isDone()) {
        response.abort(TRUNCATED);
        return;
      }
      int status = response.getStatus();
      statusCode = status;
      long contentLength = response.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
      if (status / 100 != 2) {
        // Redirect or error: only the start of the page is shown.
        errorPage = true;
        body = new BodyBuffer(ERROR_BODY_BYTES, contentLength);
      } else if (contentLength > config.maxBodyBytes()) {
        body = new BodyBuffer(0, 0);
        response.abort(new ScrapeFailure(Outcome.TOO_LARGE,
            limitMessage() + " (Content-Length " + contentLength + ")"));
      } else {
        body = new BodyBuffer(config.maxBodyBytes(), contentLength);
      }
    }

    void onContent(Response response, ByteBuffer content) {
      BodyBuffer b = body;
      if (truncated || b == null) {
        return;
      }
      if (!b.append(content)) {
        truncated = true;
        response.abort(errorPage ? TRUNCATED : new ScrapeFailure(Outcome.TOO_LARGE, limitMessage()));
      }
    }

    void onComplete(Result result) {
      try {
        transferred = received();
        if (completion.isDone()) {
          return;
        }
        Throwable failure = result.getFailure();
        if (failure != null && !(errorPage && truncated && causedBy(failure, Truncated.class))) {
          fail(failure);
          return;
        }
        Response response = result.getResponse();
        int status = response.getStatus();
        HttpFields headers = response.getHeaders();
        if (isRedirect(status)) {
          send(redirectTarget(uri, hop, status, headers.get(HttpHeader.LOCATION)), hop + 1);
          return;
        }
        BodyBuffer.Body collected = body.body();
        String encoding = headers.get(HttpHeader.CONTENT_ENCODING);
        encoding = encoding == null ? "" : encoding.trim().toLowerCase(Locale.ROOT);
        if (status / 100 != 2) {
          if (isGzip(encoding)) {
            collected = GzipDecoder.decode(
                collected.bytes(), collected.length(), ERROR_BODY_BYTES, true);
          }
          String snippet = Formats.snippet(collected.bytes(), collected.length(), SNIPPET_CHARS);
          String reason = Formats.reason(status);
          throw new ScrapeFailure(Outcome.HTTP_ERROR, "HTTP " + status
              + (reason.isEmpty() ? "" : " " + reason) + " from " + Formats.hostPort(uri)
              + (snippet.isEmpty() ? "" : ": " + snippet));
        }
        if (isGzip(encoding)) {
          collected = GzipDecoder.decode(
              collected.bytes(), collected.length(), config.maxBodyBytes(), false);
        } else if (!encoding.isEmpty() && !encoding.equals("identity")) {
          throw new ScrapeFailure(Outcome.IO_ERROR,
              "unsupported Content-Encoding '" + encoding + "' (only gzip was accepted)");
        }
        String contentType = headers.get(HttpHeader.CONTENT_TYPE);
        String notExposition = ExpositionSniff.notAnExposition(
            collected.bytes(), collected.length(), contentType);
        if (notExposition != null) {
          String snippet = Formats.snippet(
              collected.bytes(), Math.min(collected.length(), 4 * SNIPPET_CHARS), SNIPPET_CHARS);
          throw new ScrapeFailure(Outcome.MALFORMED, notExposition + " from " + Formats.hostPort(uri)
              + (snippet.isEmpty() ? "" : ": " + snippet));
        }
        finish(Outcome.SUCCESS, collected, contentType, null);
      } catch (ScrapeFailure f) {
        fail(f);
      } catch (RuntimeException e) {
        fail(new ScrapeFailure(Outcome.IO_ERROR, "unexpected error: " + e));
      }
    }

    private void fail(Throwable failure) {
      ScrapeCall.this.fail(classify(failure, uri, config.timeout(),
          target.tls().certFile() != null, headersReceived(), received()));
    }
  }

  private String limitMessage() {
    return "body exceeds " + Formats.size(config.maxBodyBytes()) + " limit";
  }

  private URI redirectTarget(URI from, int hop, int status, String location) throws ScrapeFailure {
    if (location == null || location.isBlank()) {
      throw new ScrapeFailure(Outcome.HTTP_ERROR,
          "HTTP " + status + " from " + Formats.hostPort(from) + " without a Location header");
    }
    URI to;
    try {
      to = from.resolve(location.trim());
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

  /** What a call cut off at the deadline reports: where it was and what it had received. */
  private String deadlineMessage(Exchange ex) {
    return deadlineMessage(config.timeout(), currentUri,
        ex != null && ex.headersReceived(), ex == null ? 0 : ex.received());
  }

  private static String deadlineMessage(
      Duration timeout, URI uri, boolean headersReceived, long received) {
    String after = "timed out after " + Formats.duration(timeout);
    return headersReceived
        ? after + " reading the body from " + Formats.hostPort(uri)
            + " (" + Formats.size(received) + " received)"
        : after + " waiting for a response from " + Formats.hostPort(uri);
  }

  /** Ends the call at the deadline, if it is still running: the scraper's backstop. */
  void onDeadline() {
    Exchange ex = exchange;
    abort(Outcome.TIMEOUT, deadlineMessage(ex));
  }

  private void fail(ScrapeFailure f) {
    protocolViolation = f.protocolViolation();
    finish(f.outcome(), null, null, f.getMessage());
  }

  private boolean finish(Outcome outcome, BodyBuffer.Body body, String contentType,
      String error) {
    if (completion.isDone()) {
      return false;
    }
    long duration = clock.nanoTime() - startNanos;
    Exchange ex = exchange;
    long bytes = ex == null ? transferred : Math.max(transferred, ex.received());
    ScrapeResult result = new ScrapeResult(target, outcome,
        body == null ? null : body.bytes(), body == null ? 0 : body.length(), contentType,
        startEpochNanos, startNanos, duration, error);
    boolean won = completion.complete(
        new Completed(result, statusCode, bytes, protocolViolation));
    if (won) {
      // Nothing of the exchange stays reachable from the call: only the result.
      request = null;
      exchange = null;
      client = null;
      token = null;
    }
    return won;
  }

  /** Maps what the HTTP client reported to an outcome and a message naming the host. */
  static ScrapeFailure classify(Throwable error, URI uri, Duration timeout,
      boolean clientCertificate, boolean headersReceived, long received) {
    String host = Formats.hostPort(uri);
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof ScrapeFailure) {
        return (ScrapeFailure) t;
      }
    }
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof SocketTimeoutException && !headersReceived
          && String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT).contains("connect")) {
        return new ScrapeFailure(Outcome.TIMEOUT, "connect to " + host + " timed out after "
            + Formats.duration(HttpScraper.connectTimeout(timeout)));
      }
      if (t instanceof TimeoutException || t instanceof SocketTimeoutException) {
        // The request's total timeout: the cycle's deadline.
        return new ScrapeFailure(Outcome.TIMEOUT,
            deadlineMessage(timeout, uri, headersReceived, received));
      }
      if (t instanceof HttpException) {
        String reason = ((HttpException) t).getReason();
        return new ScrapeFailure(Outcome.IO_ERROR, "invalid HTTP response from " + host + ": "
            + (reason == null ? "bad response" : reason), true);
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
      if (t instanceof ConnectException) {
        String message = t.getMessage();
        if (message == null || message.toLowerCase(Locale.ROOT).contains("refused")) {
          return new ScrapeFailure(Outcome.CONNECT_ERROR, "connect to " + host + " refused");
        }
        return new ScrapeFailure(Outcome.CONNECT_ERROR,
            "connect to " + host + " failed: " + safeMessage(t));
      }
    }
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof HttpResponseException) {
        return new ScrapeFailure(Outcome.IO_ERROR,
            "invalid HTTP response from " + host + ": bad response", true);
      }
    }
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root
        && (root instanceof java.util.concurrent.CompletionException
            || root instanceof java.util.concurrent.ExecutionException)) {
      root = root.getCause();
    }
    String message = safeMessage(root);
    String lower = message.toLowerCase(Locale.ROOT);
    if (root instanceof EOFException || root instanceof ClosedChannelException
        || (root instanceof IOException && (lower.contains("closed") || lower.contains("eof")
            || lower.contains("reset") || lower.contains("broken pipe")))) {
      // Over TLS 1.3 a server that wants a client certificate checks it after the handshake
      // and just hangs up: this is all the client gets to see.
      String hint = "https".equalsIgnoreCase(uri.getScheme()) && !clientCertificate
          ? "; if the server requires a client certificate, set tls.certFile and tls.keyFile"
          : "";
      return new ScrapeFailure(Outcome.IO_ERROR, "connection to " + host
          + " closed before the response was complete (" + message + ")" + hint);
    }
    if (root instanceof IOException) {
      return new ScrapeFailure(Outcome.IO_ERROR, "I/O error with " + host + ": " + message);
    }
    return new ScrapeFailure(Outcome.IO_ERROR, "scrape of " + host + " failed: " + message);
  }

  /**
   * The exception's message if it is short and plain, else a description of its type: Jetty's
   * messages often carry a dump of the connection's state.
   */
  private static String safeMessage(Throwable t) {
    String message = t.getMessage();
    if (t instanceof EOFException) {
      return "end of stream";
    }
    if (t instanceof ClosedChannelException) {
      return "connection closed";
    }
    if (message == null || message.isBlank() || message.length() > 120 || message.contains("@")) {
      return t.getClass().getSimpleName();
    }
    return message;
  }

  private static boolean causedBy(Throwable error, Class<? extends Throwable> type) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
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
