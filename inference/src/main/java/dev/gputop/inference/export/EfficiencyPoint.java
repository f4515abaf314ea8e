package dev.gputop.inference.export;

import dev.gputop.inference.stats.Efficiency;
import io.opentelemetry.api.common.Attributes;

/**
 * A server's efficiency with the attributes of its points ({@code server}, {@code engine}, the
 * pod's), built once per refresh. Immutable.
 */
public record EfficiencyPoint(Attributes attributes, Efficiency efficiency) {}
