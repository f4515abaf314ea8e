package dev.gputop.inference.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CgroupIdsTest {

  static final String ID = "713a77a26fe2f3b4b0e0fa1a2b2c3d4e5f60718293a4b5c6d7e8f9001122733c";
  static final String UID = "4415fd05-2c0f-4533-909b-f2180dca8d7c";
  static final String UID_ = UID.replace('-', '_');

  @Test
  void parse_dockerCgroupfsV1() {
    CgroupIds ids = CgroupIds.parse("12:memory:/docker/" + ID + "\n11:cpu,cpuacct:/docker/" + ID + "\n");
    assertThat(ids.containerId()).isEqualTo(ID);
    assertThat(ids.podUid()).isNull();
  }

  @Test
  void parse_dockerSystemdV2() {
    assertThat(CgroupIds.parse("0::/system.slice/docker-" + ID + ".scope\n").containerId()).isEqualTo(ID);
  }

  @Test
  void parse_containerdSystemdV1_verifiedLayout() {
    CgroupIds ids = CgroupIds.parse(
        "11:perf_event:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + UID_
            + ".slice/cri-containerd-" + ID + ".scope\n");
    assertThat(ids).isEqualTo(new CgroupIds(ID, UID));
  }

  @Test
  void parse_containerdSlicePrefixIdForm() {
    CgroupIds ids = CgroupIds.parse(
        "11:devices:/system.slice/containerd.service/kubepods-pod" + UID_ + ".slice:cri-containerd:" + ID + "\n");
    assertThat(ids).isEqualTo(new CgroupIds(ID, UID));
  }

  @Test
  void parse_crioV2AndConmon() {
    String base = "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + UID_ + ".slice/";
    assertThat(CgroupIds.parse(base + "crio-" + ID + ".scope\n")).isEqualTo(new CgroupIds(ID, UID));
    // conmon is CRI-O's monitor, not the container: only the pod is known.
    assertThat(CgroupIds.parse(base + "crio-conmon-" + ID + ".scope\n")).isEqualTo(new CgroupIds(null, UID));
    assertThat(CgroupIds.parse("9:pids:/kubepods/crio-" + ID + ".stuff\n").containerId()).isEqualTo(ID);
  }

  @Test
  void parse_cgroupfsKubepodsWithDashedUid() {
    CgroupIds ids = CgroupIds.parse("4:cpu:/kubepods/burstable/pod" + UID + "/" + ID + "\n");
    assertThat(ids).isEqualTo(new CgroupIds(ID, UID));
  }

  @Test
  void parse_privateCgroupNamespaceRelativePath() {
    CgroupIds ids = CgroupIds.parse(
        "0::/../../kubepods-besteffort-pod" + UID_ + ".slice/cri-containerd-" + ID + ".scope\n");
    assertThat(ids).isEqualTo(new CgroupIds(ID, UID));
  }

  @Test
  void parse_hybridTakesFirstMatchAcrossLines() {
    CgroupIds ids = CgroupIds.parse(
        "12:rdma:/\n11:memory:/kubepods/pod" + UID + "/" + ID + "\n0::/\n");
    assertThat(ids.containerId()).isEqualTo(ID);
  }

  @Test
  void parse_podman() {
    assertThat(CgroupIds.parse("0::/machine.slice/libpod-" + ID + ".scope/container\n").containerId()).isEqualTo(ID);
    assertThat(CgroupIds.parse(
        "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" + ID + ".scope/container\n").containerId())
        .isEqualTo(ID);
  }

  @Test
  void parse_hostProcessesHaveNone() {
    assertThat(CgroupIds.parse("0::/user.slice/user-1000.slice/session-4.scope\n")).isSameAs(CgroupIds.NONE);
    assertThat(CgroupIds.parse("1:name=systemd:/user.slice/user-1000.slice/session-4.scope\n")).isSameAs(CgroupIds.NONE);
    assertThat(CgroupIds.parse("0::/system.slice/vllm.service\n")).isSameAs(CgroupIds.NONE);
    assertThat(CgroupIds.parse("0::/\n")).isSameAs(CgroupIds.NONE);
    assertThat(CgroupIds.parse("garbage")).isSameAs(CgroupIds.NONE);
    assertThat(CgroupIds.parse(null)).isSameAs(CgroupIds.NONE);
  }
}
