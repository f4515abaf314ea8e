package dev.gputop.inference.export;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A server's state as the snapshot's {@code state} and the {@code gputop.inference.server.state}
 * state set report it, in the order of that state set.
 */
public enum ServerState {
  /** Scraped, and (for a known engine) with two scrapes in its window. */
  UP("up"),
  /** Scraped, but with fewer than two scrapes in its window: no rates or latencies yet. */
  STARTING("starting"),
  /** The last scrape failed: nothing is known. */
  DOWN("down");

  private final String jsonName;

  ServerState(String jsonName) {
    this.jsonName = jsonName;
  }

  /** The lower-case name used in JSON and in the {@code state} attribute. */
  @JsonValue
  public String jsonName() {
    return jsonName;
  }
}
