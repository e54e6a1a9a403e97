#!/usr/bin/env bash
# Stoker's GPU check.
#
#   scripts/gpu-check.sh kit [DIR]     build a kit (at most 60 MiB; default DIR: gpu-check-kit/,
#                                      ignored by git) on any machine with a JDK 17 and Maven;
#                                      no GPU needed. Copy DIR to the GPU machine and run there:
#   DIR/run OUT [--device N]           run the check (needs no Java, no network); results in OUT
#   scripts/gpu-check.sh --local OUT [--device N]
#                                      build and run on this machine's GPU with its own Java
#
# The check writes OUT/gpu-check.json and OUT/gpu-check.txt. Exit status: 0 passed, 1 a check
# failed, 2 bad arguments, 3 no GPU (no driver, no device, or CUDA unusable: the first line says
# which). MAVEN_ARGS is passed to Maven (e.g. MAVEN_ARGS=-o to build offline).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JCUDA=12.0.0
PLATFORM=linux-x86_64
MODULES=java.base,java.logging,java.management,jdk.unsupported
MAX_KIT_BYTES=$((60 * 1024 * 1024))

usage() {
  sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

mvn_quiet() {
  # shellcheck disable=SC2086
  mvn -B -q -Dstyle.color=never ${MAVEN_ARGS:-} -f "$ROOT/pom.xml" "$@"
}

# build_kit DIR WITH_JRE
build_kit() {
  local dir=$1 with_jre=$2
  case "$dir" in
    ""|"/") echo "gpu-check: refusing to build a kit into '$dir'" >&2; exit 2 ;;
  esac
  echo "gpu-check: building loader-core and the tools" >&2
  mvn_quiet -pl tools -am package -DskipTests
  local deps
  deps=$(mktemp -d)
  mvn_quiet -pl loader-core dependency:copy-dependencies -DincludeScope=test \
    -DincludeArtifactIds=slf4j-api,slf4j-simple,jcuda,jcuda-natives -DoutputDirectory="$deps"

  rm -rf "$dir"
  mkdir -p "$dir/lib/native"
  # The check's classes are the tools'; they use loader-core as users do (no Spark, no connector).
  cp "$ROOT"/loader-core/target/stoker-loader-core-*.jar "$ROOT"/tools/target/stoker-tools-*.jar \
    "$dir/lib/"
  rm -f "$dir"/lib/*-sources.jar "$dir"/lib/*-tests.jar
  cp "$deps"/slf4j-api-*.jar "$deps"/slf4j-simple-*.jar "$deps/jcuda-$JCUDA.jar" "$dir/lib/"
  # Only the libraries the check loads: the runtime API (CUDA runtime linked in statically; needs
  # only the driver) and the driver API (for the PTX kernel). Not nvrtc, not the PTX compiler.
  local natives="$deps/jcuda-natives-$JCUDA-$PLATFORM.jar"
  (cd "$dir/lib/native" && unzip -q -j "$natives" \
    "lib/libJCudaRuntime-$JCUDA-$PLATFORM.so" "lib/libJCudaDriver-$JCUDA-$PLATFORM.so")
  cp "$ROOT/tools/src/main/resources/dev/stoker/tools/gpucheck/device/spin.ptx" "$dir/"
  cp "$ROOT/scripts/gpu_check_torch.py" "$dir/"
  mkdir -p "$dir/python/stoker"
  cp "$ROOT"/python/stoker/*.py "$dir/python/stoker/"
  rm -rf "$deps"
  write_run "$dir/run"
  write_readme "$dir/README.txt"

  if [ "$with_jre" = yes ]; then
    echo "gpu-check: linking a Java runtime ($MODULES)" >&2
    local jlink="${JAVA_HOME:+$JAVA_HOME/bin/}jlink"
    "$jlink" --add-modules "$MODULES" --compress=2 --strip-debug --no-header-files \
      --no-man-pages --output "$dir/jre"
  fi

  local bytes
  bytes=$(du -sb "$dir" | cut -f1)
  echo "gpu-check: kit in $dir: $((bytes / 1024 / 1024)) MiB ($bytes bytes)" >&2
  if [ "$bytes" -gt "$MAX_KIT_BYTES" ]; then
    echo "gpu-check: the kit is larger than 60 MiB" >&2
    exit 1
  fi
}

write_run() {
  cat > "$1" <<'RUN'
#!/bin/sh
# Runs Stoker's GPU check from this kit: ./run OUT [--device N]
# Results: OUT/gpu-check.json, OUT/gpu-check.txt. Exit: 0 passed, 1 failed, 2 usage, 3 no GPU.
KIT=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ]; then
  echo "usage: $0 OUT [--device N]" >&2
  exit 2
fi
if [ -n "${JAVA_HOME:-}" ]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA=java
fi
if [ -x "$KIT/jre/bin/java" ]; then
  if "$KIT/jre/bin/java" -version >/dev/null 2>&1; then
    JAVA="$KIT/jre/bin/java"
  elif ! "$JAVA" -version >/dev/null 2>&1; then
    echo "gpu-check: the kit's Java runtime does not start here (it needs glibc 2.34 or later;" \
      "this machine has: $(ldd --version 2>&1 | head -n 1)); set JAVA_HOME to a Java 17+" >&2
    exit 1
  fi
fi
"$JAVA" -Xmx6g -XX:MaxDirectMemorySize=2g -Djava.library.path="$KIT/lib/native" \
  -cp "$KIT/lib/*" dev.stoker.tools.gpucheck.GpuCheck "$@" \
  --torch-script "$KIT/gpu_check_torch.py"
status=$?
mkdir -p "$1"
# The Python package's path to the GPU (stoker.torch with device=cuda), if python3 has torch.
if [ "$status" -ne 2 ] && command -v python3 >/dev/null 2>&1; then
  DEVICE=0
  if [ "${2:-}" = "--device" ] && [ -n "${3:-}" ]; then DEVICE=$3; fi
  if python3 -c 'import numpy, torch' 2>/dev/null; then
    # Small batches (per-batch costs) and large ones (bandwidth).
    { PYTHONPATH="$KIT/python${PYTHONPATH:+:$PYTHONPATH}" python3 -m stoker.gpu_check \
        --device "cuda:$DEVICE" &&
      PYTHONPATH="$KIT/python${PYTHONPATH:+:$PYTHONPATH}" python3 -m stoker.gpu_check \
        --device "cuda:$DEVICE" --batch-size 1024 --batches 100; } | tee "$1/stoker-python.txt"
  else
    echo "stoker_python skipped=python3_has_no_numpy_or_torch" | tee "$1/stoker-python.txt"
  fi
fi
exit "$status"
RUN
  chmod +x "$1"
}

write_readme() {
  cat > "$1" <<'README'
Stoker GPU check kit

  ./run OUT [--device N]

runs, in about one to three minutes: (1) correctness of batches copied to the GPU and device and
pinned memory back to their start after close; (2) host-to-device GB/s through the loader against
raw cudaMemcpyAsync; (3) GPU busy fraction and samples/s with a synthetic step fed by the loader at
several settings; (4) the same fed by PyTorch's DataLoader, if python3 can import torch; (5) the
Python package's way to the GPU (page-locked slot file, non_blocking copy on a side stream) against
a copy from pageable memory, into OUT/stoker-python.txt, if python3 can import torch with CUDA.
Writes OUT/gpu-check.json and OUT/gpu-check.txt. Exit status: 0 passed, 1 a check failed,
2 bad arguments, 3 no GPU.

Contents: jre/ (a Java 17 runtime), lib/ (Stoker's loader-core and tools, SLF4J, JCuda 12.0.0),
lib/native/ (JCuda's runtime and driver bindings for linux-x86_64; they need the NVIDIA driver's
libcuda.so.1, for CUDA 12.0 or later), spin.ptx (the step's kernel, also inside the jar),
gpu_check_torch.py (the PyTorch peer), python/stoker (the Python package, for check 5).
README
}

case "${1:-}" in
  kit)
    build_kit "$(realpath -m "${2:-$ROOT/gpu-check-kit}")" yes
    ;;
  --local)
    [ $# -ge 2 ] || usage
    out=$2
    shift 2
    kit="$ROOT/target/gpu-check-local"
    build_kit "$kit" no
    exec "$kit/run" "$out" "$@"
    ;;
  *)
    usage
    ;;
esac
