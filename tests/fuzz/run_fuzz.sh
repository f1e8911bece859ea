#!/bin/bash
# Builds the libFuzzer targets for the ONNX loader and for the tensor file readers (.npy and
# TensorProto .pb) (clang, ASan+UBSan) in their own build dir and runs each for SECONDS (default
# 60) from a seed corpus of valid and hand-made invalid files.
# Fails on any crash, leak, sanitizer report, timeout or out-of-memory; the input that caused it
# is left in BUILD_DIR/fuzz_artifacts/ (loader) or BUILD_DIR/fuzz_tensor_artifacts/ (readers).
#
# Usage: tests/fuzz/run_fuzz.sh [SECONDS] [BUILD_DIR]      (BUILD_DIR defaults to build-fuzz)
set -euo pipefail

seconds=${1:-60}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$root/build-fuzz}
python=${OPENGE_PYTHON:-/usr/bin/python3}

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENGE_FUZZ=ON -DOPENGE_TESTS=OFF >/dev/null
ninja -C "$build" fuzz_onnx_loader fuzz_tensor_readers

# run_target NAME SEED_SCRIPT CORPUS ARTIFACTS: fuzzes tests/fuzz/NAME from the seeds the script makes.
run_target() {
  local name=$1 seed_script=$2 corpus=$3 artifacts=$4
  local seeds=$build/${name}_seeds
  rm -rf "$seeds"
  "$python" "$root/tests/fuzz/$seed_script" --seeds "$seeds"
  mkdir -p "$corpus" "$artifacts"
  echo "fuzzing $name for ${seconds}s (seeds: $(ls "$seeds" | wc -l) files)"
  # New inputs go to $corpus (kept between runs); $seeds is read-only input.
  local status=0
  "$build/tests/fuzz/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$seeds" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "run_fuzz.sh: $name failed (exit $status); reproducer(s):" >&2
    ls -1 "$artifacts" >&2 || true
    echo "replay one with: $build/tests/fuzz/$name $artifacts/<file>" >&2
    exit 1
  fi
}

run_target fuzz_onnx_loader make_hostile_models.py "$build/fuzz_corpus" "$build/fuzz_artifacts"
run_target fuzz_tensor_readers make_tensor_seeds.py "$build/fuzz_tensor_corpus" "$build/fuzz_tensor_artifacts"
echo "run_fuzz.sh: no crash in ${seconds}s per target"
