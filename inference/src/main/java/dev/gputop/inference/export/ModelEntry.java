package dev.gputop.inference.export;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.gputop.inference.stats.ServerStats;

/**
 * The statistics of one model on a server that serves several ({@code inference[].models[]}):
 * the fields of {@link ServerEntry} without url, source, gpus and pids. Immutable.
 *
 * @param name the model's name
 * @param engine the server's engine
 * @param state the server's state
 * @param error always null: a model has no scrape of its own
 * @param stats the model's windowed statistics, written inline
 */
public record ModelEntry(
    String name, String engine, ServerState state, String error, @JsonUnwrapped ServerStats stats) {}
