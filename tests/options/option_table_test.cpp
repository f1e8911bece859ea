// The option table: one row per field of spec C.1 with its exact dotted name, aliases, GE keys,
// defaults per scenario/product, deprecations and did-you-mean.
#include <gtest/gtest.h>

#include <set>

#include "options/option_table.h"
#include "options_test_util.h"

namespace openge::options::test {
namespace {

// Spec C.1, the 43 fields in page order (OPT-general-2).
const char* kSpecFields[] = {"graph_run_mode",
                             "deterministic",
                             "memory_config.atomic_clean_policy",
                             "external_weight",
                             "memory_config.static_memory_policy",
                             "op_debug_config",
                             "enable_exception_dump",
                             "debug_dir",
                             "precision_mode",
                             "precision_mode_v2",
                             "modify_mixlist",
                             "customize_dtypes",
                             "fusion_switch_file",
                             "dump_config.enable_dump",
                             "dump_config.dump_path",
                             "dump_config.dump_step",
                             "dump_config.dump_mode",
                             "dump_config.dump_data",
                             "dump_config.dump_layer",
                             "dump_config.enable_dump_debug",
                             "dump_config.dump_debug_mode",
                             "hcom_parallel",
                             "enable_small_channel",
                             "op_precision_mode",
                             "stream_max_parallel_num",
                             "is_tailing_optimization",
                             "enable_scope_fusion_passes",
                             "profiling_config.enable_profiling",
                             "profiling_config.profiling_options",
                             "aoe_config.aoe_mode",
                             "aoe_config.work_path",
                             "aoe_config.aoe_config_file",
                             "op_compiler_cache_mode",
                             "op_compiler_cache_dir",
                             "stream_sync_timeout",
                             "event_sync_timeout",
                             "jit_compile",
                             "op_select_implmode",
                             "optypelist_for_implmode",
                             "variable_format_optimize",
                             "op_debug_level",
                             "graph_memory_max_size",
                             "variable_memory_max_size"};

TEST(OptGeneral, OPT_general_2_TableHasEveryFieldOfThePageInOrder) {
  ASSERT_EQ(std::size(kSpecFields), 43u);
  auto table = option_table();
  for (size_t i = 0; i < std::size(kSpecFields); ++i) EXPECT_EQ(std::string(table[i].name), kSpecFields[i]);
  std::set<std::string> names;
  for (const auto& s : table) EXPECT_TRUE(names.insert(s.name).second) << "duplicate row " << s.name;
}

TEST(OptGeneral, EveryRowIsDocumented) {
  for (const auto& s : option_table()) {
    EXPECT_GT(std::string(s.description).size(), 5u) << s.name;
    EXPECT_GT(std::string(s.effect).size(), 5u) << s.name;
    EXPECT_GT(std::string(s.allowed).size(), 1u) << s.name;
  }
}

TEST(OptGeneral, OPT_general_2_BareMemoryConfigNamesAreAliases) {
  EXPECT_STREQ(find_option("atomic_clean_policy")->name, "memory_config.atomic_clean_policy");
  EXPECT_STREQ(find_option("static_memory_policy")->name, "memory_config.static_memory_policy");
  auto r = build({{"atomic_clean_policy", "1"}, {"static_memory_policy", "0"}});
  EXPECT_EQ(value_of(r, "memory_config.atomic_clean_policy"), "1");
  EXPECT_EQ(r.options->find("memory_config.static_memory_policy")->source, Source::kFlag);
}

TEST(OptGeneral, GeKeysAndLeafNamesAreAcceptedAsInput) {
  auto r = build({{"ge.exec.precision_mode", "allow_mix_precision"},
                  {"ge.exec.enableDump", "1"},
                  {"dump_path", "/tmp"},
                  {"ge.jobType", "2"}});
  EXPECT_EQ(value_of(r, "precision_mode"), "allow_mix_precision");
  EXPECT_EQ(value_of(r, "dump_config.enable_dump"), "True");
  EXPECT_EQ(value_of(r, "dump_config.dump_path"), "/tmp");
  EXPECT_EQ(value_of(r, "aoe_config.aoe_mode"), "2");
}

TEST(OptGeneral, GeKeysMatchCann) {
  EXPECT_STREQ(find_option("precision_mode")->ge_key, "ge.exec.precision_mode");
  EXPECT_STREQ(find_option("dump_config.dump_step")->ge_key, "ge.exec.dumpStep");
  EXPECT_STREQ(find_option("memory_config.atomic_clean_policy")->ge_key, "ge.exec.atomicCleanPolicy");
  EXPECT_STREQ(find_option("op_debug_config")->ge_key, "op_debug_config");
  EXPECT_STREQ(find_option("jit_compile")->ge_key, "ge.jit_compile");
  EXPECT_STREQ(find_option("aoe_config.work_path")->ge_key, "ge.tuningPath");
}

TEST(OptGeneral, UnknownNameGetsDidYouMean) {
  auto r = build({{"precison_mode", "force_fp16"}, {"dump_config.dump_mod", "all"}, {"zzzzzzzz", "1"}});
  EXPECT_TRUE(has_error(r, "precison_mode", "did you mean 'precision_mode'"));
  EXPECT_TRUE(has_error(r, "dump_config.dump_mod", "did you mean 'dump_config.dump_mode'"));
  EXPECT_TRUE(has_error(r, "zzzzzzzz", "unknown option"));
  EXPECT_FALSE(has_error(r, "zzzzzzzz", "did you mean"));
  EXPECT_EQ(r.errors.size(), 3u);  // all problems together (AMB-29)
}

TEST(OptGeneral, AMB_29_ErrorsUseCannE10001Format) {
  auto r = build({{"deterministic", "2"}});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].to_string().rfind("E10001: Value [2] for parameter [deterministic] is invalid. Reason: ", 0),
            0u)
      << r.errors[0].to_string();
}

// ---- defaults (C.1 Default column) ------------------------------------------------------------
TEST(OptDefaults, C1_DefaultsOfThePage) {
  auto r = build({});
  const std::pair<const char*, const char*> kDefaults[] = {
      {"graph_run_mode", "1"},
      {"deterministic", "0"},
      {"memory_config.atomic_clean_policy", "0"},
      {"external_weight", "False"},
      {"memory_config.static_memory_policy", "0"},
      {"enable_exception_dump", "0"},
      {"dump_config.enable_dump", "False"},
      {"dump_config.dump_mode", "output"},
      {"dump_config.dump_data", "tensor"},
      {"dump_config.dump_debug_mode", "all"},
      {"dump_config.enable_dump_debug", "False"},
      {"hcom_parallel", "True"},
      {"enable_small_channel", "0"},
      {"is_tailing_optimization", "False"},
      {"profiling_config.enable_profiling", "False"},
      {"op_compiler_cache_mode", "enable"},
      {"stream_sync_timeout", "-1"},
      {"event_sync_timeout", "-1"},
      {"jit_compile", "auto"},
      {"op_select_implmode", ""},
      {"optypelist_for_implmode", ""},
      {"variable_format_optimize", ""},
      {"op_debug_level", ""},
      {"dump_config.dump_step", ""},
      {"aoe_config.aoe_mode", ""},
      {"precision_mode_v2", ""},
      {"soc_version", "Ascend910B"},
      {"device_id", "0"},
  };
  for (const auto& [name, def] : kDefaults) {
    EXPECT_EQ(value_of(r, name), def) << name;
    EXPECT_EQ(r.options->find(name)->source, Source::kDefault) << name;
  }
}

TEST(OptPrecisionMode, OPT_precision_mode_17_DefaultOnAtlasTrainingSeries) {
  EXPECT_EQ(value_of(build({{"soc_version", "Ascend910"}}), "precision_mode"), "allow_fp32_to_fp16");
}

TEST(OptPrecisionMode, OPT_precision_mode_18_DefaultOnAtlasA2TrainingSeries) {
  EXPECT_EQ(value_of(build({}), "precision_mode"), "must_keep_origin_dtype");
  EXPECT_EQ(value_of(build({{"soc_version", "Ascend910B"}}), "precision_mode"), "must_keep_origin_dtype");
}

TEST(OptPrecisionMode, AMB_11_DefaultOnInferenceProduct) {
  EXPECT_EQ(value_of(build({{"soc_version", "Ascend310P"}, {"graph_run_mode", "0"}}), "precision_mode"), "force_fp16");
  EXPECT_EQ(value_of(build({{"soc_version", "Ascend310P"}}), "precision_mode"), "allow_fp32_to_fp16");
}

TEST(OptEnableSmallChannel, OPT_enable_small_channel_2_OffByDefaultInTraining) {
  EXPECT_EQ(value_of(build({{"graph_run_mode", "1"}}), "enable_small_channel"), "0");
  EXPECT_EQ(value_of(build({{"enable_small_channel", "1"}}), "enable_small_channel"), "1");
}

TEST(OptEnableSmallChannel, OPT_enable_small_channel_3_ForcedOnInOnlineInference) {
  EXPECT_EQ(value_of(build({{"graph_run_mode", "0"}}), "enable_small_channel"), "1");
  auto r = build({{"graph_run_mode", "0"}, {"enable_small_channel", "0"}});
  EXPECT_EQ(value_of(r, "enable_small_channel"), "1");
  EXPECT_TRUE(has_warning(r, "enable_small_channel=0 is ignored"));
}

// ---- deprecations (E.1) ------------------------------------------------------------
TEST(OptDeprecated, MISC_1_DeprecatedFieldsAcceptedWithCannWarning) {
  const std::pair<const char*, const char*> kCases[] = {
      {"graph_memory_max_size", "Please do not configure this option in the future."},
      {"variable_memory_max_size", "Please do not configure this option in the future."},
      {"op_debug_level", "Please use 'op_debug_config' instead."},
      {"op_select_implmode", "Please use 'op_precision_mode' instead."},
      {"variable_format_optimize", "Please do not configure this option in the future."},
  };
  for (const auto& [name, tail] : kCases) {
    const std::string v = std::string(name) == "op_debug_level"             ? "0"
                          : std::string(name) == "op_select_implmode"       ? "high_precision"
                          : std::string(name) == "variable_format_optimize" ? "True"
                                                                            : "12345";
    auto r = build({{name, v}});
    EXPECT_TRUE(r.errors.empty()) << dump_errors(r);
    EXPECT_TRUE(has_warning(r, "[warning][tf_adapter] Option '" + std::string(name) +
                                   "' is deprecated and will be removed in future version. " + tail))
        << name;
  }
  auto r = build({{"optypelist_for_implmode", "Pooling"}, {"op_select_implmode", "high_precision"}});
  EXPECT_TRUE(has_warning(r, "Option 'optypelist_for_implmode' is deprecated"));
}

TEST(OptDeprecated, MISC_2_NoneDefaultMeansUnset) {
  auto r = build({});
  for (const char* n : {"op_select_implmode", "optypelist_for_implmode", "variable_format_optimize", "op_debug_level",
                        "dump_config.dump_step"})
    EXPECT_FALSE(r.options->has_value(n)) << n;
  EXPECT_TRUE(r.warnings.empty());
}

}  // namespace
}  // namespace openge::options::test
