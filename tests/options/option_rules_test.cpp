// Rules between options (spec C interactions): exclusions, requirements, overrides with a warning.
#include <gtest/gtest.h>

#include "options_test_util.h"

namespace openge::options::test {
namespace {

TEST(OptPrecisionMode, OPT_precision_mode_3_ForceFp16OnlyInOnlineInference) {
  EXPECT_TRUE(accepted({{"precision_mode", "force_fp16"}, {"graph_run_mode", "0"}}));
  auto r = build({{"precision_mode", "force_fp16"}, {"graph_run_mode", "1"}});
  EXPECT_TRUE(has_error(r, "precision_mode", "only to online inference"));
  EXPECT_FALSE(accepted({{"precision_mode", "force_fp16"}}));  // default graph_run_mode is 1
}

TEST(OptPrecisionMode, OPT_precision_mode_14_MixBf16OnlyOnA2) {
  EXPECT_TRUE(accepted({{"precision_mode", "allow_mix_precision_bf16"}, {"soc_version", "Ascend910B"}}));
  for (const char* soc : {"Ascend910", "Ascend310P"}) {
    auto r = build({{"precision_mode", "allow_mix_precision_bf16"}, {"soc_version", soc}});
    EXPECT_TRUE(has_error(r, "precision_mode", "Atlas A2")) << soc;
  }
}

TEST(OptPrecisionMode, OPT_precision_mode_16_Fp32ToBf16OnlyOnA2) {
  EXPECT_TRUE(accepted({{"precision_mode", "allow_fp32_to_bf16"}}));
  EXPECT_FALSE(accepted({{"precision_mode", "allow_fp32_to_bf16"}, {"soc_version", "Ascend910"}}));
}

TEST(OptPrecisionMode, OPT_precision_mode_4_11_OldAndNewNamesBothAccepted) {
  for (const char* v : {"cube_fp16in_fp32out", "force_fp32", "allow_mix_precision", "allow_mix_precision_fp16"})
    EXPECT_TRUE(accepted({{"precision_mode", v}})) << v;
}

TEST(OptPrecisionModeV2, AMB_12_NotTogetherWithPrecisionMode) {
  auto r = build({{"precision_mode", "allow_mix_precision"}, {"precision_mode_v2", "fp16"}});
  EXPECT_TRUE(has_error(r, "precision_mode_v2", "can not be assigned at the same time"));
  EXPECT_TRUE(accepted({{"precision_mode_v2", "fp16"}}));  // with the product default of precision_mode
}

TEST(OptPrecisionModeV2, OPT_precision_mode_v2_1_Values) {
  for (const char* v : {"fp16", "origin", "cube_fp16in_fp32out", "mixed_float16"})
    EXPECT_TRUE(accepted({{"precision_mode_v2", v}})) << v;
  EXPECT_FALSE(accepted({{"precision_mode_v2", "mixed_bfloat16"}, {"soc_version", "Ascend910"}}));
  EXPECT_FALSE(accepted({{"precision_mode_v2", "allow_mix_precision"}}));
}

TEST(OptModifyMixlist, OPT_modify_mixlist_2_NeedsMixedPrecision) {
  for (const char* pm : {"allow_mix_precision", "allow_mix_precision_fp16", "allow_mix_precision_bf16"})
    EXPECT_TRUE(accepted({{"precision_mode", pm}, {"modify_mixlist", "/x/ops_info.json"}})) << pm;
  EXPECT_TRUE(accepted({{"precision_mode_v2", "mixed_float16"}, {"modify_mixlist", "/x/ops_info.json"}}));
  for (const char* pm : {"allow_fp32_to_fp16", "must_keep_origin_dtype", "force_fp32"}) {
    auto r = build({{"precision_mode", pm}, {"modify_mixlist", "/x/ops_info.json"}});
    EXPECT_TRUE(has_error(r, "modify_mixlist", "needs mixed precision")) << pm;
  }
  EXPECT_FALSE(accepted({{"modify_mixlist", "/x/ops_info.json"}}));  // default must_keep_origin_dtype
  EXPECT_FALSE(accepted({{"precision_mode_v2", "origin"}, {"modify_mixlist", "/x/ops_info.json"}}));
}

TEST(OptCustomizeDtypes, OPT_customize_dtypes_2_IgnoredUnderMustKeepOriginDtype) {
  auto r = build({{"precision_mode", "must_keep_origin_dtype"}, {"customize_dtypes", "/x/c.cfg"}});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(has_warning(r, "customize_dtypes is ignored"));
  r = build({{"customize_dtypes", "/x/c.cfg"}});  // the A2 default is must_keep_origin_dtype
  EXPECT_TRUE(has_warning(r, "customize_dtypes is ignored"));
  r = build({{"precision_mode", "allow_mix_precision"}, {"customize_dtypes", "/x/c.cfg"}});
  EXPECT_FALSE(has_warning(r, "customize_dtypes"));
  r = build({{"precision_mode_v2", "origin"}, {"customize_dtypes", "/x/c.cfg"}});  // AMB-12
  EXPECT_TRUE(has_warning(r, "customize_dtypes is ignored"));
}

TEST(OptDumpConfig, OPT_dump_config_enable_dump_4_NotWithOverflowDetection) {
  auto r = build({{"enable_dump", "True"}, {"enable_dump_debug", "True"}, {"dump_path", "/tmp"}});
  EXPECT_TRUE(has_error(r, "dump_config.enable_dump_debug", "cannot be True at the same time"));
  EXPECT_TRUE(accepted({{"enable_dump", "True"}, {"enable_dump_debug", "False"}, {"dump_path", "/tmp"}}));
}

TEST(OptDumpConfig, OPT_dump_config_dump_path_1_RequiredWhenADumpIsOn) {
  EXPECT_TRUE(has_error(build({{"enable_dump", "True"}}), "dump_config.dump_path", "must be set"));
  EXPECT_TRUE(has_error(build({{"enable_dump_debug", "True"}}), "dump_config.dump_path", "enable_dump_debug"));
  EXPECT_TRUE(accepted({{"enable_dump", "False"}}));
  EXPECT_TRUE(accepted({{"dump_path", "/nonexistent"}}));  // no dump on: not checked
}

TEST(OptDumpConfig, OPT_dump_config_dump_path_2_MustExistWritable) {
  TempDir d;
  auto ok = build({{"enable_dump", "True"}, {"dump_path", d.path()}}, {}, {}, true);
  EXPECT_TRUE(ok.errors.empty()) << dump_errors(ok);
  auto missing = build({{"enable_dump", "True"}, {"dump_path", d.path() + "/nope"}}, {}, {}, true);
  EXPECT_TRUE(has_error(missing, "dump_config.dump_path", "does not exist"));
  const std::string file = d.file("f.txt", "x");
  auto not_dir = build({{"enable_dump", "True"}, {"dump_path", file}}, {}, {}, true);
  EXPECT_TRUE(has_error(not_dir, "dump_config.dump_path", "is not a folder"));
}

TEST(OptDumpConfig, OPT_dump_config_dump_path_3_RelativeToWorkingDirectory) {
  TempDir d;
  d.dir("output");
  auto r = build({{"enable_dump", "True"}, {"dump_path", "output"}}, {}, {}, true, d.path());
  EXPECT_TRUE(r.errors.empty()) << dump_errors(r);
  r = build({{"enable_dump", "True"}, {"dump_path", "output"}}, {}, {}, true, "/");
  EXPECT_FALSE(r.errors.empty());
}

TEST(OptOpPrecisionMode, OPT_op_precision_mode_8_BeatsImplmodeOptions) {
  auto r = build({{"op_precision_mode", "/x/op_precision.ini"},
                  {"op_select_implmode", "high_precision"},
                  {"optypelist_for_implmode", "Pooling"}});
  EXPECT_TRUE(r.errors.empty()) << dump_errors(r);
  EXPECT_TRUE(has_warning(r, "op_select_implmode is ignored: op_precision_mode is set"));
  EXPECT_TRUE(has_warning(r, "optypelist_for_implmode is ignored"));
}

TEST(OptOpPrecisionMode, AMB_20_TwoOfThree) {
  auto r = build({{"op_precision_mode", "/x/op_precision.ini"}, {"op_select_implmode", "high_performance"}});
  EXPECT_TRUE(has_warning(r, "op_select_implmode is ignored"));
  r = build({{"op_precision_mode", "/x/op_precision.ini"}, {"optypelist_for_implmode", "LRN"}});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(has_warning(r, "optypelist_for_implmode is ignored"));
}

TEST(OptOptypelistForImplmode, OPT_optypelist_for_implmode_2_NeedsOpSelectImplmode) {
  auto r = build({{"optypelist_for_implmode", "Pooling"}});
  EXPECT_TRUE(has_error(r, "optypelist_for_implmode", "together with op_select_implmode"));
  EXPECT_TRUE(accepted({{"op_select_implmode", "high_precision"}}));  // alone: every operator
}

TEST(OptOpCompilerCacheMode, OPT_op_compiler_cache_mode_9_IgnoredInDebugMode) {
  auto r = build({{"op_debug_level", "1"}, {"op_compiler_cache_mode", "force"}});
  EXPECT_TRUE(has_warning(r, "op_compiler_cache_mode=force is ignored: op_debug_level is non-zero"));
  r = build({{"op_debug_config", "/x/a.cfg"}, {"op_compiler_cache_mode", "enable"}});
  EXPECT_TRUE(has_warning(r, "op_debug_config is set"));
  r = build({{"op_debug_level", "0"}, {"op_compiler_cache_mode", "force"}});
  EXPECT_FALSE(has_warning(r, "is ignored"));
}

TEST(OptEnableExceptionDump, OPT_enable_exception_dump_4_NpuCollectPathTurnsItOn) {
  auto r = build({}, {{"NPU_COLLECT_PATH", "/tmp/c"}});
  EXPECT_EQ(value_of(r, "enable_exception_dump"), "1");
  EXPECT_EQ(r.options->find("enable_exception_dump")->source, Source::kEnv);
  EXPECT_EQ(r.options->find("enable_exception_dump")->origin, "NPU_COLLECT_PATH");
  // An explicit user value stays (the spec says "by default").
  r = build({{"enable_exception_dump", "0"}}, {{"NPU_COLLECT_PATH", "/tmp/c"}});
  EXPECT_EQ(value_of(r, "enable_exception_dump"), "0");
  EXPECT_EQ(value_of(build({}), "enable_exception_dump"), "0");
}

TEST(OptJitCompile, NPU_14_NpuCollectPathForcesOnlineCompile) {
  auto r = build({{"jit_compile", "false"}}, {{"NPU_COLLECT_PATH", "/tmp/c"}});
  EXPECT_TRUE(has_warning(r, "jit_compile=false is overridden"));
  r = build({{"jit_compile", "true"}}, {{"NPU_COLLECT_PATH", "/tmp/c"}});
  EXPECT_FALSE(has_warning(r, "jit_compile"));
}

TEST(OptOpDebugConfig, NPU_18_OomWithNpuCollectPathIsAnError) {
  TempDir d;
  const std::string cfg = d.file("test0.cfg", "op_debug_config = ccec_O0,ccec_g,oom\n");
  auto r = build({{"op_debug_config", cfg}}, {{"NPU_COLLECT_PATH", d.path()}}, {}, true);
  EXPECT_TRUE(has_error(r, "op_debug_config", "not supported while NPU_COLLECT_PATH is set"));
  r = build({{"op_debug_config", cfg}}, {}, {}, true);
  EXPECT_TRUE(r.errors.empty()) << dump_errors(r);
  const std::string no_oom = d.file("t1.cfg", "op_debug_config = dump_cce\n");
  r = build({{"op_debug_config", no_oom}}, {{"NPU_COLLECT_PATH", d.path()}}, {}, true);
  EXPECT_TRUE(r.errors.empty()) << dump_errors(r);
}

TEST(OptAoeConfigFile, OPT_aoe_config_aoe_config_file_6_7_FeatureNeedsAoeMode) {
  TempDir d;
  const std::string deeper = d.file("a.json", R"({"feature":["deeper_opat"]})");
  const std::string split = d.file("b.json", R"({"feature":["nonhomo_split"]})");
  EXPECT_TRUE(build({{"aoe_mode", "2"}, {"aoe_config_file", deeper}}, {}, {}, true).errors.empty());
  EXPECT_TRUE(has_error(build({{"aoe_mode", "1"}, {"aoe_config_file", deeper}}, {}, {}, true),
                        "aoe_config.aoe_config_file", "requires aoe_config.aoe_mode=2"));
  EXPECT_TRUE(build({{"aoe_mode", "1"}, {"aoe_config_file", split}}, {}, {}, true).errors.empty());
  EXPECT_TRUE(has_error(build({{"aoe_mode", "4"}, {"aoe_config_file", split}}, {}, {}, true),
                        "aoe_config.aoe_config_file", "requires aoe_config.aoe_mode=1"));
  EXPECT_TRUE(has_error(build({{"aoe_config_file", split}}, {}, {}, true), "aoe_config.aoe_config_file", "unset"));
}

TEST(OptAoeWorkPath, OPT_aoe_config_work_path_2_MustExist) {
  TempDir d;
  EXPECT_TRUE(build({{"aoe_config.work_path", d.path()}}, {}, {}, true).errors.empty());
  EXPECT_TRUE(has_error(build({{"aoe_config.work_path", d.path() + "/x"}}, {}, {}, true), "aoe_config.work_path",
                        "does not exist"));
}

TEST(OptReferencedFiles, FilesOptionsPointToAreReadAndParsed) {
  TempDir d;
  const std::pair<const char*, std::string> kCases[] = {
      {"fusion_switch_file", d.file("fs.cfg", "{\"Switch\":{\"GraphFusion\":{\"X\":\"maybe\"}}}")},
      {"op_precision_mode", d.file("op.ini", "[ByOpType]\nMatMul=fast\n")},
      {"op_debug_config", d.file("dbg.cfg", "op_debug_config = oom,boom\n")},
  };
  for (const auto& [opt, path] : kCases) {
    auto r = build({{opt, path}}, {}, {}, true);
    EXPECT_TRUE(has_error(r, opt, path + ":")) << opt << "\n" << dump_errors(r);
  }
  auto r = build({{"customize_dtypes", d.path() + "/none.cfg"}}, {}, {}, true);
  EXPECT_TRUE(has_error(r, "customize_dtypes", "no such file"));
  r = build({{"customize_dtypes", d.path()}}, {}, {}, true);
  EXPECT_TRUE(has_error(r, "customize_dtypes", "is a directory"));
}

TEST(OptGeneral, AMB_29_AllProblemsReportedTogether) {
  auto r = build({{"graph_run_mode", "3"},
                  {"precision_mode", "fast"},
                  {"dump_config.dump_mode", "everything"},
                  {"stream_max_parallel_num", "X:1"},
                  {"enable_dump", "True"},
                  {"optypelist_for_implmode", "LRN"}});
  EXPECT_EQ(r.errors.size(), 6u) << dump_errors(r);
  EXPECT_FALSE(r.options.has_value());
}

}  // namespace
}  // namespace openge::options::test
