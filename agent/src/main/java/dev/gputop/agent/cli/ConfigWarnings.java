package dev.gputop.agent.cli;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigType;
import dev.gputop.config.Endpoint;
import dev.gputop.config.ListenerConfig;
import dev.gputop.config.internal.credentials.BearerTokenFile;
import dev.gputop.config.internal.credentials.CredentialException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code check-config} warns about in a configuration that loads: settings the agent runs
 * with but that will not do what the user meant. A scrape timeout as long as the refresh lets one
 * slow server hold every refresh up to its timeout; a credential file that can't be read now
 * fails each scrape (or the listener's start) later. These are warnings, not errors: a token file
 * may appear once a secret is mounted, and the agent re-reads it at each request. Stateless.
 */
final class ConfigWarnings {

  private ConfigWarnings() {}

  /** The warnings for {@code cfg}, each one line naming the key; empty when there are none. */
  static List<String> of(AgentConfig cfg) {
    List<String> out = new ArrayList<>();
    if (cfg.inference().enabled()
        && cfg.inference().scrape().timeout().compareTo(cfg.refreshNormal()) >= 0) {
      out.add("inference.scrape.timeout (" + ConfigType.formatDuration(cfg.inference().scrape().timeout())
          + ") is not shorter than refresh.normal (" + ConfigType.formatDuration(cfg.refreshNormal())
          + "): a server that answers slowly holds each refresh up to its timeout, so values arrive late;"
          + " make the timeout shorter than the refresh");
    }
    List<Endpoint> endpoints = cfg.inference().endpoints();
    for (int i = 0; i < endpoints.size(); i++) {
      Endpoint e = endpoints.get(i);
      String key = "inference.endpoints[" + i + "]";
      if (e.bearerTokenFile() != null) {
        token(out, key + ".bearerTokenFile", e.bearerTokenFile());
      }
      file(out, key + ".tls.caFile", e.tls().caFile());
      file(out, key + ".tls.certFile", e.tls().certFile());
      file(out, key + ".tls.keyFile", e.tls().keyFile());
    }
    if (!cfg.listenerDisabled()) {
      ListenerConfig l = cfg.listener();
      file(out, "listener.tls.certFile", l.certFile());
      file(out, "listener.tls.keyFile", l.keyFile());
      file(out, "listener.tls.clientCaFile", l.clientCaFile());
      if (l.bearerTokenFile() != null) {
        token(out, "listener.auth.bearerTokenFile", l.bearerTokenFile());
      }
      file(out, "listener.auth.basicUsersFile", l.basicUsersFile());
    }
    return out;
  }

  private static void token(List<String> out, String key, String file) {
    try {
      BearerTokenFile.read(Path.of(file), key);
    } catch (CredentialException e) {
      out.add(e.getMessage());
    }
  }

  private static void file(List<String> out, String key, String file) {
    if (file == null) {
      return;
    }
    Path p = Path.of(file);
    if (!Files.exists(p)) {
      out.add(key + " " + file + " does not exist");
    } else if (!Files.isRegularFile(p)) {
      out.add(key + " " + file + " is not a file");
    } else if (!Files.isReadable(p)) {
      out.add(key + " " + file + " is not readable (permission denied)");
    }
  }
}
