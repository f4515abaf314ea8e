package dev.gputop.nvml.internal.jna;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The JNA layouts match nvml.h's sizes (NVML.md section 4) and the raw offsets in {@link Layouts}. */
class NvmlStructsTest {

  @Test
  void size_matchesNvmlHeader() {
    assertThat(new NvmlStructs.PciInfo().size()).isEqualTo(68).isEqualTo(Layouts.PCI_INFO_SIZE);
    assertThat(new NvmlStructs.Memory().size()).isEqualTo(24).isEqualTo(Layouts.MEMORY_SIZE);
    assertThat(new NvmlStructs.MemoryV2().size()).isEqualTo(40).isEqualTo(Layouts.MEMORY_V2_SIZE);
    assertThat(new NvmlStructs.Utilization().size()).isEqualTo(8);
    assertThat(new NvmlStructs.Temperature().size()).isEqualTo(12).isEqualTo(Layouts.TEMPERATURE_V1_SIZE);
    assertThat(new RawEntryStructs.ProcessInfoV1().size()).isEqualTo(16).isEqualTo(Layouts.PROCESS_INFO_V1_SIZE);
    assertThat(new RawEntryStructs.ProcessInfoV2().size()).isEqualTo(24).isEqualTo(Layouts.PROCESS_INFO_V2_SIZE);
    assertThat(new RawEntryStructs.ProcessDetailV1().size()).isEqualTo(32).isEqualTo(Layouts.PROCESS_DETAIL_V1_SIZE);
    assertThat(new RawEntryStructs.ProcessUtilizationSample().size()).isEqualTo(32).isEqualTo(Layouts.PROCESS_SAMPLE_SIZE);
    assertThat(new NvmlStructs.FieldValue().size()).isEqualTo(40).isEqualTo(Layouts.FIELD_VALUE_SIZE);
  }

  @Test
  void eventData_matchesNvmlHeaderV2AndV1Prefix() {
    NvmlStructs.EventData e = new NvmlStructs.EventData();
    assertThat(e.size()).isEqualTo(32).isEqualTo(Layouts.EVENT_DATA_SIZE);
    assertThat(e.offsetOf("device")).isZero();
    assertThat(e.offsetOf("eventType")).isEqualTo(8);
    assertThat(e.offsetOf("eventData")).isEqualTo(16);
    // nvmlEventSetWait (v1) writes only the first 24 bytes: the instance ids come after them.
    assertThat(e.offsetOf("gpuInstanceId")).isEqualTo(Layouts.EVENT_DATA_V1_SIZE);
    assertThat(e.offsetOf("computeInstanceId")).isEqualTo(28);
  }

  @Test
  void offsetOf_matchesRawOffsets() {
    NvmlStructs.PciInfo pci = new NvmlStructs.PciInfo();
    assertThat(pci.offsetOf("busIdLegacy")).isEqualTo(Layouts.PCI_BUS_ID_LEGACY);
    assertThat(pci.offsetOf("busId")).isEqualTo(Layouts.PCI_BUS_ID);

    NvmlStructs.Memory v1 = new NvmlStructs.Memory();
    assertThat(v1.offsetOf("total")).isEqualTo(Layouts.MEMORY_TOTAL);
    assertThat(v1.offsetOf("free")).isEqualTo(Layouts.MEMORY_FREE);
    assertThat(v1.offsetOf("used")).isEqualTo(Layouts.MEMORY_USED);

    NvmlStructs.MemoryV2 v2 = new NvmlStructs.MemoryV2();
    assertThat(v2.offsetOf("total")).isEqualTo(Layouts.MEMORY_V2_TOTAL);
    assertThat(v2.offsetOf("reserved")).isEqualTo(Layouts.MEMORY_V2_RESERVED);
    assertThat(v2.offsetOf("free")).isEqualTo(Layouts.MEMORY_V2_FREE);
    assertThat(v2.offsetOf("used")).isEqualTo(Layouts.MEMORY_V2_USED);
    assertThat(Layouts.MEMORY_V2_VERSION).isEqualTo(v2.size() | 2 << 24);

    NvmlStructs.Utilization util = new NvmlStructs.Utilization();
    assertThat(util.offsetOf("gpu")).isEqualTo(Layouts.UTILIZATION_GPU);
    assertThat(util.offsetOf("memory")).isEqualTo(Layouts.UTILIZATION_MEMORY);

    NvmlStructs.Temperature temp = new NvmlStructs.Temperature();
    assertThat(temp.offsetOf("sensorType")).isEqualTo(Layouts.TEMPERATURE_SENSOR);
    assertThat(temp.offsetOf("temperature")).isEqualTo(Layouts.TEMPERATURE_VALUE);
    assertThat(Layouts.TEMPERATURE_V1_VERSION).isEqualTo(temp.size() | 1 << 24);

    for (NvmlStructs.Inspectable process :
        new NvmlStructs.Inspectable[] {
          new RawEntryStructs.ProcessInfoV1(), new RawEntryStructs.ProcessInfoV2(), new RawEntryStructs.ProcessDetailV1()
        }) {
      assertThat(process.offsetOf("pid")).isEqualTo(Layouts.PROCESS_PID);
      assertThat(process.offsetOf("usedGpuMemory")).isEqualTo(Layouts.PROCESS_USED_MEMORY);
    }
    RawEntryStructs.ProcessDetailV1 detail = new RawEntryStructs.ProcessDetailV1();
    assertThat(detail.offsetOf("gpuInstanceId")).isEqualTo(Layouts.PROCESS_GPU_INSTANCE_ID);
    assertThat(detail.offsetOf("computeInstanceId")).isEqualTo(Layouts.PROCESS_COMPUTE_INSTANCE_ID);
    assertThat(detail.offsetOf("usedGpuCcProtectedMemory")).isEqualTo(24);

    RawEntryStructs.ProcessUtilizationSample sample = new RawEntryStructs.ProcessUtilizationSample();
    assertThat(sample.offsetOf("pid")).isEqualTo(Layouts.PROCESS_SAMPLE_PID);
    assertThat(sample.offsetOf("timeStamp")).isEqualTo(Layouts.PROCESS_SAMPLE_TIMESTAMP);
    assertThat(sample.offsetOf("smUtil")).isEqualTo(Layouts.PROCESS_SAMPLE_SM);
    assertThat(sample.offsetOf("memUtil")).isEqualTo(Layouts.PROCESS_SAMPLE_MEM);

    NvmlStructs.FieldValue field = new NvmlStructs.FieldValue();
    assertThat(field.offsetOf("fieldId")).isEqualTo(Layouts.FIELD_VALUE_ID);
    assertThat(field.offsetOf("scopeId")).isEqualTo(Layouts.FIELD_VALUE_SCOPE);
    assertThat(field.offsetOf("valueType")).isEqualTo(Layouts.FIELD_VALUE_TYPE);
    assertThat(field.offsetOf("nvmlReturn")).isEqualTo(Layouts.FIELD_VALUE_RETURN);
    assertThat(field.offsetOf("value")).isEqualTo(Layouts.FIELD_VALUE_VALUE);
  }
}
