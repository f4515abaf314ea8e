#!/usr/bin/env bash
# gpu-check.sh: compares what gputop-agent reads through NVML with what nvidia-smi says, on a
# machine with an NVIDIA GPU, and prints a pass/fail table. Exit 0 when every check passes,
# 1 when one fails, 2 when either tool could not run.
#
# Needs bash, awk and nvidia-smi; Java is taken from the bundle (see scripts/build-gpu-bundle.sh)
# so the machine needs neither Java nor a network. Usage, from the unpacked bundle:
#   ./gpu-check.sh                       # runtime/bin/java -jar gputop-agent.jar gpus --json
#   ./gpu-check.sh --config agent.yaml   # e.g. to set nvml.library
# Environment: JAVA (default: runtime/bin/java beside this script, else java on PATH),
# AGENT_JAR (default: gputop-agent.jar beside this script, else agent/target/gputop-agent.jar),
# NVIDIA_SMI (default: nvidia-smi), KEEP_DIR (keep the raw outputs there).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
config_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --config) config_args=(--config "$2"); shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

java_bin="${JAVA:-}"
if [ -z "$java_bin" ]; then
  if [ -x "$here/runtime/bin/java" ]; then java_bin="$here/runtime/bin/java"; else java_bin="java"; fi
fi
jar="${AGENT_JAR:-}"
if [ -z "$jar" ]; then
  if [ -f "$here/gputop-agent.jar" ]; then jar="$here/gputop-agent.jar"; else jar="$here/../agent/target/gputop-agent.jar"; fi
fi
smi="${NVIDIA_SMI:-nvidia-smi}"

work="${KEEP_DIR:-$(mktemp -d)}"
mkdir -p "$work"
[ -n "${KEEP_DIR:-}" ] || trap 'rm -rf "$work"' EXIT

gpu_fields="index,name,uuid,pci.bus_id,memory.total,memory.used,power.draw,temperature.gpu,utilization.gpu"
# The fault counters (remapped rows, retired pages, PCIe replays) as `nvidia-smi -q` prints them,
# read before the agent so a counter that moves can only be higher in the agent's read.
if ! "$smi" -q >"$work/smi-q.txt" 2>"$work/smi.err"; then
  echo "nvidia-smi -q failed: $(cat "$work/smi.err")" >&2; exit 2
fi
# One line per GPU: busId|replays|remapCorrectable|remapUncorrectable|remapPending|remapFailed|
# retiredSingleBit|retiredDoubleBit|retiredPending ("" where -q has no such line).
awk '
  function trim(s) { gsub(/^[ \t]+|[ \t\r]+$/, "", s); return s }
  function flush() { if (bus != "") print bus "|" v["replays"] "|" v["rc"] "|" v["ru"] "|" v["rp"] "|" v["rf"] "|" v["ps"] "|" v["pd"] "|" v["pp"] }
  /^GPU [0-9A-Fa-f]+:/ { flush(); bus = $2; split("", v); section = ""; next }
  bus == "" { next }
  index($0, " : ") == 0 { t = trim($0); if (t != "") { match($0, /^ */); if (RLENGTH <= 4) section = t }; next }
  {
    k = trim(substr($0, 1, index($0, " : ") - 1)); val = trim(substr($0, index($0, " : ") + 3))
    if (section == "PCI" && k == "Replays Since Reset") v["replays"] = val
    if (section == "Remapped Rows") {
      if (k == "Correctable Error") v["rc"] = val
      if (k == "Uncorrectable Error") v["ru"] = val
      if (k == "Pending") v["rp"] = val
      if (k == "Remapping Failure Occurred") v["rf"] = val
    }
    if (section == "Retired Pages") {
      if (k ~ /^Single Bit ECC/) v["ps"] = val
      if (k ~ /^Double Bit ECC/) v["pd"] = val
      if (k ~ /^Pending/) v["pp"] = val
    }
  }
  END { flush() }' "$work/smi-q.txt" >"$work/smi-faults.txt"
if ! "$smi" --query-gpu="$gpu_fields" --format=csv,noheader,nounits >"$work/smi-gpus.csv" 2>"$work/smi.err"; then
  echo "nvidia-smi --query-gpu failed: $(cat "$work/smi.err")" >&2; exit 2
fi
if ! "$java_bin" -jar "$jar" gpus --json ${config_args[@]+"${config_args[@]}"} >"$work/agent.json" 2>"$work/agent.err"; then
  echo "gputop-agent gpus --json failed: $(cat "$work/agent.err")" >&2; exit 2
fi
if ! "$smi" --query-compute-apps=gpu_uuid,pid,used_memory --format=csv,noheader,nounits >"$work/smi-apps.csv" 2>"$work/smi.err"; then
  echo "nvidia-smi --query-compute-apps failed: $(cat "$work/smi.err")" >&2; exit 2
fi

# JSON to "path=value" lines (gpus.0.uuid=GPU-...), in POSIX awk: the bundle has no jq or python.
awk '
  { buf = buf $0 "\n" }
  function emit(v,   p, d) {
    p = ""
    for (d = 1; d <= depth; d++) p = p (d > 1 ? "." : "") key[d]
    print p "=" v
  }
  END {
    n = length(buf); i = 1; depth = 0
    while (i <= n) {
      c = substr(buf, i, 1)
      if (c == "{") { depth++; type[depth] = "o"; key[depth] = ""; expect[depth] = 1; i++; continue }
      if (c == "[") { depth++; type[depth] = "a"; idx[depth] = 0; key[depth] = "0"; i++; continue }
      if (c == "}" || c == "]") { depth--; i++; continue }
      if (c == ",") {
        if (type[depth] == "a") { idx[depth]++; key[depth] = idx[depth] } else { expect[depth] = 1 }
        i++; continue
      }
      if (c == ":") { expect[depth] = 0; i++; continue }
      if (c == " " || c == "\t" || c == "\r" || c == "\n") { i++; continue }
      if (c == "\"") {
        s = ""; i++
        while (i <= n) {
          c = substr(buf, i, 1)
          if (c == "\\") { s = s substr(buf, i + 1, 1); i += 2; continue }
          if (c == "\"") break
          s = s c; i++
        }
        i++
        if (type[depth] == "o" && expect[depth]) { key[depth] = s; continue }
        emit(s); continue
      }
      s = ""
      while (i <= n) {
        c = substr(buf, i, 1)
        if (c == "," || c == "}" || c == "]" || c == " " || c == "\n" || c == "\r" || c == "\t") break
        s = s c; i++
      }
      emit(s)
    }
  }' "$work/agent.json" >"$work/agent.flat"

# Compare. Tolerances allow for the values moving between the two reads.
awk -v FLAT="$work/agent.flat" -v GPUS="$work/smi-gpus.csv" -v APPS="$work/smi-apps.csv" -v FAULTS="$work/smi-faults.txt" '
  function trim(s) { gsub(/^[ \t]+|[ \t\r]+$/, "", s); return s }
  function na(v) { return v == "" || v == "null" || v ~ /^\[/ || v == "N/A" }
  function abs(x) { return x < 0 ? -x : x }
  # nvidia-smi -q says Yes/No where the agent says true/false.
  function yesno(v) { return v == "true" ? "Yes" : v == "false" ? "No" : v }
  function same(check, gpu, smi, agent) {
    if (na(smi) && na(agent)) { row(check, gpu, "N/A", "N/A", 1); return }
    row(check, gpu, na(smi) ? "N/A" : smi, na(agent) ? "N/A" : agent, smi == agent)
  }
  # A counter that may grow between the two reads: the agent read second, so it may be a little higher.
  function grown(check, gpu, smi, agent, slack) {
    if (na(smi) && na(agent)) { row(check, gpu, "N/A", "N/A", 1); return }
    if (na(smi) || na(agent)) { row(check, gpu, na(smi) ? "N/A" : smi, na(agent) ? "N/A" : agent, 0); return }
    row(check, gpu, smi, agent " (+0.." slack ")", agent - smi >= 0 && agent - smi <= slack)
  }
  function row(check, gpu, smi, agent, ok) {
    printf "%-22s %-5s %-44s %-44s %s\n", check, gpu, substr(smi, 1, 44), substr(agent, 1, 44), ok ? "PASS" : "FAIL"
    if (!ok) failed++
    total++
  }
  function near(check, gpu, smi, agent, tol, unit,   ok) {
    if (na(smi) && na(agent)) { row(check, gpu, "N/A", "N/A", 1); return }
    if (na(smi) || na(agent)) { row(check, gpu, na(smi) ? "N/A" : smi unit, na(agent) ? "N/A" : agent unit, 0); return }
    ok = abs(smi - agent) <= tol
    row(check, gpu, smi unit, sprintf("%.2f", agent) unit " (+-" tol ")", ok)
  }
  BEGIN {
    while ((getline line < FLAT) > 0) {
      eq = index(line, "="); flat[substr(line, 1, eq - 1)] = substr(line, eq + 1)
    }
    agentGpus = 0
    for (g = 0; ("gpus." g ".index") in flat; g++) {
      u = flat["gpus." g ".uuid"]
      parent = flat["gpus." g ".parentUuid"]
      physical = na(parent)
      if (physical) { agentGpus++; byUuid[u] = g }
      owner = physical ? u : parent   # nvidia-smi lists MIG processes under the GPU
      for (p = 0; ("gpus." g ".processes." p ".pid") in flat; p++) {
        k = owner "/" flat["gpus." g ".processes." p ".pid"]
        agentProc[k] = flat["gpus." g ".processes." p ".usedMemoryBytes"]
      }
    }
    printf "%-22s %-5s %-44s %-44s %s\n", "CHECK", "GPU", "NVIDIA-SMI", "GPUTOP-AGENT", "RESULT"
    smiGpus = 0
    while ((getline line < GPUS) > 0) {
      if (trim(line) == "") continue
      n = split(line, f, ",")
      for (k = 1; k <= n; k++) f[k] = trim(f[k])
      smiGpus++
      idx = f[1]; uuid = f[3]
      if (!(uuid in byUuid)) { row("uuid", idx, uuid, "missing", 0); continue }
      g = byUuid[uuid]
      row("uuid", idx, uuid, flat["gpus." g ".uuid"], 1)
      row("index", idx, idx, flat["gpus." g ".index"], idx == flat["gpus." g ".index"])
      row("name", idx, f[2], flat["gpus." g ".name"], f[2] == flat["gpus." g ".name"])
      row("pci bus id", idx, f[4], flat["gpus." g ".pciBusId"], toupper(f[4]) == toupper(flat["gpus." g ".pciBusId"]))
      total_mib = flat["gpus." g ".memoryTotalBytes"]; if (!na(total_mib)) total_mib = total_mib / 1048576
      near("memory total", idx, f[5], total_mib, 1, " MiB")
      used_mib = flat["gpus." g ".memoryUsedBytes"]; if (!na(used_mib)) used_mib = used_mib / 1048576
      # tight enough to catch memory v1 "used" (which adds the driver-reserved part, ~500 MiB on an H100)
      tol = na(f[5]) ? 128 : 128 + int(f[5] * 0.001)
      near("memory used", idx, f[6], used_mib, tol, " MiB")
      ptol = na(f[7]) ? 10 : (f[7] * 0.15 > 15 ? int(f[7] * 0.15) : 15)
      near("power", idx, f[7], flat["gpus." g ".powerWatts"], ptol, " W")
      near("temperature", idx, f[8], flat["gpus." g ".temperatureCelsius"], 3, " C")
      util = flat["gpus." g ".utilization"]; if (!na(util)) util = util * 100
      near("utilization", idx, f[9], util, 25, " %")
      state = flat["gpus." g ".state"]
      row("state", idx, "ok", state, state == "ok")
    }
    row("device count", "-", smiGpus, agentGpus, smiGpus == agentGpus)
    # GPU faults, matched by PCI bus id (nvidia-smi -q names GPUs by it).
    for (g = 0; ("gpus." g ".index") in flat; g++) {
      if (na(flat["gpus." g ".parentUuid"])) byBus[toupper(flat["gpus." g ".pciBusId"])] = g
    }
    while ((getline line < FAULTS) > 0) {
      n = split(line, f, "|")
      if (!(toupper(f[1]) in byBus)) { row("faults", "?", f[1], "missing", 0); continue }
      g = byBus[toupper(f[1])]; idx = flat["gpus." g ".index"]; p = "gpus." g "."
      grown("pcie replays", idx, f[2], flat[p "pcieReplays"], 10)
      same("remapped correctable", idx, f[3], flat[p "remappedRows.correctable"])
      same("remapped uncorrectable", idx, f[4], flat[p "remappedRows.uncorrectable"])
      same("remap pending", idx, f[5], yesno(flat[p "remappedRows.pending"]))
      same("remap failed", idx, f[6], yesno(flat[p "remappedRows.failed"]))
      same("retired single-bit", idx, f[7], flat[p "retiredPages.singleBit"])
      same("retired double-bit", idx, f[8], flat[p "retiredPages.doubleBit"])
      same("retired pending", idx, f[9], yesno(flat[p "retiredPages.pending"]))
    }
    smiProcs = 0
    while ((getline line < APPS) > 0) {
      if (trim(line) == "" || line ~ /No running/) continue
      n = split(line, f, ",")
      for (k = 1; k <= n; k++) f[k] = trim(f[k])
      smiProcs++
      k = f[1] "/" f[2]
      gi = (f[1] in byUuid) ? flat["gpus." byUuid[f[1]] ".index"] : "?"
      if (!(k in agentProc)) { row("process " f[2], gi, f[3] " MiB", "missing", 0); continue }
      seen[k] = 1
      mem = agentProc[k]; if (!na(mem)) mem = mem / 1048576
      mtol = na(f[3]) ? 0 : (f[3] * 0.05 > 64 ? int(f[3] * 0.05) : 64)
      near("process " f[2] " memory", gi, f[3], mem, mtol, " MiB")
    }
    agentProcs = 0
    for (k in agentProc) {
      agentProcs++
      if (!(k in seen)) { split(k, kp, "/"); row("process " kp[2], "?", "missing", "listed", 0) }
    }
    row("process count", "-", smiProcs, agentProcs, smiProcs == agentProcs)
    printf "\n%d checks, %d failed: %s\n", total, failed, failed ? "FAIL" : "PASS"
    exit failed ? 1 : 0
  }'
