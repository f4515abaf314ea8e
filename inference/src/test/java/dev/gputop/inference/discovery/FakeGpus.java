package dev.gputop.inference.discovery;

import dev.gputop.config.services.GpuProcess;
import dev.gputop.config.services.GpuProcessSource;
import java.util.ArrayList;
import java.util.List;

/** A hand-written GPU process source: NVML as discovery sees it. */
final class FakeGpus implements GpuProcessSource {

  private final List<GpuProcess> processes = new ArrayList<>();
  private final String unavailable;

  FakeGpus() {
    this(null);
  }

  FakeGpus(String unavailable) {
    this.unavailable = unavailable;
  }

  FakeGpus on(long pid, int... gpus) {
    for (int g : gpus) {
      processes.add(new GpuProcess(pid, g, "GPU-0000000" + g, 1L << 30));
    }
    return this;
  }

  @Override
  public boolean available() {
    return unavailable == null;
  }

  @Override
  public String unavailableReason() {
    return unavailable;
  }

  @Override
  public List<GpuProcess> gpuProcesses() {
    return unavailable == null ? List.copyOf(processes) : List.of();
  }
}
