package dev.gputop.agent.cli;

import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.top.HistoryView;
import dev.gputop.agent.top.SnapshotView;
import dev.gputop.agent.top.SnapshotView.ServerRow;
import dev.gputop.agent.top.TopScreen;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.internal.TerminalText;
import dev.gputop.config.internal.credentials.BearerTokenFile;
import dev.gputop.config.internal.credentials.CredentialException;
import dev.gputop.config.internal.credentials.PemFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertPathValidatorException;
import java.util.Base64;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.jline.keymap.BindingReader;
import org.jline.keymap.KeyMap;
import org.jline.terminal.Attributes;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.exec.ExecTerminalProvider;
import org.jline.terminal.spi.SystemStream;
import org.jline.utils.AttributedString;
import org.jline.utils.Display;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.NonBlockingReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code top}: the live view in a terminal ({@link TopScreen}), from a running agent's {@code
 * /api/snapshot} and {@code /api/history} ({@code --url}), or from receivers it runs itself with
 * the configuration (no listener, nothing exported), either read into the typed views {@link
 * SnapshotView} and {@link HistoryView}. On a terminal it takes the whole screen
 * (JLine 3), redraws every refresh and on a resize, and reads keys: arrows or j/k select a
 * server, Enter opens or closes its details, q (or Ctrl-C) quits. When stdout is not a terminal
 * it prints the screen as plain text every refresh instead. A protected listener is read with
 * {@code --ca-file}, {@code --cert-file}/{@code --key-file} and a bearer token or basic user from
 * files ({@link Credentials}); a 401 or a refused TLS handshake stops it with one line.
 */
@Command(
    name = "top",
    mixinStandardHelpOptions = true,
    description = {
      "The live view in a terminal: servers, latencies, load, GPUs, alerts and 10-minute sparklines.",
      "%nReads a running agent (--url) or runs the receivers itself (--config). Keys: arrows or j/k"
          + " select, Enter shows the selected server's details, q quits. Plain text when stdout is"
          + " not a terminal."
    })
final class TopCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  @Option(names = "--url", paramLabel = "URL",
      description = "A running agent's listener, e.g. http://127.0.0.1:9464 (default: run the receivers here).")
  String url;

  @Option(names = "--server", paramLabel = "NAME", description = "Select this server and open its details.")
  String server;

  @Option(names = "--for", paramLabel = "D", converter = DurationConverter.class,
      description = "Stop after D, e.g. 30s (default: until q or Ctrl-C).")
  Duration duration;

  @Option(names = "--plain", description = "Print plain text every refresh, also on a terminal.")
  boolean plain;

  @Option(names = "--width", paramLabel = "N", description = "Width of the plain text (default ${DEFAULT-VALUE}).")
  int width = 132;

  @Option(names = "--bearer-token-file", paramLabel = "FILE",
      description = "Send the token in FILE (re-read each request) to a listener with listener.auth.bearerTokenFile.")
  Path bearerTokenFile;

  @Option(names = "--basic-user", paramLabel = "USER",
      description = "Basic authentication as USER (with --basic-password-file), for listener.auth.basicUsersFile.")
  String basicUser;

  @Option(names = "--basic-password-file", paramLabel = "FILE",
      description = "The password of --basic-user, one line in FILE (re-read each request).")
  Path basicPasswordFile;

  @Option(names = "--ca-file", paramLabel = "PEM",
      description = "Trust the CAs in PEM (instead of the JVM's trust store) for an https:// --url.")
  String caFile;

  @Option(names = "--cert-file", paramLabel = "PEM",
      description = "Present this client certificate chain (with --key-file), for listener.tls.clientCaFile.")
  String certFile;

  @Option(names = "--key-file", paramLabel = "PEM", description = "The unencrypted PKCS#8 key of --cert-file.")
  String keyFile;

  @Spec CommandSpec spec;

  /** Where the view's data comes from. */
  interface Source extends AutoCloseable {
    String name();

    Duration interval() throws IOException;

    SnapshotView snapshot() throws IOException;

    /** The server's history document, or null when it has none. */
    HistoryView history(String server) throws IOException;

    @Override
    void close();
  }

  private enum Key { UP, DOWN, ENTER, QUIT }

  @Override
  public Integer call() throws Exception {
    if (url != null && !url.startsWith("http://") && !url.startsWith("https://")) {
      throw usage("--url must start with http:// or https://, not " + url);
    }
    HttpSource remote = url == null ? null : new HttpSource(url, credentials(), sslContext(), certFile != null);
    if (remote != null) {
      remote.check(); // a refused credential or an untrusted certificate won't fix itself: stop now
    }
    boolean tty = !plain && System.console() != null;
    // Log lines would tear the screen; warnings still show in plain mode.
    Logger.getLogger("").setLevel(tty ? Level.OFF : Level.WARNING);
    try (Source source = url != null ? remote : LocalSource.start(config.load())) {
      if (tty) {
        terminal(source);
      } else {
        plain(source, spec.commandLine().getOut());
      }
    }
    return ExitCodes.OK;
  }

  private picocli.CommandLine.ParameterException usage(String message) {
    return new picocli.CommandLine.ParameterException(spec.commandLine(), message);
  }

  /** The listener credentials the options ask for, checked now (the files are re-read per request). */
  private Credentials credentials() {
    boolean basic = basicUser != null || basicPasswordFile != null;
    boolean remoteOnly = bearerTokenFile != null || basic || caFile != null || certFile != null || keyFile != null;
    if (remoteOnly && url == null) {
      throw usage("--bearer-token-file, --basic-user, --basic-password-file, --ca-file, --cert-file and --key-file need --url");
    }
    if (bearerTokenFile != null && basic) {
      throw usage("give --bearer-token-file or --basic-user, not both");
    }
    if (basic && (basicUser == null || basicPasswordFile == null)) {
      throw usage("--basic-user and --basic-password-file must be given together");
    }
    if (basicUser != null && basicUser.contains(":")) {
      throw usage("--basic-user must not contain ':'");
    }
    if ((certFile == null) != (keyFile == null)) {
      throw usage("--cert-file and --key-file must be given together");
    }
    Credentials c = new Credentials(bearerTokenFile, basicUser, basicPasswordFile);
    try {
      c.authorization();
    } catch (CredentialException e) {
      throw usage(e.getMessage());
    }
    return c;
  }

  /** The TLS context of --ca-file/--cert-file/--key-file, or null for the JVM's default. */
  private SSLContext sslContext() {
    if (caFile == null && certFile == null) {
      return null;
    }
    try {
      return PemFiles.clientContext(caFile, certFile, keyFile, "cli");
    } catch (CredentialException e) {
      throw usage(e.getMessage());
    }
  }

  /**
   * How {@code top} authenticates to a protected listener: a bearer token or a basic user, each
   * read from its file at every request so that a rotated secret is used from the next one.
   */
  record Credentials(Path tokenFile, String user, Path passwordFile) {
    /** The Authorization header's value, or null without credentials. Never logged or printed. */
    String authorization() throws CredentialException {
      if (tokenFile != null) {
        return "Bearer " + BearerTokenFile.read(tokenFile, "--bearer-token-file");
      }
      if (user != null) {
        String password = BearerTokenFile.read(passwordFile, "--basic-password-file");
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
      }
      return null;
    }

    /** What to tell the user after a 401. */
    String hint() {
      if (tokenFile != null) {
        return "the token in --bearer-token-file " + tokenFile + " was refused";
      }
      if (user != null) {
        return "user " + user + " with --basic-password-file " + passwordFile + " was refused";
      }
      return "give --bearer-token-file or --basic-user";
    }
  }

  /** The view's state between redraws; touched by the command's thread only. */
  private final class State {
    SnapshotView snapshot;
    HistoryView history;
    int selected;
    boolean detail = server != null;
    String status;
    Duration interval = Duration.ofSeconds(3);

    void refresh(Source source) {
      try {
        snapshot = source.snapshot();
        List<ServerRow> servers = snapshot.inference();
        if (server != null) {
          for (int i = 0; i < servers.size(); i++) {
            if (server.equals(servers.get(i).name())) {
              selected = i;
            }
          }
          server = null; // only the first time: then the keys choose
        }
        selected = Math.min(selected, Math.max(0, servers.size() - 1));
        history = detail && servers.size() > 0 ? source.history(nameOf(servers.get(selected))) : null;
        status = null;
      } catch (IOException | RuntimeException e) {
        failed(source, e);
      }
    }

    /** The source's refresh interval; when it can't be read, the default and the error in the status line. */
    void readInterval(Source source) {
      try {
        interval = source.interval();
      } catch (IOException e) {
        failed(source, e);
      }
    }

    private void failed(Source source, Exception e) {
      status = "can't read " + source.name() + ": " + e.getMessage();
    }

    /** The name to ask {@code /api/history} for; "" for an entry without one (the agent has no such history). */
    private String nameOf(ServerRow s) {
      return s.name() == null ? "" : s.name();
    }

    TopScreen.View view(Source source) {
      return new TopScreen.View(snapshot, history, selected, detail, source.name(), status);
    }
  }

  /**
   * The screen's lines with what a hostile server or name could make the terminal do escaped
   * (TerminalText), each character keeping its style, then cut to the width again.
   */
  static List<AttributedString> terminalSafe(List<AttributedString> lines, int cols) {
    List<AttributedString> out = new java.util.ArrayList<>(lines.size());
    for (AttributedString line : lines) {
      if (TerminalText.value(line).equals(line.toString())) {
        out.add(line);
        continue;
      }
      org.jline.utils.AttributedStringBuilder b = new org.jline.utils.AttributedStringBuilder();
      for (int i = 0; i < line.length(); i++) {
        String escape = TerminalText.escapeOf(line.charAt(i));
        b.style(line.styleAt(i)).append(escape == null ? String.valueOf(line.charAt(i)) : escape);
      }
      out.add(b.toAttributedString().columnSubSequence(0, cols));
    }
    return out;
  }

  private void plain(Source source, PrintWriter out) throws Exception {
    State state = new State();
    state.readInterval(source);
    long end = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
    while (true) {
      state.refresh(source);
      StringBuilder b = new StringBuilder();
      for (AttributedString line : TopScreen.render(state.view(source), width)) {
        b.append(TerminalText.value(line.toString())).append('\n');
      }
      out.print(b.append('\n'));
      out.flush();
      long left = end - System.nanoTime();
      if (left <= 0) {
        return;
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(left, state.interval.toNanos()));
    }
  }

  private void terminal(Source source) throws Exception {
    State state = new State();
    try (Terminal terminal = systemTerminal()) {
      AtomicBoolean quit = new AtomicBoolean();
      AtomicBoolean resized = new AtomicBoolean();
      terminal.handle(Terminal.Signal.INT, s -> quit.set(true));
      terminal.handle(Terminal.Signal.WINCH, s -> resized.set(true));
      Attributes saved = terminal.enterRawMode();
      terminal.puts(Capability.enter_ca_mode);
      terminal.puts(Capability.keypad_xmit);
      terminal.puts(Capability.cursor_invisible);
      terminal.flush();
      try {
        state.readInterval(source);
        KeyMap<Key> keys = keys(terminal);
        BindingReader reader = new BindingReader(terminal.reader());
        Display display = new Display(terminal, true);
        long end = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
        long next = System.nanoTime();
        boolean dirty = true;
        while (!quit.get() && System.nanoTime() < end) {
          if (System.nanoTime() >= next) {
            state.refresh(source);
            next = System.nanoTime() + state.interval.toNanos();
            dirty = true;
          }
          if (dirty || resized.getAndSet(false)) {
            Size size = terminal.getSize();
            int rows = Math.max(1, size.getRows());
            int cols = Math.max(20, size.getColumns());
            display.resize(rows, cols);
            List<AttributedString> lines = terminalSafe(TopScreen.render(state.view(source), cols), cols);
            display.update(lines.size() > rows ? lines.subList(0, rows) : lines, -1);
            terminal.flush();
            dirty = false;
          }
          long wait = Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(next - System.nanoTime()), 250));
          int c = reader.peekCharacter(wait);
          if (c == NonBlockingReader.EOF) {
            break;
          }
          if (c == NonBlockingReader.READ_EXPIRED) {
            continue;
          }
          Key key = reader.readBinding(keys, null, false);
          if (key == null) {
            continue;
          }
          int servers = state.snapshot == null ? 0 : state.snapshot.inference().size();
          switch (key) {
            case QUIT:
              quit.set(true);
              break;
            case UP:
              state.selected = Math.max(0, state.selected - 1);
              break;
            case DOWN:
              state.selected = Math.min(Math.max(0, servers - 1), state.selected + 1);
              break;
            case ENTER:
              state.detail = !state.detail;
              break;
            default:
              break;
          }
          if (key == Key.ENTER || ((key == Key.UP || key == Key.DOWN) && state.detail)) {
            next = System.nanoTime(); // fetch the newly shown server's history now
          }
          dirty = true;
        }
      } finally {
        terminal.puts(Capability.cursor_visible);
        terminal.puts(Capability.keypad_local);
        terminal.puts(Capability.exit_ca_mode);
        terminal.setAttributes(saved);
        terminal.flush();
      }
    }
  }

  /**
   * The process's terminal through JLine's exec provider (stty), which needs no native library
   * (the shaded jar leaves those out). Made directly rather than through TerminalBuilder: JLine
   * finds its providers through resource files naming their classes, which relocation does not
   * rewrite.
   */
  private static Terminal systemTerminal() throws IOException {
    java.nio.charset.Charset utf8 = StandardCharsets.UTF_8;
    String type = System.getenv("TERM");
    return new ExecTerminalProvider().sysTerminal("gputop-top", type == null ? "xterm-256color" : type, false,
        utf8, utf8, utf8, true, Terminal.SignalHandler.SIG_DFL, false, SystemStream.Output);
  }

  private static KeyMap<Key> keys(Terminal terminal) {
    KeyMap<Key> keys = new KeyMap<>();
    keys.bind(Key.UP, "k", "\033[A", "\033OA");
    keys.bind(Key.DOWN, "j", "\033[B", "\033OB");
    bindCapability(keys, terminal, Key.UP, Capability.key_up);
    bindCapability(keys, terminal, Key.DOWN, Capability.key_down);
    keys.bind(Key.ENTER, "\r", "\n");
    keys.bind(Key.QUIT, "q", "Q", KeyMap.ctrl('C'));
    keys.setAmbiguousTimeout(100);
    return keys;
  }

  private static void bindCapability(KeyMap<Key> keys, Terminal terminal, Key key, Capability capability) {
    String seq = KeyMap.key(terminal, capability);
    if (seq != null && !seq.isEmpty()) {
      keys.bind(key, seq);
    }
  }

  /** A running agent's listener. */
  static final class HttpSource implements Source {
    private final String base;
    private final Credentials credentials;
    private final boolean clientCertificate;
    private final HttpClient http;

    HttpSource(String url, Credentials credentials, SSLContext ssl, boolean clientCertificate) {
      this.clientCertificate = clientCertificate;
      this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
      this.credentials = credentials;
      HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
      if (ssl != null) {
        b.sslContext(ssl);
      }
      this.http = b.build();
    }

    /**
     * The agent's refresh interval, read once (it changes only with the agent's config): by
     * {@link #check()} when the agent answered it, else at the view's first ask.
     */
    private Duration interval;

    /**
     * Reads the agent's interval (its small {@code /api/history} document) before the view
     * starts: a 401 or a failed TLS handshake is thrown (a clear one-line error); anything else
     * (an agent not up yet) is left to the view's status line.
     */
    void check() throws IOException {
      try {
        interval();
      } catch (Refused e) {
        throw e;
      } catch (IOException e) {
        // not up yet, or restarting: the view shows it and retries
      }
    }

    /** Why the agent could not be read, in words (the JDK's ConnectException has no message). */
    private static String unreachable(IOException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof java.net.ConnectException) {
          return "connection refused: is the agent running, and listening there?";
        }
        if (t instanceof java.net.http.HttpTimeoutException) {
          return "no answer within 5 s";
        }
        if (t instanceof java.nio.channels.UnresolvedAddressException || t instanceof java.net.UnknownHostException) {
          return "unknown host";
        }
      }
      return e.getMessage() != null ? e.getMessage() : "the connection failed";
    }

    @Override
    public String name() {
      return base;
    }

    @Override
    public Duration interval() throws IOException {
      if (interval == null) {
        Double seconds = HistoryView.parse(get("/api/history")).intervalSeconds();
        interval = Duration.ofMillis(Math.max(500, Math.round((seconds == null ? 3 : seconds) * 1000)));
      }
      return interval;
    }

    @Override
    public SnapshotView snapshot() throws IOException {
      return SnapshotView.parse(get("/api/snapshot"));
    }

    @Override
    public HistoryView history(String server) throws IOException {
      try {
        return HistoryView.parse(get("/api/history?server=" + URLEncoder.encode(server, StandardCharsets.UTF_8)));
      } catch (NotFound e) {
        return null;
      }
    }

    private byte[] get(String path) throws IOException {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(5));
      try {
        String authorization = credentials.authorization();
        if (authorization != null) {
          request.header("Authorization", authorization);
        }
      } catch (CredentialException e) {
        throw new IOException(e.getMessage()); // names the file, never its content
      }
      HttpResponse<byte[]> r;
      try {
        r = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      } catch (IOException e) {
        // TLS 1.3 reports a refused client certificate after the handshake, as an IOException
        // with the server's alert as its cause.
        for (Throwable t = e; t != null; t = t.getCause()) {
          if (t instanceof SSLException ssl) {
            throw new Refused(tlsProblem(ssl));
          }
        }
        boolean closedUnanswered = e instanceof java.io.EOFException
            || String.valueOf(e.getMessage()).contains("received no bytes");
        if (closedUnanswered && base.startsWith("https://") && !clientCertificate) {
          // ... or, as the JDK client sees it, as a connection closed before any answer.
          throw new Refused("the agent at " + base + " closed the TLS connection without answering: "
              + "a listener with listener.tls.clientCaFile needs --cert-file and --key-file");
        }
        throw new IOException(unreachable(e), e);
      }
      if (r.statusCode() == 401) {
        throw new Refused("the agent at " + base + " answered 401: " + credentials.hint());
      }
      if (r.statusCode() == 404) {
        throw new NotFound();
      }
      if (r.statusCode() != 200) {
        throw new IOException(path + ": HTTP " + r.statusCode());
      }
      return r.body();
    }

    @Override
    public void close() {
      // HttpClient holds no resources that outlive the JVM's daemon threads
    }

    private String tlsProblem(SSLException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof CertPathValidatorException || t instanceof CertificateException
            || String.valueOf(t.getMessage()).contains("PKIX path")) {
          return "the agent at " + base + " presented a certificate that is not trusted: "
              + "give --ca-file with the CA that signed it";
        }
      }
      return "TLS with the agent at " + base + " failed: " + e.getMessage()
          + " (a listener with listener.tls.clientCaFile needs --cert-file and --key-file)";
    }

    /** The listener refused this client (401, or the TLS handshake): the options must change. */
    static final class Refused extends IOException {
      private static final long serialVersionUID = 1L;

      Refused(String message) {
        super(message);
      }
    }

    private static final class NotFound extends IOException {
      private static final long serialVersionUID = 1L;

      NotFound() {
        super("not found");
      }
    }
  }

  /** The receivers, run here with the configuration: no listener, nothing exported. */
  static final class LocalSource implements Source {
    private final AgentRuntime runtime;

    private LocalSource(AgentRuntime runtime) {
      this.runtime = runtime;
    }

    static LocalSource start(AgentConfig config) throws InterruptedException {
      AgentRuntime runtime = AgentRuntime.builder(config).build();
      runtime.start();
      runtime.awaitFirstRefresh(Duration.ofSeconds(5));
      return new LocalSource(runtime);
    }

    @Override
    public String name() {
      return "local receivers";
    }

    @Override
    public Duration interval() {
      return Duration.ofMillis(runtime.history().intervalMillis());
    }

    @Override
    public SnapshotView snapshot() {
      return SnapshotView.of(runtime.snapshot());
    }

    @Override
    public HistoryView history(String server) {
      com.fasterxml.jackson.databind.JsonNode doc = runtime.history().server(server, runtime.epochMillis());
      return doc == null ? null : HistoryView.of(doc);
    }

    @Override
    public void close() {
      runtime.close();
    }
  }
}
