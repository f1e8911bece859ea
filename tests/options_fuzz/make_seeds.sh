#!/bin/bash
# Writes the option-parser fuzzers' seed corpus into OUT_DIR/<target>/: the spec's own samples,
# one folder per parser (the target names of tests/options_fuzz/CMakeLists.txt).
#
# Usage: tests/options_fuzz/make_seeds.sh OUT_DIR
set -euo pipefail
seeds=$1
rm -rf "$seeds"
mkdir -p "$seeds"/{fuzz_options_file,fuzz_profiling_options,fuzz_modify_mixlist,fuzz_customize_dtypes,fuzz_fusion_switch,fuzz_op_precision_ini,fuzz_op_debug_config,fuzz_aoe_config,fuzz_op_cache_ini}
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
