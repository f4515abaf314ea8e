package dev.gputop.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Command-line tools the listener-security tests run: openssl for their certificates. */
public final class TestTools {

  private TestTools() {}

  /** Runs {@code openssl ARGS} in {@code dir}; fails with its output when it does not exit 0. */
  public static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("openssl " + String.join(" ", args) + " failed: " + out);
    }
  }

  /** The key {@link #issue} makes unless told otherwise: EC on P-256. */
  public static final List<String> EC_KEY = List.of("-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256");

  /** An RSA 2048 key, for {@link #issue(Path, String, String, String, String, List)}. */
  public static final List<String> RSA_KEY = List.of("-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048");

  /** A self-signed CA of ten years in {@code dir}: {@code NAME.key} (EC P-256) and {@code NAME.pem}. */
  public static void ca(Path dir, String name, String subject) throws IOException, InterruptedException {
    genpkey(dir, name + ".key", EC_KEY);
    openssl(dir, "req", "-x509", "-new", "-key", name + ".key", "-subj", subject, "-days", "3650", "-out", name + ".pem");
  }

  /**
   * A certificate of ten years {@code NAME.pem} with its EC P-256 key {@code NAME.key} in {@code
   * dir}, for {@code subject} with the extension {@code ext} (e.g. {@code
   * subjectAltName=IP:127.0.0.1}), signed by the CA {@code ca} that {@link #ca} made there.
   */
  public static void issue(Path dir, String ca, String name, String subject, String ext)
      throws IOException, InterruptedException {
    issue(dir, ca, name, subject, ext, EC_KEY);
  }

  /** As {@link #issue(Path, String, String, String, String)}, with a key made by genpkey's {@code keyOptions}. */
  public static void issue(Path dir, String ca, String name, String subject, String ext, List<String> keyOptions)
      throws IOException, InterruptedException {
    genpkey(dir, name + ".key", keyOptions);
    openssl(dir, "req", "-new", "-key", name + ".key", "-subj", subject, "-out", name + ".csr");
    Files.writeString(dir.resolve(name + ".ext"), ext + "\n");
    openssl(dir, "x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key", "-CAcreateserial",
        "-days", "3650", "-extfile", name + ".ext", "-out", name + ".pem");
  }

  private static void genpkey(Path dir, String file, List<String> keyOptions) throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(List.of("genpkey"));
    args.addAll(keyOptions);
    args.addAll(List.of("-out", file));
    openssl(dir, args.toArray(new String[0]));
  }

  /** Whether an executable named {@code tool} is on the PATH. */
  public static boolean onPath(String tool) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(d, tool))) {
        return true;
      }
    }
    return false;
  }
}
