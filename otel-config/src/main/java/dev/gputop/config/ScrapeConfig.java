package dev.gputop.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Limits applied to every scrape ({@code inference.scrape.*}). The defaults are safe for a
 * 100 KB TGI exposition and stop a hostile endpoint long before it costs memory. Immutable.
 *
 * @param timeout one deadline per scrape cycle, {@code timeout} after it starts, for every
 *     server's connect, TLS, headers and body; default 2s (well below refresh.normal)
 * @param maxBodyBytes largest body accepted, after gzip decompression, default 16 MiB
 * @param maxLineLength longest exposition line accepted, default 64 KiB
 * @param maxSeries most samples accepted in one exposition, default 200,000
 * @param maxLabels most labels on one sample, default 64
 * @param concurrency most scrapes in flight at once, default 8
 */
public record ScrapeConfig(
    Duration timeout,
    long maxBodyBytes,
    int maxLineLength,
    int maxSeries,
    int maxLabels,
    int concurrency) {

  public ScrapeConfig {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("inference.scrape.timeout must be positive");
    }
    if (maxBodyBytes <= 0 || maxLineLength <= 0 || maxSeries <= 0 || maxLabels <= 0
        || concurrency <= 0) {
      throw new IllegalArgumentException("inference.scrape limits must be positive");
    }
  }

  /** Every key of this section at its {@link ConfigSchema} default. */
  public static ScrapeConfig defaults() {
    return ConfigSchema.defaults().inference().scrape();
  }

  /** A builder that starts from {@link #defaults()}. */
  public static Builder builder() {
    return defaults().toBuilder();
  }

  /** A builder that starts from these settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.timeout = timeout;
    b.maxBodyBytes = maxBodyBytes;
    b.maxLineLength = maxLineLength;
    b.maxSeries = maxSeries;
    b.maxLabels = maxLabels;
    b.concurrency = concurrency;
    return b;
  }

  /**
   * Collects the components by name, from the settings it started with ({@link #toBuilder});
   * {@link #build} hands them to the canonical constructor, which validates them.
   */
  public static final class Builder {
    private Duration timeout;
    private long maxBodyBytes;
    private int maxLineLength;
    private int maxSeries;
    private int maxLabels;
    private int concurrency;

    private Builder() {}

    public Builder timeout(Duration value) {
      this.timeout = value;
      return this;
    }

    public Builder maxBodyBytes(long value) {
      this.maxBodyBytes = value;
      return this;
    }

    public Builder maxLineLength(int value) {
      this.maxLineLength = value;
      return this;
    }

    public Builder maxSeries(int value) {
      this.maxSeries = value;
      return this;
    }

    public Builder maxLabels(int value) {
      this.maxLabels = value;
      return this;
    }

    public Builder concurrency(int value) {
      this.concurrency = value;
      return this;
    }

    public ScrapeConfig build() {
      return new ScrapeConfig(timeout, maxBodyBytes, maxLineLength, maxSeries, maxLabels, concurrency);
    }
  }
}
