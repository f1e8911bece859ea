// Options files: JSON and TF-adapter lines, every configuration example of the seed pages
// accepted verbatim, and file:line:column errors.
#include <gtest/gtest.h>

#include "options/options_file.h"
#include "options_test_util.h"

namespace openge::options::test {
namespace {

// Every npu.global_options() line of spec/seeds/002 (S2), verbatim.
const char* kSeedLines[] = {
    R"SEED(npu.global_options().graph_run_mode=1)SEED",
    R"SEED(npu.global_options().deterministic=1)SEED",
    R"SEED(npu.global_options().memory_config.atomic_clean_policy=1)SEED",
    R"SEED(npu.global_options().external_weight=True)SEED",
    R"SEED(npu.global_options().memory_config.static_memory_policy=0)SEED",
    R"SEED(npu.global_options().op_debug_config="/root/test0.cfg")SEED",
    R"SEED(npu.global_options().enable_exception_dump=1)SEED",
    R"SEED(npu.global_options().debug_dir="/home/test")SEED",
    R"SEED(npu.global_options().precision_mode="allow_mix_precision")SEED",
    R"SEED(npu.global_options().precision_mode_v2="origin")SEED",
    R"SEED(npu.global_options().modify_mixlist="/home/test/ops_info.json")SEED",
    R"SEED(npu.global_options().customize_dtypes = "/home/test/customize_dtypes.cfg")SEED",
    R"SEED(npu.global_options().fusion_switch_file="/home/test/fusion_switch.cfg")SEED",
    R"SEED(npu.global_options().dump_config.enable_dump=True)SEED",
    R"SEED(npu.global_options().dump_config.dump_path = "/home/HwHiAiUser/output")SEED",
    R"SEED(npu.global_options().dump_config.dump_step="0|5")SEED",
    R"SEED(npu.global_options().dump_config.dump_mode="all")SEED",
    R"SEED(npu.global_options().dump_config.dump_data = "stats")SEED",
    R"SEED(npu.global_options().dump_config.dump_layer = "nodename1 nodename2 nodename3")SEED",
    R"SEED(npu.global_options().dump_config.dump_debug_mode="aicore_overflow")SEED",
    R"SEED(npu.global_options().hcom_parallel=True)SEED",
    R"SEED(npu.global_options().enable_small_channel=1)SEED",
    R"SEED(npu.global_options().op_precision_mode="/home/test/op_precision.ini")SEED",
    R"SEED(npu.global_options().stream_max_parallel_num="DNN_VM_AICPU:10,AIcoreEngine:1")SEED",
    R"SEED(npu.global_options().is_tailing_optimization=True)SEED",
    R"SEED(npu.global_options().enable_scope_fusion_passes="ScopeLayerNormPass,ScopeClipBoxesPass")SEED",
    R"SEED(npu.global_options().profiling_config.enable_profiling=True)SEED",
    R"SEED(npu.global_options().profiling_config.profiling_options = '{"output":"/tmp/profiling","training_trace":"on","fp_point":"resnet_model/conv2d/Conv2Dresnet_model/batch_normalization/FusedBatchNormV3_Reduce","bp_point":"gradients/AddN_70"}')SEED",
    R"SEED(npu.global_options().aoe_config.aoe_mode="1")SEED",
    R"SEED(npu.global_options().aoe_config.work_path = "/home/HwHiAiUser/output")SEED",
    R"SEED(npu.global_options().aoe_config.aoe_config_file="/home/test/cfg/tuning_config.cfg")SEED",
    R"SEED(npu.global_options().op_compiler_cache_mode="enable")SEED",
    R"SEED(npu.global_options().op_compiler_cache_dir="/home/test/kernel_cache")SEED",
    R"SEED(npu.global_options().stream_sync_timeout=600000)SEED",
    R"SEED(npu.global_options().event_sync_timeout=600000)SEED",
    R"SEED(npu.global_options().jit_compile = "auto")SEED",
    R"SEED(npu.global_options().op_select_implmode="high_precision")SEED",
    R"SEED(npu.global_options().op_select_implmode="high_precision")SEED",
    R"SEED(npu.global_options().optypelist_for_implmode="Pooling,SoftmaxV2")SEED",
    R"SEED(npu.global_options().variable_format_optimize=True)SEED",
    R"SEED(npu.global_options().op_debug_level=0)SEED",
};

TEST(OptGeneral, OPT_general_1_EverySeedLineParsesAsAnAssignment) {
  for (const char* line : kSeedLines) {
    auto parsed = parse_options_text(line, "seed.py");
    EXPECT_TRUE(parsed.errors.empty()) << line << "\n" << parsed.errors.front();
    ASSERT_EQ(parsed.assignments.size(), 1u) << line;
  }
}

TEST(OptGeneral, OPT_general_1_EverySeedLineIsAcceptedAlone) {
  // Each line on its own (files are not read: the paths of the page do not exist here). The
  // lines that need a partner in the page are given one: modify_mixlist needs mixed precision
  // (the page sets it two fields earlier), optypelist_for_implmode needs op_select_implmode (the
  // line before it), enable_dump needs dump_path.
  TempDir dir;
  for (const char* line : kSeedLines) {
    const std::string file = dir.file("opts.py", std::string(line) + "\n");
    Flags extra;
    if (std::string(line).find("modify_mixlist") != std::string::npos)
      extra.push_back({"precision_mode", "allow_mix_precision"});
    if (std::string(line).find("optypelist_for_implmode") != std::string::npos)
      extra.push_back({"op_select_implmode", "high_precision"});
    if (std::string(line).find("enable_dump=") != std::string::npos) extra.push_back({"dump_path", "/tmp"});
    // enable_profiling needs an output folder: the page's ASCEND_WORK_PATH route (ENV-13).
    auto r = build(extra, {{"ASCEND_WORK_PATH", "/tmp/w"}}, {file});
    EXPECT_TRUE(r.errors.empty()) << line << "\n" << dump_errors(r);
  }
}

TEST(OptGeneral, OPT_general_1_SeedLinesTogetherGiveTheirValues) {
  TempDir dir;
  std::string all;
  for (const char* line : kSeedLines) {
    const std::string l = line;
    // The page shows alternatives that exclude each other; keep the first of each pair.
    if (l.find("precision_mode_v2") != std::string::npos || l.find("op_precision_mode") != std::string::npos) continue;
    all += l + "\n";
  }
  auto r = build({}, {}, {dir.file("seed.py", "import npu_device as npu\n" + all)});
  ASSERT_TRUE(r.errors.empty()) << dump_errors(r);
  const OptionSet& o = *r.options;
  EXPECT_EQ(o.get("graph_run_mode"), "1");
  EXPECT_EQ(o.get("memory_config.atomic_clean_policy"), "1");
  EXPECT_EQ(o.get("external_weight"), "True");
  EXPECT_EQ(o.get("precision_mode"), "allow_mix_precision");
  EXPECT_EQ(o.get("dump_config.dump_step"), "0|5");
  EXPECT_EQ(o.get("dump_config.dump_layer"), "nodename1 nodename2 nodename3");
  EXPECT_EQ(o.get("stream_max_parallel_num"), "DNN_VM_AICPU:10,AIcoreEngine:1");
  EXPECT_EQ(o.get("aoe_config.aoe_mode"), "1");
  EXPECT_EQ(o.get("stream_sync_timeout"), "600000");
  EXPECT_EQ(o.get("op_debug_level"), "0");
  EXPECT_EQ(o.find("precision_mode")->source, Source::kFile);
  EXPECT_NE(o.find("precision_mode")->origin.find("seed.py:"), std::string::npos);
  // Deprecated fields of the page are accepted with CANN's warning.
  EXPECT_TRUE(has_warning(r, "Option 'op_debug_level' is deprecated"));
  EXPECT_TRUE(has_warning(r, "Please use 'op_debug_config' instead."));
  EXPECT_TRUE(has_warning(r, "Option 'variable_format_optimize' is deprecated"));
}

TEST(OptionsFile, ParsesJsonWithNestedGroups) {
  auto p = parse_options_text(R"({"precision_mode": "allow_mix_precision",
    "dump_config": {"enable_dump": true, "dump_path": "out", "dump_step": null},
    "profiling_config": {"profiling_options": {"output": "/tmp", "task_trace": "on"}},
    "deterministic": 1})",
                              "o.json");
  ASSERT_TRUE(p.errors.empty()) << p.errors.front();
  ASSERT_EQ(p.assignments.size(), 5u);
  EXPECT_EQ(p.assignments[0].name, "deterministic");
  EXPECT_EQ(p.assignments[0].value, "1");
  EXPECT_EQ(p.assignments[1].name, "dump_config.dump_path");
  EXPECT_EQ(p.assignments[2].name, "dump_config.enable_dump");
  EXPECT_EQ(p.assignments[2].value, "True");
  EXPECT_EQ(p.assignments[3].name, "precision_mode");
  EXPECT_EQ(p.assignments[4].name, "profiling_config.profiling_options");
  EXPECT_EQ(p.assignments[4].value, R"({"output":"/tmp","task_trace":"on"})");
}

TEST(OptionsFile, JsonSyntaxErrorHasLineAndColumn) {
  auto p = parse_options_text("{\n  \"a\": 1,\n  \"b\" 2\n}", "bad.json");
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0].rfind("bad.json:3:", 0), 0u) << p.errors[0];
}

TEST(OptionsFile, JsonRejectsArraysAndFractions) {
  auto p = parse_options_text(R"({"dump_layer": ["a"], "deterministic": 1.5})", "x.json");
  EXPECT_EQ(p.errors.size(), 2u);
}

TEST(OptionsFile, TfLinesWithCommentsBlankLinesAndQuotes) {
  auto p = parse_options_text(
      "# my settings\n\n  npu.global_options().precision_mode='allow_mix_precision'  # inline\n"
      "npu.global_options().dump_config.enable_dump = True\r\n"
      "dump_config.dump_path = \"a\\\\b\\'c\"\n"
      "npu.global_options().op_debug_level=None\n"
      "stream_sync_timeout = -1\n",
      "o.py");
  ASSERT_TRUE(p.errors.empty()) << p.errors.front();
  ASSERT_EQ(p.assignments.size(), 4u);
  EXPECT_EQ(p.assignments[0].value, "allow_mix_precision");
  EXPECT_EQ(p.assignments[0].line, 3);
  EXPECT_EQ(p.assignments[1].value, "True");
  EXPECT_EQ(p.assignments[2].value, "a\\b'c");
  EXPECT_EQ(p.assignments[3].value, "-1");
}

TEST(OptionsFile, TfLinesAreNeverEvaluated) {
  auto p = parse_options_text(
      "npu.global_options().precision_mode=os.system('rm -rf /')\n"
      "npu.global_options().deterministic=1+1\n"
      "npu.global_options().debug_dir=\"/tmp\" + x\n",
      "evil.py");
  ASSERT_EQ(p.errors.size(), 3u);
  EXPECT_EQ(p.errors[0].rfind("evil.py:1:37: ", 0), 0u) << p.errors[0];
  EXPECT_EQ(p.errors[1].rfind("evil.py:2:", 0), 0u) << p.errors[1];
  EXPECT_NE(p.errors[2].find("unexpected text after the value"), std::string::npos) << p.errors[2];
}

TEST(OptionsFile, TfLineErrorsReportEveryLine) {
  auto p = parse_options_text("a=\nb='x\n=1\nc 1\n", "e.py");
  EXPECT_EQ(p.errors.size(), 4u);
}

TEST(OptionsFile, UnreadableFileAndDirectoryAreErrors) {
  TempDir d;
  auto missing = read_options_file(d.path() + "/nope.json");
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_NE(missing.errors[0].find("no such file"), std::string::npos);
  auto dir = read_options_file(d.path());
  ASSERT_EQ(dir.errors.size(), 1u);
  EXPECT_NE(dir.errors[0].find("is a directory"), std::string::npos);
}

TEST(OptionsFile, ProblemsInFilesComeBackAsOptionsFileProblems) {
  TempDir d;
  auto r = build({}, {}, {d.file("bad.py", "precision_mode=\n")});
  EXPECT_TRUE(has_error(r, "--options-file", "bad.py:1:16"));
}

// A TF1 training script pasted whole: the session-config lines set options, the rest of the
// script is skipped and each skipped line is reported by number.
TEST(OptionsFile, Tf1ParameterMapScriptIsReadAndItsOtherLinesSkipped) {
  auto p = parse_options_text(
      "import tensorflow as tf\n"
      "from npu_bridge.npu_init import *\n"
      "config = tf.ConfigProto()\n"
      "custom_op = config.graph_options.rewrite_options.custom_optimizers.add()\n"
      "custom_op.name = \"NpuOptimizer\"\n"
      "custom_op.parameter_map[\"use_off_line\"].b = True\n"
      "custom_op.parameter_map[\"precision_mode\"].s = tf.compat.as_bytes(\"allow_mix_precision\")\n"
      "custom_op.parameter_map['enable_dump'].b = True\n"
      "custom_op.parameter_map[\"dump_step\"].s = b\"0|5\"  # steps\n"
      "custom_op.parameter_map[\"stream_sync_timeout\"].i = 600\n"
      "config.graph_options.rewrite_options.remapping = RewriterConfig.OFF\n"
      "with tf.Session(config=config) as sess:\n"
      "    sess.run(train_op)\n",
      "train.py");
  ASSERT_TRUE(p.errors.empty()) << p.errors.front();
  ASSERT_EQ(p.assignments.size(), 4u);
  EXPECT_EQ(p.assignments[0].name, "precision_mode");
  EXPECT_EQ(p.assignments[0].value, "allow_mix_precision");
  EXPECT_EQ(p.assignments[0].line, 7);
  EXPECT_EQ(p.assignments[1].name, "enable_dump");
  EXPECT_EQ(p.assignments[1].value, "True");
  EXPECT_EQ(p.assignments[2].value, "0|5");
  EXPECT_EQ(p.assignments[3].value, "600");
  EXPECT_EQ(p.skipped_lines, (std::vector<int>{3, 4, 5, 6, 11, 12, 13}));
}

TEST(OptionsFile, ParameterMapValueOfTheWrongFormIsAnError) {
  auto p = parse_options_text(
      "custom_op.parameter_map[\"enable_dump\"].b = 1\n"
      "custom_op.parameter_map[\"precision_mode\"].s = allow_mix_precision\n",
      "t.py");
  ASSERT_EQ(p.errors.size(), 2u);
  EXPECT_NE(p.errors[0].find(".b needs True or False"), std::string::npos) << p.errors[0];
  EXPECT_NE(p.errors[1].find(".s needs a string"), std::string::npos) << p.errors[1];
}

// In a script, a line that names a known option but is malformed is still an error, not skipped.
TEST(OptionsFile, MalformedOptionLineInAScriptIsStillAnError) {
  auto p = parse_options_text("npu.global_options().deterministic=1\nprecision_mode = allow_mix\nx = foo()\n", "s.py");
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0].rfind("s.py:2:", 0), 0u) << p.errors[0];
  EXPECT_EQ(p.skipped_lines, (std::vector<int>{3}));
}

// A plain NAME = VALUE file is no script: a line that is not an option stays an error.
TEST(OptionsFile, PlainFileDoesNotSkipLines) {
  auto p = parse_options_text("precision_mode = \"force_fp32\"\nconfig = tf.ConfigProto()\n", "p.py");
  EXPECT_EQ(p.errors.size(), 1u);
  EXPECT_TRUE(p.skipped_lines.empty());
}

TEST(OptionsFile, SkippedLinesAreReportedAsAWarning) {
  TempDir d;
  auto r =
      build({}, {}, {d.file("t.py", "config = tf.ConfigProto()\nnpu.global_options().deterministic=1\nsess = s()\n")});
  ASSERT_TRUE(r.errors.empty());
  bool reported = false;
  for (const auto& w : r.warnings)
    reported = reported || w.find("t.py: 2 lines that set no option skipped (lines 1, 3)") != std::string::npos;
  EXPECT_TRUE(reported);
}

}  // namespace
}  // namespace openge::options::test
