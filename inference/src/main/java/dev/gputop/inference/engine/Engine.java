package dev.gputop.inference.engine;

/** The inference engines the agent recognizes from metric names. */
public enum Engine {
  VLLM("vllm"),
  SGLANG("sglang"),
  TGI("tgi"),
  LLAMACPP("llamacpp"),
  /** An endpoint whose metric names match no known engine: shown {@code up}, every value N/A. */
  UNKNOWN("unknown");

  private final String id;

  Engine(String id) {
    this.id = id;
  }

  /** The identifier used in JSON and the {@code engine} attribute. */
  public String id() {
    return id;
  }

  @Override
  public String toString() {
    return id;
  }
}
