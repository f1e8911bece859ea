// The option table says, for every option, exactly one of: what it does now (and which file
// under src/ consumes it), "accepted, not implemented yet", or "no effect on CPU". These tests
// hold the table to it, so that `openge options`, `--explain`, `openge paths` and
// docs/OPTIONS.md cannot claim an effect that no engine code produces:
// - statically: every implemented row names a consumer under src/ that exists and names the
//   option; every other row names none;
// - dynamically: a Session opens and runs the demo model with every implemented option at a
//   non-default value (and the triggers of the unimplemented artifacts on); the OptionSet
//   records what engine code read, and every implemented row must be in that record while no
//   other row may be (an engine read of an "unimplemented" option means the row is stale);
// - options whose consumer is the option layer itself (scenario defaults) must change another
//   option's effective value;
// - every artifact `openge paths` calls written is written by that run, and no file appears
//   that an artifact marked "nothing writes it yet" accounts for.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "openge/session.h"
#include "openge/trainer.h"
#include "options/option_table.h"
#include "options_test_util.h"
#include "paths/artifact_paths.h"

namespace openge::options::test {
namespace {
namespace fs = std::filesystem;

const std::string kDemoModel = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";

bool implemented(const OptionSpec& s) { return s.status == Effect::kImplemented; }

// Rows whose effect is on other options (scenario defaults), applied while the set is built.
bool option_layer_consumer(const OptionSpec& s) { return std::string_view(s.consumer).starts_with("src/options/"); }

// Environment rows (ASCEND_WORK_PATH ...) are given as the environment, the others as flags.
bool environment_row(const OptionSpec& s) { return *s.env_var && s.env_var == std::string_view(s.name); }

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(OPENGE_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Non-default, valid values for every implemented option, as scenarios: options that exclude
// each other (precision_mode / precision_mode_v2, op_precision_mode over op_select_implmode) go
// to different scenarios, each opened and run separately. A row flipped to "implemented" needs
// its value here; the tests say so.
using Scenario = std::map<std::string, std::string>;
std::vector<Scenario> implemented_option_scenarios(const TempDir& d) {
  d.file("inputs/toolkit/tools/aoe/conf/aoe.ini", "RUN_LOOP=2\n");
  return {
      {
          {"graph_run_mode", "0"},
          {"soc_version", "Ascend910"},
          {"device_id", "5"},
          {"profiling_config.enable_profiling", "True"},
          // No "output": the data must land under ASCEND_WORK_PATH (its implemented effect).
          {"profiling_config.profiling_options", R"({"task_trace":"on","training_trace":"on","aicpu":"on"})"},
          {"ASCEND_WORK_PATH", d.path() + "/ascend_work"},
          {"max_tensor_bytes", "1073741824"},  // 1 GiB: far above the demo's tensors, not the default
          {"ASCEND_PROCESS_LOG_PATH", d.path() + "/process_log"},
          {"ASCEND_GLOBAL_LOG_LEVEL", "1"},  // info: the compile records reach the file
          {"DUMP_GE_GRAPH", "2"},
          {"DUMP_GRAPH_LEVEL", "3"},
          {"DUMP_GRAPH_PATH", d.path() + "/graphs"},
          {"NPU_COLLECT_PATH", d.path() + "/collect"},
          {"compiled_shape_cache_size", "4"},
          {"threading_grain_cycles", "100000"},
          {"stream_max_parallel_num", "AIcoreEngine:2,DNN_VM_AICPU:1"},
          {"precision_mode", "force_fp32"},
          {"op_select_implmode", "high_performance"},
          {"optypelist_for_implmode", "Pooling"},
          {"dump_config.enable_dump", "True"},
          {"dump_config.dump_path", d.dir("dump")},
          {"dump_config.dump_step", "0"},
          {"dump_config.dump_mode", "all"},
          {"dump_config.dump_data", "stats"},
          {"dump_config.dump_layer", "softmax fc"},  // two of the demo model's nodes
          {"deterministic", "1"},
          {"ASCEND_OPP_PATH", std::string(OPENGE_SOURCE_DIR) + "/opp"},  // the shipped profiles, by the variable
          // The operator compile cache: read at every compile that builds kernels online (NPU_COLLECT_PATH
          // forces it here), its folder made only when a kernel is stored (the demo model has none).
          {"op_compiler_cache_mode", "force"},
          {"op_compiler_cache_dir", d.path() + "/op_cache_dir"},
          {"ASCEND_CACHE_PATH", d.path() + "/cache"},
          {"ASCEND_MAX_OP_CACHE_SIZE", "7"},
          {"ASCEND_REMAIN_CACHE_SIZE_RATIO", "30"},
          // AOE operator tuning of the demo's Gemm only: its record and knowledge base in the work path.
          {"aoe_config.aoe_mode", "2"},
          {"aoe_config.work_path", d.dir("aoe_work")},
          {"aoe_config.aoe_config_file", d.file("inputs/aoe_tuning.cfg", R"({"tune_ops_type":["Gemm"]})")},
          // CANN's aoe.ini (ENV-4): its RUN_LOOP keeps the measurements short.
          {"ASCEND_TOOLKIT_HOME", d.path() + "/inputs/toolkit"},
      },
      {
          // The files live in inputs/, which the artifact check leaves alone.
          {"precision_mode_v2", "mixed_float16"},
          {"ASCEND_SLOG_PRINT_TO_STDOUT", "1"},  // records on stdout: none at the default level (error)
          {"modify_mixlist", d.file("inputs/mixlist.json", R"({"black-list": {"to-add": ["Relu"]}})")},
          {"customize_dtypes", d.file("inputs/dtypes.cfg", "OpType::Relu:InputDtype:float32,OutputDtype:float32\n")},
          {"op_precision_mode", d.file("inputs/op_precision.ini", "[ByOpType]\nConv2D=high_precision\n")},
          {"fusion_switch_file", d.file("inputs/fusion_switch.cfg", R"({"Switch":{"GraphFusion":{"ALL":"off"}}})")},
          {"enable_scope_fusion_passes", "ScopeInstanceNormPass"},
          {"dump_config.enable_dump_debug", "True"},
          {"dump_config.dump_path", d.dir("overflow_dump")},
          {"dump_config.dump_debug_mode", "aicore_overflow"},
          {"enable_exception_dump", "2"},
          {"stream_sync_timeout", "600000"},
          {"memory_config.atomic_clean_policy", "1"},
          {"external_weight", "True"},
          {"enable_small_channel",
           "1"},  // training (the default graph_run_mode), where its default is 0
                  // The online compiler (src/compiler/): read at every compile, acting on fused vector kernels.
          {"jit_compile", "true"},
          {"op_debug_level", "3"},
          {"op_debug_config", d.file("inputs/op_debug.cfg", "op_debug_config = dump_bin\n")},
          {"debug_dir", d.dir("inputs/debug")},
          {"CXX", "g++"},
      },
      {
          // Data-parallel training (session/data_parallel.cpp): read when a Trainer opens, acting
          // under mpirun (tests/distributed/).
          {"hcom_parallel", "False"},
          {"variable_format_optimize", "True"},  // read when a Trainer opens, acting at its first step
          {"is_tailing_optimization", "True"},
          {"event_sync_timeout", "60000"},
          {"HCCL_EXEC_TIMEOUT", "30"},
          {"HCCL_CONNECT_TIMEOUT", "300"},
      },
  };
}

// The first scenario: the profiling and artifact checks run on it.
Scenario implemented_option_values(const TempDir& d) { return implemented_option_scenarios(d).front(); }

// Options that would make OpenGE write the artifacts `openge paths` says nothing writes yet.
std::map<std::string, std::string> unimplemented_artifact_triggers(const TempDir& d) {
  (void)d;
  return {};  // none today: every artifact with a trigger option has its writer
}

struct DemoRun {
  std::shared_ptr<const OptionSet> config;
  std::set<std::string> reads;  // what engine code read while the session opened and ran
};

// Opens and runs the demo model with `values`, from a working directory and HOME inside `d`.
DemoRun run_demo(const TempDir& d, const std::map<std::string, std::string>& values) {
  Flags flags;
  EnvMap env = {{"HOME", d.dir("home")}};
  for (const auto& [name, value] : values) {
    const OptionSpec* spec = find_option(name);
    if (!spec) continue;  // a value for a row that is not in this tree's table
    if (environment_row(*spec))
      env[name] = value;
    else
      flags.emplace_back(name, value);
  }
  BuildReport r = build(flags, env, {}, /*check_files=*/true, d.path());
  EXPECT_TRUE(r.errors.empty()) << dump_errors(r);
  if (!r.options) return {};
  DemoRun out;
  out.config = std::make_shared<const OptionSet>(std::move(*r.options));
  // The builder's own reads (defaults, validation) must not count as consumption.
  EXPECT_TRUE(out.config->options_read().empty());

  SessionOptions so;
  so.config = out.config;
  so.num_threads = 1;
  auto session = Session::open(kDemoModel, so);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return out;
  std::vector<Tensor> inputs;
  for (const auto& info : (*session)->inputs()) {
    Shape shape = info.shape;
    for (auto& dim : shape) dim = dim < 0 ? 1 : dim;
    inputs.emplace_back(info.dtype, shape);  // zero-filled
  }
  auto outputs = (*session)->run(inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.status().message();
  EXPECT_TRUE((*session)->finish_profiling().ok());
  if (values.count("hcom_parallel")) {
    // The training scenario: a Trainer of the demo model reads its options when it opens.
    TrainerOptions to;
    to.session = so;
    auto trainer = Trainer::open(kDemoModel, to);
    EXPECT_TRUE(trainer.ok()) << trainer.status().message();
  }
  out.reads = out.config->options_read();
  return out;
}

std::string status_words(const OptionSpec& s) { return std::string("'") + effect_label(s.status) + "'"; }

TEST(OptionEffects, EveryRowStatesOneEffectAndImplementedRowsNameTheirConsumer) {
  for (const auto& s : option_table()) {
    EXPECT_GT(std::string(s.effect).size(), 10u) << s.name << ": say what it does, or why it does nothing";
    if (!implemented(s)) {
      EXPECT_STREQ(s.consumer, "") << s.name << " is " << status_words(s) << " but names a consumer";
      continue;
    }
    const std::string consumer = s.consumer;
    ASSERT_TRUE(consumer.starts_with("src/"))
        << s.name << ": the consumer must be engine code under src/, not '" << consumer << "'";
    ASSERT_TRUE(fs::is_regular_file(std::string(OPENGE_SOURCE_DIR) + "/" + consumer))
        << s.name << ": consumer " << consumer << " does not exist";
    // The consumer names the option (by its name, or its leaf: options.device_id()).
    const std::string text = read_source(consumer);
    const std::string_view name = s.name;
    const std::string leaf(name.substr(name.rfind('.') == std::string_view::npos ? 0 : name.rfind('.') + 1));
    EXPECT_TRUE(text.find(s.name) != std::string::npos || text.find(leaf) != std::string::npos)
        << s.name << ": consumer " << consumer << " never mentions it";
  }
}

TEST(OptionEffects, EveryImplementedOptionIsReadByEngineCode) {
  TempDir d;
  const auto scenarios = implemented_option_scenarios(d);
  std::vector<DemoRun> runs;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    auto all = scenarios[i];
    if (i == 0)
      for (const auto& [k, v] : unimplemented_artifact_triggers(d)) all.emplace(k, v);
    runs.push_back(run_demo(d, all));
    ASSERT_TRUE(runs.back().config) << "scenario " << i;
  }
  for (const auto& s : option_table()) {
    if (!implemented(s)) continue;
    size_t i = 0;
    while (i < scenarios.size() && !scenarios[i].count(s.name)) ++i;
    if (i == scenarios.size()) {
      ADD_FAILURE() << s.name << " is marked implemented: give it a non-default valid value in "
                    << "implemented_option_scenarios() so that this test can prove its consumer reads it";
      continue;
    }
    EXPECT_NE(scenarios[i].at(s.name), default_for(s, DefaultContext{1, kDefaultSoc}))
        << s.name << ": pick a non-default value";
    if (option_layer_consumer(s)) continue;  // OptionLayerEffectsChangeAnotherOptionsValue
    EXPECT_TRUE(runs[i].reads.count(s.name)) << s.name << " is marked implemented (consumer " << s.consumer
                                             << "), but opening and running a model with it set never read it";
  }
}

// The other direction: engine code that reads an option the table calls unimplemented (or
// without effect) means the row is stale. When a feature lands, this test names the rows to flip.
TEST(OptionEffects, NoOptionMarkedUnimplementedIsReadByEngineCode) {
  TempDir d;
  auto all = implemented_option_values(d);
  for (const auto& [k, v] : unimplemented_artifact_triggers(d)) all.emplace(k, v);
  const DemoRun run = run_demo(d, all);
  ASSERT_TRUE(run.config);
  for (const auto& s : option_table()) {
    if (implemented(s)) continue;
    EXPECT_FALSE(run.reads.count(s.name))
        << "engine code read " << s.name << ", but the option table says " << status_words(s)
        << ": if it acts now, mark the row implemented and name its consumer";
  }
}

TEST(OptionEffects, OptionLayerEffectsChangeAnotherOptionsValue) {
  const BuildReport base = build({});
  ASSERT_TRUE(base.options) << dump_errors(base);
  TempDir d;
  Scenario values;
  for (const auto& scenario : implemented_option_scenarios(d)) values.insert(scenario.begin(), scenario.end());
  for (const auto& s : option_table()) {
    if (!implemented(s) || !option_layer_consumer(s)) continue;
    auto it = values.find(s.name);
    if (it == values.end()) continue;  // reported by the test above
    const BuildReport changed = build({{s.name, it->second}});
    ASSERT_TRUE(changed.options) << dump_errors(changed);
    std::vector<std::string> moved;
    for (const auto& [name, v] : changed.options->values())
      if (name != s.name && v.value != base.options->values().at(name).value) moved.push_back(name);
    EXPECT_FALSE(moved.empty()) << s.name << "=" << it->second << " is said to act through " << s.consumer
                                << ", but no other option's value changed";
  }
}

// Is `file` at or under `root`?
bool under(const fs::path& file, const std::string& root) {
  if (root.empty()) return false;
  const auto rel = file.lexically_relative(fs::path(root).lexically_normal());
  return !rel.empty() && *rel.begin() != "..";
}

TEST(OptionEffects, PathsSayWhichArtifactsAreWrittenAndOnlyThoseAre) {
  TempDir d;
  auto all = implemented_option_values(d);
  for (const auto& [k, v] : unimplemented_artifact_triggers(d)) all.emplace(k, v);
  const DemoRun run = run_demo(d, all);
  ASSERT_TRUE(run.config);
  const auto resolved = paths::resolve_all_artifacts(*run.config, paths::RunIds::current());
  for (const auto& r : resolved) {
    const char* writer = paths::artifact_writer(r.kind);
    if (!writer) continue;
    EXPECT_TRUE(fs::is_regular_file(std::string(OPENGE_SOURCE_DIR) + "/" + writer)) << writer;
    if (paths::artifact_written_only(r.kind)) continue;  // not in a healthy run (tests of its own cover it)
    EXPECT_TRUE(fs::is_directory(r.directory()) && !fs::is_empty(r.directory()))
        << paths::artifact_name(r.kind) << " is said to be written by " << writer << ", but " << r.path
        << " is empty or missing after a run";
  }
  // Every file the run created is accounted for by an artifact that is said to be written.
  for (const auto& e : fs::recursive_directory_iterator(d.path())) {
    if (!e.is_regular_file() || under(e.path(), d.path() + "/inputs")) continue;  // the test's own files
    std::string owner, unwritten;
    for (const auto& r : resolved) {
      if (!under(e.path(), r.path)) continue;
      (paths::artifact_writer(r.kind) ? owner : unwritten) = paths::artifact_name(r.kind);
    }
    EXPECT_FALSE(owner.empty()) << e.path() << " was written, but "
                                << (unwritten.empty() ? std::string("no artifact kind accounts for it")
                                                      : "artifact_writer() says nothing writes " + unwritten);
  }
}

std::string effect_of(const std::string& name) {
  const OptionSpec* s = find_option(name);
  return s ? s->effect : "";
}

bool says(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// No implemented row may call an artifact unwritten while every artifact kind has its writer.
TEST(OptionEffects, NoRowCallsAWrittenArtifactUnwritten) {
  for (auto kind : paths::all_artifact_kinds()) ASSERT_NE(paths::artifact_writer(kind), nullptr);
  for (const auto& s : option_table()) {
    const std::string text = s.effect;
    EXPECT_FALSE(says(text, "not written yet") || says(text, "would carry")) << s.name << ": " << text;
  }
}

// ASCEND_WORK_PATH's sentence names every artifact whose folder the work path decides.
TEST(OptionEffects, ENV_1_WorkPathSentenceNamesEveryArtifactItRoots) {
  TempDir d;
  const std::string work = d.dir("work");
  BuildReport r =
      build({{"profiling_config.enable_profiling", "True"}}, {{"ASCEND_WORK_PATH", work}}, {}, false, d.path());
  ASSERT_TRUE(r.options) << dump_errors(r);
  const paths::RunIds ids = paths::RunIds::current();
  const std::string text = effect_of("ASCEND_WORK_PATH");
  const std::string pid = std::to_string(ids.pid), pid_dev = pid + "_" + std::to_string(r.options->device_id());
  int rooted = 0;
  for (const auto& resolved : paths::resolve_all_artifacts(*r.options, ids)) {
    if (!paths::chosen_by_work_path(resolved)) continue;
    ++rooted;
    std::string first = fs::path(resolved.path).lexically_relative(work).begin()->string();
    if (first == pid_dev) first = "${pid}_${device_id}";
    if (first.starts_with("tmp_weight_")) first = "tmp_weight_";
    EXPECT_TRUE(says(text, first)) << paths::artifact_name(resolved.kind) << " goes to " << resolved.path
                                   << ", which the ASCEND_WORK_PATH sentence does not name: " << text;
  }
  EXPECT_GE(rooted, 9);
}

// device_id names the graph dump folder and the Data Dump folder of a real run, as it says.
TEST(OptionEffects, AMB_23_DeviceIdNamesTheDumpFoldersItClaims) {
  TempDir d;
  const std::string text = effect_of("device_id");
  ASSERT_TRUE(says(text, "${pid}_${device_id}") && says(text, "Data Dump")) << text;
  const DemoRun run = run_demo(d, {{"device_id", "5"},
                                   {"ASCEND_WORK_PATH", d.path() + "/ascend_work"},
                                   {"DUMP_GE_GRAPH", "3"},
                                   {"dump_config.enable_dump", "True"},
                                   {"dump_config.dump_path", d.dir("dump")}});
  ASSERT_TRUE(run.config);
  EXPECT_TRUE(fs::is_directory(d.path() + "/ascend_work/" + std::to_string(::getpid()) + "_5"));
  bool device_folder = false;
  for (const auto& session_dir : fs::directory_iterator(d.path() + "/dump"))
    device_folder = device_folder || fs::is_directory(session_dir.path() / "5");
  EXPECT_TRUE(device_folder) << "no <dump_path>/<time>/5 folder";
}

// graph_run_mode's sentence: each option-layer consequence it names happens, and only in its mode.
TEST(OptionEffects, OPT_graph_run_mode_4_SentenceMatchesTheRules) {
  const std::string text = effect_of("graph_run_mode");
  ASSERT_TRUE(says(text, "enable_small_channel at 1") && says(text, "force_fp16 only under 0") &&
              says(text, "task_trace=on without training_trace=on"))
      << text;
  BuildReport r = build({{"graph_run_mode", "0"}, {"enable_small_channel", "0"}});
  EXPECT_EQ(value_of(r, "enable_small_channel"), "1");
  EXPECT_TRUE(has_warning(r, "enable_small_channel"));
  EXPECT_TRUE(has_error(build({{"graph_run_mode", "1"}, {"precision_mode", "force_fp16"}}), "precision_mode"));
  EXPECT_TRUE(accepted({{"graph_run_mode", "0"}, {"precision_mode", "force_fp16"}}));
  const Flags trace = {{"profiling_config.enable_profiling", "True"},
                       {"profiling_config.profiling_options", R"({"output":"/tmp","task_trace":"on"})"}};
  Flags training = trace, inference = trace;
  training.push_back({"graph_run_mode", "1"});
  inference.push_back({"graph_run_mode", "0"});
  EXPECT_FALSE(build(training).errors.empty());
  EXPECT_TRUE(build(inference).errors.empty()) << dump_errors(build(inference));
}

// enable_exception_dump's sentence no longer denies the workspace (NPU-12 dumps oneDNN's scratchpad).
TEST(OptionEffects, NPU_12_ExceptionDumpSentenceNamesTheWorkspace) {
  const std::string text = effect_of("enable_exception_dump");
  EXPECT_TRUE(says(text, "workspace 0") && !says(text, "no workspace")) << text;
}

}  // namespace
}  // namespace openge::options::test
