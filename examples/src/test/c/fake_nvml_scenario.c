/*
 * Linked beside the nvml module's fake libnvidia-ml (nvml/src/test/c/fake_nvml.c) for the
 * examples' end-to-end test: sets the fake's scenario up when the library is loaded, through the
 * fake's public fake_nvml_* scripting functions, with one more thing than its environment offers:
 * a GPU that has fallen off the bus, so the GputopGpuFailed alert fires for real.
 *
 *   FAKE_NVML_DEVICE_COUNT  number of GPUs
 *   FAKE_NVML_PROCESSES     pid:gpuIndex:usedBytes entries, comma-separated (as the fake reads them)
 *   FAKE_NVML_LOST          index of the GPU that is lost
 *   FAKE_NVML_FAULTY        index of a GPU with memory and link faults: a failed and a pending
 *                           row remap, two NVLink links, PCIe replays and NVLink CRC errors
 *                           rising by 10 per second (Xid events come through FAKE_NVML_XID_FILE,
 *                           which the fake itself reads)
 *   FAKE_NVML_ENERGY_GROWS  1: every GPU's energy counter grows with the time since init at its
 *                           power (GPU i: 100 + 10 i W), as the fake's own environment scenario does
 *
 * Build: gcc -shared -fPIC -O2 -o libnvidia-ml.so.1 fake_nvml.c fake_nvml_scenario.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fake_nvml_reset(int count);
int fake_nvml_set(int dev, const char *field, long long value);
int fake_nvml_add_process(int dev, unsigned int pid, unsigned long long usedBytes);
void fake_nvml_grow_energy(int on);

__attribute__((constructor)) static void fake_nvml_scenario(void) {
  const char *lost = getenv("FAKE_NVML_LOST");
  if (lost == NULL) {
    return; /* the fake configures itself from the environment on the first nvmlInit */
  }
  const char *n = getenv("FAKE_NVML_DEVICE_COUNT");
  int count = n ? atoi(n) : 2;
  fake_nvml_reset(count);
  const char *procs = getenv("FAKE_NVML_PROCESSES");
  if (procs != NULL) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", procs);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
      unsigned int pid = 0, gpu = 0;
      unsigned long long bytes = 0;
      if (sscanf(tok, "%u:%u:%llu", &pid, &gpu, &bytes) == 3 && (int) gpu < count) {
        fake_nvml_add_process((int) gpu, pid, bytes);
      }
    }
  }
  fake_nvml_set(atoi(lost), "lost", 1);
  const char *grows = getenv("FAKE_NVML_ENERGY_GROWS");
  if (grows != NULL && atoi(grows) == 1) {
    fake_nvml_grow_energy(1);
  }
  const char *faulty = getenv("FAKE_NVML_FAULTY");
  if (faulty != NULL) {
    int gpu = atoi(faulty);
    fake_nvml_set(gpu, "remap.failed", 1);
    fake_nvml_set(gpu, "remap.pending", 1);
    fake_nvml_set(gpu, "remap.uncorrectable", 1);
    fake_nvml_set(gpu, "nvlink.count", 2);
    fake_nvml_set(gpu, "fault.rate", 10);
  }
}
