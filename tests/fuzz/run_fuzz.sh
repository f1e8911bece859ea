#!/bin/bash
# Builds the libFuzzer target for the ONNX loader (clang, ASan+UBSan) in its own build dir and
# runs it for SECONDS (default 60) from a seed corpus of valid and hand-made invalid models.
# Fails on any crash, leak, sanitizer report, timeout or out-of-memory; the input that caused it
# is left in BUILD_DIR/fuzz_artifacts/.
#
# Usage: tests/fuzz/run_fuzz.sh [SECONDS] [BUILD_DIR]      (BUILD_DIR defaults to build-fuzz)
set -euo pipefail

seconds=${1:-60}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$root/build-fuzz}
python=${OPENGE_PYTHON:-/usr/bin/python3}

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENGE_FUZZ=ON -DOPENGE_TESTS=OFF >/dev/null
ninja -C "$build" fuzz_onnx_loader

seeds=$build/fuzz_seeds
corpus=$build/fuzz_corpus
artifacts=$build/fuzz_artifacts
rm -rf "$seeds"
"$python" "$root/tests/fuzz/make_hostile_models.py" --seeds "$seeds"
mkdir -p "$corpus" "$artifacts"

echo "fuzzing the ONNX loader for ${seconds}s (seeds: $(ls "$seeds" | wc -l) files)"
# New inputs go to $corpus (kept between runs); $seeds is read-only input.
status=0
"$build/tests/fuzz/fuzz_onnx_loader" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$seeds" || status=$?
if [ "$status" -ne 0 ]; then
  echo "run_fuzz.sh: the loader fuzzer failed (exit $status); reproducer(s):" >&2
  ls -1 "$artifacts" >&2 || true
  echo "replay one with: $build/tests/fuzz/fuzz_onnx_loader $artifacts/<file>" >&2
  exit 1
fi
echo "run_fuzz.sh: no crash in ${seconds}s"
