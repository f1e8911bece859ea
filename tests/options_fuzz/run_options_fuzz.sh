#!/bin/bash
# Builds the option-parser fuzzers (clang, ASan+UBSan) and runs each for SECONDS (default 60)
# from a small seed corpus of the spec's own samples. Fails on any crash or sanitizer report;
# reproducers are left in BUILD_DIR/options_fuzz_artifacts/.
#
# Usage: tests/options_fuzz/run_options_fuzz.sh [SECONDS] [BUILD_DIR]   (BUILD_DIR defaults to build-fuzz)
set -euo pipefail

seconds=${1:-60}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$root/build-fuzz}

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENGE_FUZZ=ON -DOPENGE_TESTS=OFF >/dev/null
ninja -C "$build" options_fuzzers

seeds=$build/options_fuzz_seeds
artifacts=$build/options_fuzz_artifacts
rm -rf "$seeds"
mkdir -p "$seeds"/{fuzz_options_file,fuzz_profiling_options,fuzz_modify_mixlist,fuzz_customize_dtypes,fuzz_fusion_switch,fuzz_op_precision_ini,fuzz_op_debug_config,fuzz_aoe_config,fuzz_op_cache_ini} "$artifacts"
printf '%s\n' 'npu.global_options().precision_mode="allow_mix_precision"' 'npu.global_options().dump_config.enable_dump=True' > "$seeds/fuzz_options_file/lines"
printf '%s' '{"precision_mode":"allow_mix_precision","dump_config":{"enable_dump":true,"dump_path":"/tmp"}}' > "$seeds/fuzz_options_file/json"
printf '%s' '{"output":"/tmp/profiling","storage_limit": "200MB","training_trace":"on","aic_metrics":"Custom:0x49,0x8","instr_profiling_freq":300}' > "$seeds/fuzz_profiling_options/s3"
printf '%s' '{"black-list":{"to-remove":["Xlog1py"], // c
"to-add":["Matmul","Cast"]},"white-list":{"to-remove":["Conv2D"],"to-add":["Bias"]}}' > "$seeds/fuzz_modify_mixlist/sample"
printf '%s\n' '# c' 'Op1::InputDtype:float16,int8,OutputDtype:float16,int8' 'OpType::Relu:InputDtype:float16,int8OutputDtype:float16' > "$seeds/fuzz_customize_dtypes/sample"
printf '%s' '{"Switch":{"GraphFusion":{"ALL":"off","SoftmaxFusionPass":"on"},"UBFusion":{"TbePool2dQuantFusionPass":"on"}}}' > "$seeds/fuzz_fusion_switch/sample"
printf '%s\n' '[ByOpType]' 'optype1=high_precision' '[ByNodeName]' 'nodename1=support_out_of_bound_index' > "$seeds/fuzz_op_precision_ini/sample"
printf '%s\n' 'op_debug_config = ccec_O0,ccec_g,oom' > "$seeds/fuzz_op_debug_config/sample"
printf '%s\n' '{' '"tune_ops_name":["a","loss/MatMul"],' '"tune_ops_type":["Add", "Mul"]' '"tune_optimization_level":"O1",' '"feature":["deeper_opat"]' '}' > "$seeds/fuzz_aoe_config/sample"
printf '%s\n' '[op_compiler_cache]' 'ascend_max_op_cache_size=500' 'ascend_remain_cache_size_ratio=80' > "$seeds/fuzz_op_cache_ini/sample"

status=0
for dir in "$seeds"/*; do
  target=$(basename "$dir")
  corpus=$build/options_fuzz_corpus/$target
  mkdir -p "$corpus"
  echo "fuzzing $target for ${seconds}s"
  "$build/tests/fuzz/options_fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$artifacts/$target-" "$corpus" "$dir" >"$build/$target.log" 2>&1 || {
    echo "run_options_fuzz.sh: $target failed; see $build/$target.log and $artifacts/" >&2
    status=1
  }
done
[ "$status" -eq 0 ] && echo "run_options_fuzz.sh: no crash in ${seconds}s per parser"
exit $status
