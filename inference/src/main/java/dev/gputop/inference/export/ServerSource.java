package dev.gputop.inference.export;

import com.fasterxml.jackson.annotation.JsonValue;

/** Where a server comes from, as the snapshot's {@code source} reports it. */
public enum ServerSource {
  /** From {@code inference.endpoints}. */
  CONFIGURED("configured"),
  /** Found by discovery. */
  DISCOVERED("discovered");

  private final String jsonName;

  ServerSource(String jsonName) {
    this.jsonName = jsonName;
  }

  /** The lower-case name used in JSON. */
  @JsonValue
  public String jsonName() {
    return jsonName;
  }
}
