package dev.gputop.config;

/**
 * Where discovery finds pod metadata ({@code kubernetes.*}), to reach containerized servers at
 * their pod IP. Immutable.
 *
 * @param enabled {@code kubernetes.enabled}: default {@code auto}-detected by the caller; true
 *     forces lookups, false disables them
 * @param nodeName {@code kubernetes.nodeName}, default from the {@code NODE_NAME} environment
 *     variable (set it with the downward API)
 * @param kubeletUrl {@code kubernetes.kubeletUrl}, e.g. {@code https://127.0.0.1:10250}; when
 *     set, pods are listed from the kubelet's /pods instead of the API server
 * @param apiServerUrl {@code kubernetes.apiServerUrl}; default from the in-cluster
 *     {@code KUBERNETES_SERVICE_HOST}/{@code _PORT} variables
 * @param tokenFile {@code kubernetes.tokenFile}, default the service account token
 * @param caFile {@code kubernetes.caFile}, default the service account CA
 * @param insecureSkipVerify {@code kubernetes.insecureSkipVerify} (kubelets often have
 *     self-signed certificates), default false
 * @param refresh how often the pod list is fetched ({@code kubernetes.refresh}, default 30s)
 */
public record KubernetesConfig(
    Boolean enabled,
    String nodeName,
    String kubeletUrl,
    String apiServerUrl,
    String tokenFile,
    String caFile,
    boolean insecureSkipVerify,
    java.time.Duration refresh) {

  public static final String SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

  /** Every key of this section at its {@link ConfigSchema} default. */
  public static KubernetesConfig defaults() {
    return ConfigSchema.defaults().kubernetes();
  }
}
