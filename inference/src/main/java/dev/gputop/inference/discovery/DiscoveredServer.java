package dev.gputop.inference.discovery;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.gputop.config.Endpoint;
import java.net.URI;
import java.util.List;
import java.util.Objects;

/**
 * One inference server found on this host: all of its processes merged into one entry. Immutable.
 *
 * @param endpoint what the scraper needs, the same type as a configured endpoint: its name is
 *     stable for outputs, {@code <engine>-<port>} (e.g. {@code vllm-8000}) or {@code
 *     <namespace>/<pod>:<port>} for a server in a Kubernetes pod; its URL is the metrics URL
 *     derived from the command line (and pod IP in containers)
 * @param engine the engine the command line suggests ({@code vllm}, {@code sglang}, {@code tgi},
 *     {@code llamacpp}); the metric names decide in the end
 * @param gpus the NVML indices of every GPU any of its processes uses, ascending
 * @param pids every PID merged into this server (API server, engine cores, workers, shards), ascending
 * @param command the command line of the process that owns the port, for {@code discover}
 * @param how how it was recognized and how the URL was derived, in words
 * @param containerId the container ID when it runs in one, else null
 * @param pod the Kubernetes pod and container it runs in, else null
 */
@JsonPropertyOrder({"name", "engine", "url"}) // discover --json, as before the endpoint was one value
public record DiscoveredServer(
    @JsonIgnore Endpoint endpoint,
    String engine,
    List<Integer> gpus,
    List<Long> pids,
    String command,
    String how,
    String containerId,
    dev.gputop.config.PodIdentity pod) {

  public DiscoveredServer {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(engine, "engine");
    gpus = List.copyOf(gpus);
    pids = List.copyOf(pids);
  }

  /** The server's name: {@code endpoint().name()}. */
  @JsonProperty
  public String name() {
    return endpoint.name();
  }

  /** The metrics URL: {@code endpoint().url()}. */
  @JsonProperty
  public URI url() {
    return endpoint.url();
  }
}
