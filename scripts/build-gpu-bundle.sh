#!/usr/bin/env bash
# build-gpu-bundle.sh: packs what scripts/gpu-check.sh needs on a GPU machine that has no Java and
# no network: a jlink'ed Java runtime (only the modules jdeps finds in the shaded jar), the agent
# jar and the script, into dist/gputop-gpu-check-<os>-<arch>.tar.gz.
#
#   scripts/build-gpu-bundle.sh            # builds agent/target/gputop-agent.jar first if missing
# Then on the GPU machine:
#   tar xzf gputop-gpu-check-linux-x86_64.tar.gz && cd gputop-gpu-check && ./gpu-check.sh
#
# Needs a JDK 17+ with jmods (Debian/Ubuntu: openjdk-17-jdk-headless plus openjdk-17-jmods).
# The runtime is for the OS and architecture of the machine that builds it.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
jar="$root/agent/target/gputop-agent.jar"
out="$root/dist"
name="gputop-gpu-check"
arch="$(uname -m)"
os="$(uname -s | tr '[:upper:]' '[:lower:]')"

if [ ! -f "$jar" ]; then
  (cd "$root" && ./mvnw -B -q package -DskipTests -pl agent -am)
fi
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v jlink)")")")}"
jdeps="$java_home/bin/jdeps"
jlink="$java_home/bin/jlink"
[ -x "$jlink" ] || { echo "jlink not found under $java_home (set JAVA_HOME to a JDK)" >&2; exit 2; }

# What the jar needs, plus: jdk.unsupported (JNA and some libraries use sun.misc.Unsafe
# reflectively, which jdeps can't see), jdk.crypto.ec (TLS to an OTLP endpoint), jdk.zipfs.
modules="$("$jdeps" --ignore-missing-deps --print-module-deps --multi-release 17 "$jar")"
modules="$modules,jdk.unsupported,jdk.crypto.ec,jdk.zipfs"
echo "modules: $modules"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
bundle="$stage/$name"
mkdir -p "$bundle"
"$jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --compress=2 --output "$bundle/runtime"
cp "$jar" "$bundle/gputop-agent.jar"
cp "$root/scripts/gpu-check.sh" "$bundle/gpu-check.sh"
chmod +x "$bundle/gpu-check.sh"
cat >"$bundle/README.txt" <<EOF
gputop-agent GPU check ($os $arch)

  ./gpu-check.sh                      compare gputop-agent with nvidia-smi, print a pass/fail table
  ./gpu-check.sh --config agent.yaml  the same with a configuration (e.g. nvml.library: /path/libnvidia-ml.so.1)
  runtime/bin/java -jar gputop-agent.jar gpus          the agent's view of the GPUs

Exit codes of gpu-check.sh: 0 every check passed, 1 a check failed, 2 a tool could not run.
Set KEEP_DIR=/some/dir to keep the raw outputs (agent.json, smi-*.csv). See docs/GPU-VALIDATION.md.
EOF
mkdir -p "$out"
tarball="$out/$name-$os-$arch.tar.gz"
tar -C "$stage" -czf "$tarball" "$name"
echo "wrote $tarball ($(du -h "$tarball" | cut -f1)); runtime $(du -sh "$bundle/runtime" | cut -f1)"
