#!/bin/bash
# Builds every libFuzzer target (clang, ASan+UBSan; in BUILD_DIR) and runs each for
# SECONDS (default 60), as many at once as the machine has cores: the ONNX loader, the tensor
# file readers (.npy, TensorProto .pb), the compiled-model (.oge) reader and one target per
# option-file parser.
# Fails on any crash, leak, sanitizer report, timeout or out-of-memory; the input that caused it
# is left in BUILD_DIR/fuzz_artifacts/<target>/ and the target's log is printed.
#
# Usage: tests/fuzz/run_fuzz.sh [SECONDS] [BUILD_DIR] [TARGET ...]
#        (BUILD_DIR defaults to build-fuzz; no TARGET: all of them)
set -euo pipefail

seconds=${1:-60}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$root/build-fuzz}
shift $(($# < 2 ? $# : 2))
python=${OPENGE_PYTHON:-/usr/bin/python3}
jobs=${FUZZ_JOBS:-$(nproc)}

# target  binary (under BUILD_DIR)  libFuzzer memory limit (MB)  max input length (0: libFuzzer's)
targets_table="
fuzz_onnx_loader        tests/fuzz/fuzz_onnx_loader                    4096 0
fuzz_tensor_readers     tests/fuzz/fuzz_tensor_readers                 4096 0
fuzz_oge_reader         tests/fuzz/fuzz_oge_reader                     4096 0
fuzz_options_file       tests/fuzz/options_fuzz/fuzz_options_file      2048 65536
fuzz_profiling_options  tests/fuzz/options_fuzz/fuzz_profiling_options 2048 65536
fuzz_modify_mixlist     tests/fuzz/options_fuzz/fuzz_modify_mixlist    2048 65536
fuzz_customize_dtypes   tests/fuzz/options_fuzz/fuzz_customize_dtypes  2048 65536
fuzz_fusion_switch      tests/fuzz/options_fuzz/fuzz_fusion_switch     2048 65536
fuzz_op_precision_ini   tests/fuzz/options_fuzz/fuzz_op_precision_ini  2048 65536
fuzz_op_debug_config    tests/fuzz/options_fuzz/fuzz_op_debug_config   2048 65536
fuzz_aoe_config         tests/fuzz/options_fuzz/fuzz_aoe_config        2048 65536
fuzz_op_cache_ini       tests/fuzz/options_fuzz/fuzz_op_cache_ini      2048 65536
"
selected=("$@")
if [ ${#selected[@]} -eq 0 ]; then
  mapfile -t selected < <(awk 'NF {print $1}' <<<"$targets_table")
fi
for name in "${selected[@]}"; do
  if ! awk -v t="$name" '$1 == t {found = 1} END {exit !found}' <<<"$targets_table"; then
    echo "run_fuzz.sh: no target named '$name'; the targets: $(awk 'NF {printf "%s ", $1}' <<<"$targets_table")" >&2
    exit 2
  fi
done

# A tree that already builds the fuzzers (./test.sh's ASan tree) is used as it is; otherwise a
# fuzz-only tree is configured.
if ! grep -qx 'OPENGE_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENGE_FUZZ=ON -DOPENGE_TESTS=OFF >/dev/null
fi
ninja -C "$build" fuzz_targets

# Seeds (read-only input; new inputs a target finds go to its corpus, kept between runs).
seeds=$build/fuzz_seeds
rm -rf "$seeds"
"$python" "$root/tests/fuzz/make_hostile_models.py" --seeds "$seeds/fuzz_onnx_loader"
"$python" "$root/tests/fuzz/make_tensor_seeds.py" --seeds "$seeds/fuzz_tensor_readers"
"$python" "$root/tests/fuzz/make_oge_seeds.py" --seeds "$seeds/fuzz_oge_reader"
"$root/tests/options_fuzz/make_seeds.sh" "$seeds/options"
mv "$seeds"/options/* "$seeds"/ && rmdir "$seeds/options"

logs=$build/fuzz_logs
mkdir -p "$logs"
# run_target NAME: fuzzes one target for $seconds; its output goes to $logs/NAME.log.
run_target() {
  local name=$1 binary rss max_len
  read -r _ binary rss max_len < <(awk -v t="$name" '$1 == t' <<<"$targets_table")
  local corpus=$build/fuzz_corpus/$name artifacts=$build/fuzz_artifacts/$name
  mkdir -p "$corpus" "$artifacts"
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb="$rss" -print_final_stats=1
              -artifact_prefix="$artifacts/")
  [ "$max_len" != 0 ] && args+=(-max_len="$max_len")
  "$build/$binary" "${args[@]}" "$corpus" "$seeds/$name" >"$logs/$name.log" 2>&1
}

# A pool of $jobs targets at a time: libFuzzer is single-threaded, so the cores run side by side.
declare -A running=()
failed=()
reap_one() {
  local pid
  wait -n -p pid "${!running[@]}" && status=0 || status=$?
  local name=${running[$pid]}
  unset "running[$pid]"
  if [ "$status" -eq 0 ]; then
    echo "fuzzed $name for ${seconds}s: $(ls "$seeds/$name" | wc -l) seeds, no crash"
  else
    failed+=("$name")
    echo "run_fuzz.sh: $name failed (exit $status); its log:" >&2
    tail -n 60 "$logs/$name.log" >&2
    echo "reproducer(s) in $build/fuzz_artifacts/$name/: $(ls -1 "$build/fuzz_artifacts/$name" | tr '\n' ' ')" >&2
    echo "replay one with: $build/$(awk -v t="$name" '$1 == t {print $2}' <<<"$targets_table") <file>" >&2
  fi
}
echo "fuzzing ${#selected[@]} targets for ${seconds}s each, $jobs at a time"
for name in "${selected[@]}"; do
  while [ ${#running[@]} -ge "$jobs" ]; do reap_one; done
  run_target "$name" &
  running[$!]=$name
done
while [ ${#running[@]} -gt 0 ]; do reap_one; done

if [ ${#failed[@]} -gt 0 ]; then
  echo "run_fuzz.sh: failed: ${failed[*]}" >&2
  exit 1
fi
echo "run_fuzz.sh: no crash in ${seconds}s per target (${#selected[@]} targets)"
