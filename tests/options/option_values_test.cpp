// Every value rule of spec C: ranges at their boundaries (inside, on, outside), every enum value,
// the structured values (dump_step, stream_max_parallel_num, timeouts, type lists).
#include <gtest/gtest.h>

#include <limits>

#include "options/option_table.h"
#include "options/value_parsers.h"
#include "options_test_util.h"

namespace openge::options::test {
namespace {

std::vector<std::string> enum_values(const OptionSpec& s) {
  std::vector<std::string> out;
  std::string a = s.allowed;
  size_t i = 0;
  while (i <= a.size()) {
    size_t j = a.find('|', i);
    if (j == std::string::npos) j = a.size();
    out.push_back(a.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// Flags that make a value of `name` valid on its own (bf16 modes need A2, force_fp16 inference).
Flags context_for(const std::string& name, const std::string& value) {
  Flags f;
  if (value == "force_fp16") f.push_back({"graph_run_mode", "0"});
  return f;
}

TEST(OptRanges, EveryIntRangeAtItsBoundaries) {
  int checked = 0;
  for (const auto& s : option_table()) {
    if (s.kind != Kind::kInt) continue;
    auto ok = [&](int64_t v) { return accepted({{s.name, std::to_string(v)}}); };
    EXPECT_TRUE(ok(s.min)) << s.name << " on min";
    EXPECT_FALSE(ok(s.min - 1)) << s.name << " below min";
    if (s.max != std::numeric_limits<int64_t>::max()) {
      EXPECT_TRUE(ok(s.max)) << s.name << " on max";
      EXPECT_FALSE(ok(s.max + 1)) << s.name << " above max";
      if (s.max - s.min >= 2) {
        EXPECT_TRUE(ok((s.min + s.max) / 2)) << s.name << " inside";
      }
    }
    EXPECT_FALSE(accepted({{s.name, "abc"}})) << s.name;
    EXPECT_FALSE(accepted({{s.name, "1.5"}})) << s.name;
    EXPECT_FALSE(accepted({{s.name, ""}})) << s.name;
    ++checked;
  }
  EXPECT_EQ(checked, 19);  // 7 fields, device_id, max_tensor_bytes, compiled_shape_cache_size, threading_grain_cycles
                           // and 8 environment variables (HCCL_CONNECT_TIMEOUT the last added)
}

TEST(OptEnums, EveryEnumValueAcceptedAndOthersRejected) {
  for (const auto& s : option_table()) {
    if (s.kind != Kind::kEnum) continue;
    for (const auto& v : enum_values(s)) {
      Flags f = context_for(s.name, v);
      f.push_back({s.name, v});
      auto r = build(f);
      EXPECT_TRUE(r.errors.empty()) << s.name << "=" << v << "\n" << dump_errors(r);
    }
    auto r = build({{s.name, "not_a_value"}});
    EXPECT_TRUE(has_error(r, s.name, "must be one of")) << s.name;
    // Case matters, as in CANN's Python list membership.
    const std::string first = enum_values(s)[0];
    std::string upper = first;
    for (auto& c : upper) c = static_cast<char>(std::toupper(c));
    if (upper != first) {
      EXPECT_FALSE(accepted({{s.name, upper}})) << s.name << "=" << upper;
    }
  }
}

TEST(OptBools, EveryBoolAcceptsTrueFalseSpellings) {
  for (const auto& s : option_table()) {
    if (s.kind != Kind::kBool) continue;
    for (const char* t : {"True", "true", "1"}) {
      Flags f = {{s.name, t}};
      if (std::string(s.name) == "dump_config.enable_dump" || std::string(s.name) == "dump_config.enable_dump_debug")
        f.push_back({"dump_config.dump_path", "/tmp"});
      if (std::string(s.name) == "profiling_config.enable_profiling") f.push_back({"ASCEND_WORK_PATH", "/tmp"});
      auto r = build(f);
      EXPECT_EQ(value_of(r, s.name), "True") << s.name << "=" << t;
    }
    for (const char* t : {"False", "false", "0"}) EXPECT_EQ(value_of(build({{s.name, t}}), s.name), "False") << s.name;
    EXPECT_FALSE(accepted({{s.name, "yes"}})) << s.name;
    EXPECT_FALSE(accepted({{s.name, "2"}})) << s.name;
  }
}

TEST(OptGraphRunMode, OPT_graph_run_mode_2_3_ZeroAndOneOnly) {
  EXPECT_TRUE(accepted({{"graph_run_mode", "0"}}));
  EXPECT_TRUE(accepted({{"graph_run_mode", "1"}}));
  EXPECT_FALSE(accepted({{"graph_run_mode", "2"}}));
  EXPECT_FALSE(accepted({{"graph_run_mode", "-1"}}));
  EXPECT_FALSE(accepted({{"graph_run_mode", "True"}}));  // AMB-35: an integer, not a bool
}

TEST(OptDeterministic, OPT_deterministic_2_3_Values) {
  EXPECT_TRUE(accepted({{"deterministic", "0"}}));
  EXPECT_TRUE(accepted({{"deterministic", "1"}}));
  EXPECT_FALSE(accepted({{"deterministic", "2"}}));
}

TEST(OptOpDebugLevel, OPT_op_debug_level_1_5_ZeroToFour) {
  for (int v = 0; v <= 4; ++v) EXPECT_TRUE(accepted({{"op_debug_level", std::to_string(v)}})) << v;
  EXPECT_FALSE(accepted({{"op_debug_level", "5"}}));
  EXPECT_FALSE(accepted({{"op_debug_level", "-1"}}));
}

TEST(OptAoeMode, OPT_aoe_config_aoe_mode_2_4_OneTwoFourOnly) {
  for (const char* v : {"1", "2", "4"}) EXPECT_TRUE(accepted({{"aoe_config.aoe_mode", v}})) << v;
  for (const char* v : {"0", "3", "5", "mdat"}) EXPECT_FALSE(accepted({{"aoe_config.aoe_mode", v}})) << v;
}

// ---- dump_step (OPT-dump_config.dump_step-2, AMB-17) ----------------------------------------
TEST(OptDumpStep, OPT_dump_config_dump_step_2_Grammar) {
  for (const char* ok : {"0", "0|5|10", "0|3-5|10", "0|5", "10-20", "1-2"})
    EXPECT_TRUE(accepted({{"dump_config.dump_step", ok}})) << ok;
  for (const char* bad : {"", "|", "0|", "|0", "5-3", "3-3", "a", "0||5", "-1", "1-", "-", "0,5", " 0", "0|5-6-7"})
    EXPECT_FALSE(accepted({{"dump_config.dump_step", bad}})) << bad;
}

TEST(OptDumpStep, OPT_dump_config_dump_step_2_AtMost100Sets) {
  std::string s;
  for (int i = 0; i < 100; ++i) s += (i ? "|" : "") + std::to_string(i);
  EXPECT_TRUE(accepted({{"dump_config.dump_step", s}}));
  EXPECT_FALSE(accepted({{"dump_config.dump_step", s + "|100"}}));
  auto steps = parse_dump_step("0|3-5|10");
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ(*steps, (std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {3, 5}, {10, 10}}));
}

// ---- stream_max_parallel_num (OPT-stream_max_parallel_num-3/4) --------------------------------
TEST(OptStreamMaxParallelNum, OPT_stream_max_parallel_num_4_RangeOneToThirteen) {
  EXPECT_TRUE(accepted({{"stream_max_parallel_num", "DNN_VM_AICPU:1"}}));
  EXPECT_TRUE(accepted({{"stream_max_parallel_num", "DNN_VM_AICPU:13"}}));
  EXPECT_TRUE(accepted({{"stream_max_parallel_num", "AIcoreEngine:7"}}));
  EXPECT_FALSE(accepted({{"stream_max_parallel_num", "DNN_VM_AICPU:0"}}));
  EXPECT_FALSE(accepted({{"stream_max_parallel_num", "DNN_VM_AICPU:14"}}));
}

TEST(OptStreamMaxParallelNum, OPT_stream_max_parallel_num_3_EnginesAndFormat) {
  auto p = parse_stream_parallel("DNN_VM_AICPU:10,AIcoreEngine:1");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->at("DNN_VM_AICPU"), 10);
  EXPECT_EQ(p->at("AIcoreEngine"), 1);
  for (const char* bad : {"GPU:1", "DNN_VM_AICPU", "DNN_VM_AICPU:", ":3", "DNN_VM_AICPU:1,DNN_VM_AICPU:2",
                          "DNN_VM_AICPU:1,", "aicoreengine:1", "DNN_VM_AICPU:x"})
    EXPECT_FALSE(accepted({{"stream_max_parallel_num", bad}})) << bad;
}

// ---- timeouts (OPT-stream_sync_timeout, AMB-33) ---------------------------------------------
TEST(OptStreamSyncTimeout, OPT_stream_sync_timeout_2_MinusOneOrPositive) {
  for (const char* n : {"stream_sync_timeout", "event_sync_timeout"}) {
    EXPECT_TRUE(accepted({{n, "-1"}})) << n;
    EXPECT_TRUE(accepted({{n, "1"}})) << n;
    EXPECT_TRUE(accepted({{n, "600000"}})) << n;
    EXPECT_TRUE(accepted({{n, "2147483647"}})) << n;
    EXPECT_FALSE(accepted({{n, "0"}})) << n;
    EXPECT_FALSE(accepted({{n, "-2"}})) << n;
    EXPECT_FALSE(accepted({{n, "2147483648"}})) << n;
  }
}

TEST(OptStreamSyncTimeout, OPT_stream_sync_timeout_3_WarnsWhenNotAboveHcclTimeout) {
  auto r = build({{"stream_sync_timeout", "600000"}}, {{"HCCL_EXEC_TIMEOUT", "600"}});
  EXPECT_TRUE(has_warning(r, "not larger than HCCL_EXEC_TIMEOUT"));
  r = build({{"stream_sync_timeout", "600001"}}, {{"HCCL_EXEC_TIMEOUT", "600"}});
  EXPECT_FALSE(has_warning(r, "HCCL_EXEC_TIMEOUT"));
  r = build({}, {{"HCCL_EXEC_TIMEOUT", "600"}});
  EXPECT_FALSE(has_warning(r, "HCCL_EXEC_TIMEOUT"));  // -1: no timeout at all
}

// ---- optypelist_for_implmode (OPT-optypelist_for_implmode-1) --------------------------------
TEST(OptOptypelistForImplmode, OPT_optypelist_for_implmode_1_SupportedTypes) {
  EXPECT_TRUE(accepted({{"op_select_implmode", "high_precision"}, {"optypelist_for_implmode", "Pooling,SoftmaxV2"}}));
  EXPECT_TRUE(accepted(
      {{"op_select_implmode", "high_precision"}, {"optypelist_for_implmode", "Pooling,SoftmaxV2,LRN,ROIAlign"}}));
  auto r = build({{"op_select_implmode", "high_precision"}, {"optypelist_for_implmode", "Pooling,Conv2D"}});
  EXPECT_TRUE(has_error(r, "optypelist_for_implmode", "'Conv2D' is not one of"));
  EXPECT_FALSE(accepted({{"op_select_implmode", "high_precision"}, {"optypelist_for_implmode", "Pooling,,LRN"}}));
}

// ---- path characters (OPT-fusion_switch_file-2, OPT-op_compiler_cache_dir-2, DISC-17) --------
TEST(OptFusionSwitchFile, OPT_fusion_switch_file_2_AllowedCharacters) {
  EXPECT_TRUE(accepted({{"fusion_switch_file", "/home/test/fusion_switch.cfg"}}));
  EXPECT_TRUE(accepted({{"fusion_switch_file", "cfg/融合_开关-1.cfg"}}));
  EXPECT_FALSE(accepted({{"fusion_switch_file", "/home/test/a b.cfg"}}));
  EXPECT_FALSE(accepted({{"fusion_switch_file", "/home/test/$x.cfg"}}));
  EXPECT_FALSE(accepted({{"fusion_switch_file", "/home/test/é.cfg"}}));
}

TEST(OptOpCompilerCacheDir, OPT_op_compiler_cache_dir_2_AllowedCharacters) {
  EXPECT_TRUE(accepted({{"op_compiler_cache_dir", "/home/test/kernel_cache"}}));
  EXPECT_TRUE(accepted({{"op_compiler_cache_dir", "缓存.dir"}}));
  EXPECT_FALSE(accepted({{"op_compiler_cache_dir", "/home/test/kernel cache"}}));
  EXPECT_FALSE(accepted({{"op_compiler_cache_dir", "/home/~user"}}));
}

TEST(OptValueParsers, StorageLimitBoundaries) {
  EXPECT_FALSE(parse_storage_limit_mb("199MB").ok());
  EXPECT_TRUE(parse_storage_limit_mb("200MB").ok());
  EXPECT_TRUE(parse_storage_limit_mb("201MB").ok());
  EXPECT_TRUE(parse_storage_limit_mb("4294967295MB").ok());
  EXPECT_FALSE(parse_storage_limit_mb("4294967296MB").ok());
  EXPECT_TRUE(parse_storage_limit_mb("300").ok());  // bare number = MB (AMB-32)
  EXPECT_FALSE(parse_storage_limit_mb("300GB").ok());
  EXPECT_FALSE(parse_storage_limit_mb("MB").ok());
  EXPECT_FALSE(parse_storage_limit_mb("-300MB").ok());
}

TEST(OptValueParsers, AicMetricsCustomRegisters) {
  auto m = parse_aic_metrics("Custom:0x49,0x8,0x15,0x1b,0x64,0x10");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->registers, (std::vector<int>{0x49, 0x8, 0x15, 0x1b, 0x64, 0x10}));
  EXPECT_TRUE(parse_aic_metrics("Custom:1").ok());
  EXPECT_TRUE(parse_aic_metrics("Custom:0x1").ok());
  EXPECT_TRUE(parse_aic_metrics("Custom:0x6E").ok());
  EXPECT_TRUE(parse_aic_metrics("Custom:110").ok());  // 0x6E in decimal
  EXPECT_FALSE(parse_aic_metrics("Custom:0x0").ok());
  EXPECT_FALSE(parse_aic_metrics("Custom:0").ok());
  EXPECT_FALSE(parse_aic_metrics("Custom:0x6F").ok());
  EXPECT_FALSE(parse_aic_metrics("Custom:111").ok());
  EXPECT_TRUE(parse_aic_metrics("Custom:1,2,3,4,5,6,7,8").ok());
  EXPECT_FALSE(parse_aic_metrics("Custom:1,2,3,4,5,6,7,8,9").ok());
  EXPECT_FALSE(parse_aic_metrics("Custom:").ok());
  EXPECT_FALSE(parse_aic_metrics("Custom:0xZZ").ok());
  EXPECT_FALSE(parse_aic_metrics("custom:1").ok());
}

}  // namespace
}  // namespace openge::options::test
