// One named test per spec ID whose rule is a default or an accepted/refused value: each case
// is (ID, flags, environment, option, expected effective value or refusal). The test name is
// the ID, so `--gtest_filter='*OPT_dump_config_dump_mode_1*'` finds it.
#include <gtest/gtest.h>

#include "options_test_util.h"

namespace openge::options::test {
namespace {

struct SpecCase {
  const char* id;
  Flags flags;
  EnvMap env;
  const char* option;
  const char* expected;  // nullptr: the configuration must be refused
};

// ctest lists a parameterised test with its parameter: print the case's ID, not its bytes.
void PrintTo(const SpecCase& c, std::ostream* os) { *os << c.id; }

const SpecCase kCases[] = {
    {"OPT_graph_run_mode_3_DefaultTraining", {}, {}, "graph_run_mode", "1"},
    {"OPT_graph_run_mode_2_OnlineInference", {{"graph_run_mode", "0"}}, {}, "graph_run_mode", "0"},
    {"OPT_deterministic_2_DefaultOff", {}, {}, "deterministic", "0"},
    {"OPT_deterministic_3_On", {{"deterministic", "1"}}, {}, "deterministic", "1"},
    {"OPT_memory_config_atomic_clean_policy_2_Default", {}, {}, "memory_config.atomic_clean_policy", "0"},
    {"OPT_memory_config_atomic_clean_policy_3_Separate", {{"memory_config.atomic_clean_policy", "1"}}, {},
     "memory_config.atomic_clean_policy", "1"},
    {"OPT_memory_config_atomic_clean_policy_1_OutOfRange", {{"memory_config.atomic_clean_policy", "2"}}, {},
     "memory_config.atomic_clean_policy", nullptr},
    {"OPT_external_weight_2_DefaultFalse", {}, {}, "external_weight", "False"},
    {"OPT_external_weight_3_True", {{"external_weight", "True"}}, {}, "external_weight", "True"},
    {"OPT_memory_config_static_memory_policy_1_Default", {}, {}, "memory_config.static_memory_policy", "0"},
    {"OPT_enable_exception_dump_2_DefaultOff", {}, {}, "enable_exception_dump", "0"},
    {"OPT_enable_exception_dump_3_On", {{"enable_exception_dump", "1"}}, {}, "enable_exception_dump", "1"},
    {"OPT_enable_exception_dump_1_OutOfRange", {{"enable_exception_dump", "3"}}, {}, "enable_exception_dump", nullptr},
    {"NPU_6_CollectPathTurnsExceptionDumpOn", {}, {{"NPU_COLLECT_PATH", "/c"}}, "enable_exception_dump", "1"},
    {"OPT_debug_dir_1_Path", {{"debug_dir", "/home/test"}}, {}, "debug_dir", "/home/test"},
    {"OPT_precision_mode_1_String", {{"precision_mode", "allow_mix_precision"}}, {}, "precision_mode",
     "allow_mix_precision"},
    {"OPT_precision_mode_2_AllowFp32ToFp16", {{"precision_mode", "allow_fp32_to_fp16"}}, {}, "precision_mode",
     "allow_fp32_to_fp16"},
    {"OPT_precision_mode_9_MustKeepOriginDtype", {{"precision_mode", "must_keep_origin_dtype"}}, {}, "precision_mode",
     "must_keep_origin_dtype"},
    {"OPT_precision_mode_13_MixBf16OnA2", {{"precision_mode", "allow_mix_precision_bf16"}}, {}, "precision_mode",
     "allow_mix_precision_bf16"},
    {"OPT_precision_mode_15_Fp32ToBf16OnA2", {{"precision_mode", "allow_fp32_to_bf16"}}, {}, "precision_mode",
     "allow_fp32_to_bf16"},
    {"OPT_precision_mode_1_UnknownValue", {{"precision_mode", "fp16"}}, {}, "precision_mode", nullptr},
    {"OPT_precision_mode_v2_7_NoDefault", {}, {}, "precision_mode_v2", ""},
    {"OPT_precision_mode_v2_2_Fp16", {{"precision_mode_v2", "fp16"}}, {}, "precision_mode_v2", "fp16"},
    {"OPT_precision_mode_v2_3_Origin", {{"precision_mode_v2", "origin"}}, {}, "precision_mode_v2", "origin"},
    {"OPT_precision_mode_v2_5_MixedFloat16", {{"precision_mode_v2", "mixed_float16"}}, {}, "precision_mode_v2",
     "mixed_float16"},
    {"OPT_modify_mixlist_1_Path", {{"precision_mode", "allow_mix_precision"}, {"modify_mixlist", "/home/test/ops_info.json"}},
     {}, "modify_mixlist", "/home/test/ops_info.json"},
    {"OPT_customize_dtypes_3_Path", {{"customize_dtypes", "/home/test/customize_dtypes.cfg"}}, {}, "customize_dtypes",
     "/home/test/customize_dtypes.cfg"},
    {"OPT_fusion_switch_file_3_DefaultAllRulesOn", {}, {}, "fusion_switch_file", ""},
    {"OPT_dump_config_enable_dump_1_DefaultFalse", {}, {}, "dump_config.enable_dump", "False"},
    {"OPT_dump_config_enable_dump_2_NeedsDumpPath", {{"dump_config.enable_dump", "True"}}, {}, "dump_config.enable_dump",
     nullptr},
    {"OPT_dump_config_enable_dump_3_False", {{"dump_config.enable_dump", "False"}}, {}, "dump_config.enable_dump", "False"},
    {"OPT_dump_config_dump_step_1_DefaultEveryIteration", {}, {}, "dump_config.dump_step", ""},
    {"OPT_dump_config_dump_mode_1_DefaultOutput", {}, {}, "dump_config.dump_mode", "output"},
    {"OPT_dump_config_dump_mode_2_Input", {{"dump_config.dump_mode", "input"}}, {}, "dump_config.dump_mode", "input"},
    {"OPT_dump_config_dump_mode_2_All", {{"dump_config.dump_mode", "all"}}, {}, "dump_config.dump_mode", "all"},
    {"OPT_dump_config_dump_mode_2_Other", {{"dump_config.dump_mode", "both"}}, {}, "dump_config.dump_mode", nullptr},
    {"OPT_dump_config_dump_data_1_DefaultTensor", {}, {}, "dump_config.dump_data", "tensor"},
    {"OPT_dump_config_dump_data_2_Stats", {{"dump_config.dump_data", "stats"}}, {}, "dump_config.dump_data", "stats"},
    {"OPT_dump_config_dump_data_2_Other", {{"dump_config.dump_data", "csv"}}, {}, "dump_config.dump_data", nullptr},
    {"OPT_dump_config_dump_layer_1_Names", {{"dump_config.dump_layer", "nodename1 nodename2 nodename3"}}, {},
     "dump_config.dump_layer", "nodename1 nodename2 nodename3"},
    {"OPT_dump_config_enable_dump_debug_1_Exists", {}, {}, "dump_config.enable_dump_debug", "False"},
    {"OPT_dump_config_dump_debug_mode_1_DefaultAll", {}, {}, "dump_config.dump_debug_mode", "all"},
    {"OPT_dump_config_dump_debug_mode_2_AicoreOverflow", {{"dump_config.dump_debug_mode", "aicore_overflow"}}, {},
     "dump_config.dump_debug_mode", "aicore_overflow"},
    {"OPT_dump_config_dump_debug_mode_3_AtomicOverflow", {{"dump_config.dump_debug_mode", "atomic_overflow"}}, {},
     "dump_config.dump_debug_mode", "atomic_overflow"},
    {"OPT_hcom_parallel_2_DefaultTrue", {}, {}, "hcom_parallel", "True"},
    {"OPT_hcom_parallel_1_False", {{"hcom_parallel", "False"}}, {}, "hcom_parallel", "False"},
    {"OPT_enable_small_channel_1_OnInTraining", {{"enable_small_channel", "1"}}, {}, "enable_small_channel", "1"},
    {"OPT_stream_max_parallel_num_3_Example", {{"stream_max_parallel_num", "DNN_VM_AICPU:10,AIcoreEngine:1"}}, {},
     "stream_max_parallel_num", "DNN_VM_AICPU:10,AIcoreEngine:1"},
    {"OPT_is_tailing_optimization_3_DefaultFalse", {}, {}, "is_tailing_optimization", "False"},
    {"OPT_enable_scope_fusion_passes_1_List", {{"enable_scope_fusion_passes", "ScopeLayerNormPass,ScopeClipBoxesPass"}},
     {}, "enable_scope_fusion_passes", "ScopeLayerNormPass,ScopeClipBoxesPass"},
    {"OPT_enable_scope_fusion_passes_4_DefaultNone", {}, {}, "enable_scope_fusion_passes", ""},
    {"OPT_enable_scope_fusion_passes_1_EmptyItem", {{"enable_scope_fusion_passes", "A,,B"}}, {},
     "enable_scope_fusion_passes", nullptr},
    {"OPT_profiling_config_enable_profiling_1_DefaultOff", {}, {}, "profiling_config.enable_profiling", "False"},
    {"PROF_1_ProfilingModeTrue", {}, {{"PROFILING_MODE", "true"}, {"ASCEND_WORK_PATH", "/w"}},
     "profiling_config.enable_profiling", "True"},
    {"OPT_aoe_config_aoe_mode_6_NoDefault", {}, {}, "aoe_config.aoe_mode", ""},
    {"OPT_aoe_config_aoe_mode_1_StringOne", {{"aoe_config.aoe_mode", "1"}}, {}, "aoe_config.aoe_mode", "1"},
    {"OPT_aoe_config_aoe_mode_4_GradientSplit", {}, {{"AOE_MODE", "4"}}, "aoe_config.aoe_mode", "4"},
    {"OPT_op_compiler_cache_mode_1_DefaultEnable", {}, {}, "op_compiler_cache_mode", "enable"},
    {"OPT_op_compiler_cache_mode_3_Disable", {{"op_compiler_cache_mode", "disable"}}, {}, "op_compiler_cache_mode",
     "disable"},
    {"OPT_op_compiler_cache_mode_4_Force", {{"op_compiler_cache_mode", "force"}}, {}, "op_compiler_cache_mode", "force"},
    {"OPT_op_compiler_cache_mode_1_Other", {{"op_compiler_cache_mode", "on"}}, {}, "op_compiler_cache_mode", nullptr},
    {"OPT_op_compiler_cache_dir_1_Path", {{"op_compiler_cache_dir", "/home/test/kernel_cache"}}, {},
     "op_compiler_cache_dir", "/home/test/kernel_cache"},
    {"OPT_stream_sync_timeout_2_DefaultMinusOne", {}, {}, "stream_sync_timeout", "-1"},
    {"OPT_stream_sync_timeout_3_Example", {{"stream_sync_timeout", "600000"}}, {}, "stream_sync_timeout", "600000"},
    {"OPT_event_sync_timeout_2_DefaultMinusOne", {}, {}, "event_sync_timeout", "-1"},
    {"OPT_event_sync_timeout_2_Example", {{"event_sync_timeout", "600000"}}, {}, "event_sync_timeout", "600000"},
    {"OPT_jit_compile_1_DefaultAuto", {}, {}, "jit_compile", "auto"},
    {"OPT_jit_compile_3_True", {{"jit_compile", "true"}}, {}, "jit_compile", "true"},
    {"OPT_jit_compile_4_False", {{"jit_compile", "false"}}, {}, "jit_compile", "false"},
    {"OPT_jit_compile_1_PythonBoolIsNotAValue", {{"jit_compile", "True"}}, {}, "jit_compile", nullptr},
    {"OPT_op_select_implmode_4_DefaultNone", {}, {}, "op_select_implmode", ""},
    {"OPT_op_select_implmode_2_HighPrecision", {{"op_select_implmode", "high_precision"}}, {}, "op_select_implmode",
     "high_precision"},
    {"OPT_op_select_implmode_3_HighPerformance", {{"op_select_implmode", "high_performance"}}, {},
     "op_select_implmode", "high_performance"},
    {"OPT_optypelist_for_implmode_3_DefaultNone", {}, {}, "optypelist_for_implmode", ""},
    {"OPT_variable_format_optimize_3_DefaultNone", {}, {}, "variable_format_optimize", ""},
    {"OPT_variable_format_optimize_1_True", {{"variable_format_optimize", "True"}}, {}, "variable_format_optimize",
     "True"},
    {"OPT_op_debug_level_10_DefaultNone", {}, {}, "op_debug_level", ""},
    {"OPT_op_debug_level_1_Zero", {{"op_debug_level", "0"}}, {}, "op_debug_level", "0"},
    {"OPT_graph_memory_max_size_1_AcceptedNoEffect", {{"graph_memory_max_size", "26843545600"}}, {},
     "graph_memory_max_size", "26843545600"},
    {"OPT_variable_memory_max_size_1_AcceptedNoEffect", {{"variable_memory_max_size", "5368709120"}}, {},
     "variable_memory_max_size", "5368709120"},
    {"ENV_1_WorkPathRead", {}, {{"ASCEND_WORK_PATH", "/data/work"}}, "ASCEND_WORK_PATH", "/data/work"},
    {"NPU_5_ConfigExample", {}, {{"NPU_COLLECT_PATH", "/root/demo/"}}, "NPU_COLLECT_PATH", "/root/demo/"},
    {"OPT_op_compiler_cache_mode_14_EnvSize", {}, {{"ASCEND_MAX_OP_CACHE_SIZE", "500"}}, "ASCEND_MAX_OP_CACHE_SIZE",
     "500"},
    {"OPT_op_compiler_cache_mode_14_EnvRatioRange", {}, {{"ASCEND_REMAIN_CACHE_SIZE_RATIO", "101"}},
     "ASCEND_REMAIN_CACHE_SIZE_RATIO", nullptr},
};

class SpecId : public ::testing::TestWithParam<SpecCase> {};

TEST_P(SpecId, Holds) {
  const SpecCase& c = GetParam();
  auto r = build(c.flags, c.env);
  if (!c.expected) {
    EXPECT_FALSE(r.errors.empty()) << c.id << ": should be refused";
    return;
  }
  ASSERT_TRUE(r.errors.empty()) << c.id << "\n" << dump_errors(r);
  EXPECT_EQ(r.options->get(c.option), c.expected) << c.id;
}

INSTANTIATE_TEST_SUITE_P(Options, SpecId, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<SpecCase>& info) { return std::string(info.param.id); });

}  // namespace
}  // namespace openge::options::test
