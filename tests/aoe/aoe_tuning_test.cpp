// AOE operator tuning (aoe_config.*, ENV-2..4): a tuning run on the bundled demo model (three
// convolutions, a max pool, a global average pool and a Gemm: six tunable operators, counted by
// hand from the model) writes its record and knowledge base into the aoe_data folder of the
// chain; the next compile takes every operator from the base without measuring; a corrupt base
// is detected, ignored and rebuilt; aoe_config_file limits what is measured; aoe_mode 4 is one
// clear error. Every measurement runs once (CompileOptions::aoe_repetitions = 1), so each test
// takes a fraction of a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "aoe/knowledge_base.h"
#include "aoe/tuned_selection.h"
#include "aoe/tuning_space.h"
#include "frontend/onnx_loader.h"
#include "passes/channels_last_layout_pass.h"
#include "options/options_test_util.h"
#include "compiler/pipeline.h"
#include "openge/random_inputs.h"
#include "compiler/compile_config_test_util.h"

namespace openge::aoe {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using options::test::TempDir;

const std::string kDemoModel = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";
constexpr int kDemoTunableOps = 6;  // conv1, conv2, conv3, pool1, gap, fc

std::shared_ptr<const options::OptionSet> config(const options::test::Flags& flags, const options::EnvMap& env,
                                                 const std::string& cwd) {
  auto r = options::test::build(flags, env, {}, /*check_files=*/true, cwd);
  EXPECT_TRUE(r.errors.empty()) << options::test::dump_errors(r);
  if (!r.options) return nullptr;
  return std::make_shared<const options::OptionSet>(std::move(*r.options));
}

// The demo model compiled, with the compile's report (AOE's statistics are there).
Result<compiler::Compilation> compile_demo(std::shared_ptr<const options::OptionSet> cfg, int threads = 2,
                                           passes::Nc1hwc0Regions regions = passes::Nc1hwc0Regions::kByCpu) {
  auto g = load_onnx(kDemoModel);
  if (!g.ok()) return g.status();
  std::vector<Shape> shapes;
  for (int in : g->inputs) shapes.push_back(*g->values[static_cast<size_t>(in)].shape);
  CompileOptions co;
  co.num_threads = threads;
  co.nc1hwc0_regions = regions;
  co.config = openge::test::compile_config(cfg);
  co.aoe_repetitions = 1;
  return compiler::compile_with_report(std::move(g.value()), shapes, co);
}

std::vector<fs::path> records_in(const std::string& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().starts_with("aoe_result_opat_")) out.push_back(e.path());
  return out;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str(), nullptr, false);
}

std::vector<Tensor> run(const Executable& exe) {
  const Graph& g = exe.graph();
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    inputs.push_back(random_tensor(g.values[static_cast<size_t>(g.inputs[i])].dtype,
                                   *g.values[static_cast<size_t>(g.inputs[i])].shape, 7));
  auto out = exe.run(inputs);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(out.value()) : std::vector<Tensor>{};
}

// Tuned and untuned compiles compute the same (Winograd rounds differently: 1e-4 relative).
void expect_same_outputs(const Executable& tuned, const Executable& plain) {
  const auto a = run(tuned), b = run(plain);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    for (int64_t j = 0; j < a[i].numel(); ++j)
      EXPECT_NEAR(a[i].data<float>()[j], b[i].data<float>()[j], 1e-4 * (1 + std::abs(b[i].data<float>()[j])));
}

TEST(AoeTuning, ENV_2_OPT_aoe_config_aoe_mode_3_TuningRunWritesRecordAndKnowledgeBase) {
  TempDir d;
  const std::string work = d.dir("aoe_work");
  auto exe = compile_demo(config({{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", work}}, {}, d.path()));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  const TuningStats& s = exe->report.tuning_stats;
  EXPECT_TRUE(s.tuning);
  EXPECT_EQ(s.tunable_operators, kDemoTunableOps);
  EXPECT_EQ(s.measured_operators, kDemoTunableOps);
  EXPECT_EQ(s.knowledge_base_hits, 0);

  // The record (ENV-2): task name, tuning time, model and operator times before and after, hits.
  const auto records = records_in(work);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].string(), s.record_path);
  const json doc = read_json(records[0]);
  ASSERT_TRUE(doc.is_object() && doc.size() == 1u) << doc.dump();
  const json& report = doc.begin().value();
  EXPECT_TRUE(doc.begin().key().starts_with("report_"));
  const json& basic = report.at(0).at("basic");
  EXPECT_TRUE(basic.at("tuning_name").get<std::string>().starts_with("demo_"));
  EXPECT_GT(basic.at("tuning_time(s)").get<double>(), 0.0);
  EXPECT_GT(basic.at("model_baseline_performance(ms)").get<double>(), 0.0);
  EXPECT_GT(basic.at("model_result_performance(ms)").get<double>(), 0.0);
  const json& opat = report.at(1).at("OPAT");
  EXPECT_EQ(opat.at("knowledge_base").at("hits"), 0);
  EXPECT_EQ(opat.at("knowledge_base").at("measured_operators"), kDemoTunableOps);
  ASSERT_EQ(opat.at("tuned_operators").size(), static_cast<size_t>(kDemoTunableOps));
  for (const json& op : opat.at("tuned_operators")) {
    const json& perf = op.at("tune_performance").at("Implementation");
    EXPECT_GT(perf.at("performance_before_tune(us)").get<double>(), 0.0) << op.dump();
    // The winner is the fastest measured, the default included.
    EXPECT_LE(perf.at("performance_after_tune(us)").get<double>(),
              perf.at("performance_before_tune(us)").get<double>());
  }

  // The knowledge base: one entry per operator, each a variant that reads back.
  const json kb = read_json(fs::path(work) / kKnowledgeBaseFile);
  ASSERT_TRUE(kb.is_object()) << "no knowledge base";
  EXPECT_EQ(kb.at("entries").size(), static_cast<size_t>(kDemoTunableOps));
  for (const auto& [key, e] : kb.at("entries").items())
    EXPECT_TRUE(parse_kernel_variant(e.at("variant").get<std::string>()).has_value()) << key;

  // The tuned kernels compute what the untuned ones do (Winograd rounds differently: 1e-4).
  auto plain = compile_demo(nullptr);
  ASSERT_TRUE(plain.ok());
  expect_same_outputs(*exe->executable, *plain->executable);
}

TEST(AoeTuning, ENV_2_NextCompileHitsTheKnowledgeBaseWithoutMeasuring) {
  TempDir d;
  const std::string work = d.dir("aoe_work");
  ASSERT_TRUE(compile_demo(config({{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", work}}, {}, d.path())).ok());
  const json kb = read_json(fs::path(work) / kKnowledgeBaseFile);
  ASSERT_TRUE(kb.is_object());
  // A later compile, no tuning asked: every operator's variant comes from the base.
  auto next = compile_demo(config({{"aoe_config.work_path", work}}, {}, d.path()));
  ASSERT_TRUE(next.ok()) << next.status().message();
  const TuningStats& s = next->report.tuning_stats;
  EXPECT_FALSE(s.tuning);
  EXPECT_EQ(s.tunable_operators, kDemoTunableOps);
  EXPECT_EQ(s.knowledge_base_hits, kDemoTunableOps);
  EXPECT_EQ(s.measured_operators, 0);
  EXPECT_EQ(records_in(work).size(), 1u);  // no second record: nothing was tuned
  // The variants built are the ones the file stores.
  std::multiset<std::string> stored, used;
  for (const auto& [key, e] : kb.at("entries").items()) stored.insert(e.at("variant").get<std::string>());
  for (const auto& op : s.operators) used.insert(to_string(op.after));
  EXPECT_EQ(used, stored);
  // A tuning run over a full base measures nothing and counts the hits in its record.
  auto again = compile_demo(config({{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", work}}, {}, d.path()));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->report.tuning_stats.measured_operators, 0);
  const json rec = read_json(again->report.tuning_stats.record_path);
  EXPECT_EQ(rec.begin().value().at(1).at("OPAT").at("knowledge_base").at("hits"), kDemoTunableOps);
  // Another thread count is another key: no hits.
  auto one = compile_demo(config({{"aoe_config.work_path", work}}, {}, d.path()), 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->report.tuning_stats.knowledge_base_hits, 0);
}

TEST(AoeTuning, ENV_3_WorkPathOutranksAscendWorkPathWhoseAoeDataIsCreated) {
  TempDir d;
  const std::string work = d.dir("aoe_work"), ascend = d.dir("ascend");
  ASSERT_TRUE(compile_demo(config({{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", work}},
                                  {{"ASCEND_WORK_PATH", ascend}}, d.path()))
                  .ok());
  EXPECT_EQ(records_in(work).size(), 1u);
  EXPECT_FALSE(fs::exists(ascend + "/aoe_data"));
  ASSERT_TRUE(compile_demo(config({{"aoe_config.aoe_mode", "2"}}, {{"ASCEND_WORK_PATH", ascend}}, d.path())).ok());
  EXPECT_EQ(records_in(ascend + "/aoe_data").size(), 1u);
  EXPECT_TRUE(fs::exists(ascend + "/aoe_data/" + kKnowledgeBaseFile));
}

TEST(AoeTuning, CorruptKnowledgeBaseIsDetectedAndRebuilt) {
  TempDir d;
  const std::string work = d.dir("aoe_work");
  const fs::path kb_path = fs::path(work) / kKnowledgeBaseFile;
  ASSERT_TRUE(compile_demo(config({{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", work}}, {}, d.path())).ok());
  std::string text;
  {
    std::ifstream in(kb_path);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  // Damage: truncated; and a variant edited without its digest.
  const std::string truncated = text.substr(0, text.size() / 2);
  std::string edited = text;
  const size_t at = edited.find("conv_algorithm=direct");
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, std::string("conv_algorithm=direct").size(), "conv_algorithm=winograd");
  for (const std::string& damaged : {truncated, edited}) {
    std::ofstream(kb_path, std::ios::trunc) << damaged;
    // Any compile detects it, ignores it (no hits) and leaves the file to the next tuning run.
    auto plain = compile_demo(config({{"aoe_config.work_path", work}}, {}, d.path()));
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    EXPECT_EQ(plain->report.tuning_stats.knowledge_base_hits, 0);
    EXPECT_FALSE(plain->report.tuning_stats.knowledge_base_problem.empty());
    // A tuning run rebuilds it and says so in its record.
    auto tuned = compile_demo(config({{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", work}}, {}, d.path()));
    ASSERT_TRUE(tuned.ok()) << tuned.status().message();
    EXPECT_EQ(tuned->report.tuning_stats.measured_operators, kDemoTunableOps);
    const json rec = read_json(tuned->report.tuning_stats.record_path);
    EXPECT_TRUE(rec.begin()
                    .value()
                    .at(1)
                    .at("OPAT")
                    .at("knowledge_base")
                    .at("status")
                    .get<std::string>()
                    .starts_with("rebuilt"));
    const KnowledgeBase rebuilt = KnowledgeBase::load(kb_path.string());
    EXPECT_EQ(rebuilt.problem(), "");
    EXPECT_EQ(rebuilt.size(), static_cast<size_t>(kDemoTunableOps));
    auto next = compile_demo(config({{"aoe_config.work_path", work}}, {}, d.path()));
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(next->report.tuning_stats.knowledge_base_hits, kDemoTunableOps);
  }
}

TEST(AoeTuning, OPT_aoe_config_aoe_config_file_3_4_OnlySelectedOperatorsAreMeasured) {
  TempDir d;
  const std::string by_type = d.file("inputs/by_type.cfg", R"({"tune_ops_type":["Gemm","MaxPool"]})");
  const std::string by_name = d.file("inputs/by_name.cfg", R"({"tune_ops_name":"conv2"})");
  auto t = compile_demo(config(
      {{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", d.dir("w1")}, {"aoe_config.aoe_config_file", by_type}},
      {}, d.path()));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->report.tuning_stats.measured_operators, 2);  // fc, and pool1 (MaxPool, or its channels-last form)
  auto n = compile_demo(config(
      {{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", d.dir("w2")}, {"aoe_config.aoe_config_file", by_name}},
      {}, d.path()));
  ASSERT_TRUE(n.ok()) << n.status().message();
  ASSERT_EQ(n->report.tuning_stats.measured_operators, 1);
  const auto& op = n->report.tuning_stats.operators.at(0);
  EXPECT_TRUE(op.op_type == "Conv" || op.op_type == "FusedConv") << op.op_type;
}

// A Session's compile (inference) refuses it; a Trainer under mpirun tunes the split
// (tests/distributed/run_data_parallel.py, case split_tuning).
TEST(AoeTuning, OPT_aoe_config_aoe_mode_4_GradientSplitSaysItNeedsDataParallelTraining) {
  TempDir d;
  auto exe = compile_demo(config({{"aoe_config.aoe_mode", "4"}, {"aoe_config.work_path", d.path()}}, {}, d.path()));
  ASSERT_FALSE(exe.ok());
  EXPECT_NE(exe.status().message().find("aoe_config.aoe_mode=4"), std::string::npos) << exe.status().message();
  EXPECT_NE(exe.status().message().find("data-parallel training"), std::string::npos) << exe.status().message();
  EXPECT_NE(exe.status().message().find("mpirun"), std::string::npos) << exe.status().message();
  EXPECT_TRUE(records_in(d.path()).empty());
}

std::vector<fs::path> subgraph_records_in(const std::string& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().starts_with("aoe_result_sgat_")) out.push_back(e.path());
  return out;
}

TEST(AoeTuning, OPT_aoe_config_aoe_mode_2_SubgraphTuningMeasuresPassChoicesAndStoresTheWinner) {
  TempDir d;
  const std::string work = d.dir("aoe_work");
  auto exe = compile_demo(config({{"aoe_config.aoe_mode", "1"}, {"aoe_config.work_path", work}}, {}, d.path()));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  const TuningStats& s = exe->report.tuning_stats;
  EXPECT_TRUE(s.subgraph_tuning);
  EXPECT_FALSE(s.subgraph_hit);
  // The demo's Conv+BatchNorm+Relu, the residual Add and the channels-last layout give the
  // all-passes compile and at least two passes to try without.
  ASSERT_GE(s.subgraph_candidates.size(), 3u);
  // The record lists every candidate; the chosen one is the fastest of them. The record rounds
  // to a microsecond and the demo runs in well under a millisecond, so two candidates may tie
  // there: what must hold is that none recorded is faster than the chosen one.
  const auto records = subgraph_records_in(work);
  ASSERT_EQ(records.size(), 1u);
  const json sgat = read_json(records[0]).begin().value().at(1).at("SGAT");
  ASSERT_EQ(sgat.at("candidates").size(), s.subgraph_candidates.size());
  double best = 1e300, chosen = -1;
  for (const json& c : sgat.at("candidates")) {
    best = std::min(best, c.at("model_performance(ms)").get<double>());
    if (c.at("passes_off") == sgat.at("passes_off")) chosen = c.at("model_performance(ms)").get<double>();
  }
  EXPECT_EQ(chosen, best) << sgat.dump(1);
  // The unrounded measurements agree: the chosen candidate is the minimum of them.
  for (const auto& c : s.subgraph_candidates)
    if (c.passes_off == s.passes_off) {
      EXPECT_EQ(c.model_ms, s.model_after_ms);
    }
  for (const auto& c : s.subgraph_candidates) EXPECT_GE(c.model_ms, s.model_after_ms);
  // The chosen compile really ran without those passes.
  for (const PassStat& ps : exe->report.pass_stats)
    for (const auto& off : s.passes_off) EXPECT_NE(ps.name, off);
  // The next compile, no tuning asked, takes the choice from the knowledge base.
  auto next = compile_demo(config({{"aoe_config.work_path", work}}, {}, d.path()));
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_TRUE(next->report.tuning_stats.subgraph_hit);
  EXPECT_EQ(next->report.tuning_stats.passes_off, s.passes_off);
  EXPECT_EQ(next->report.pass_stats.size(), exe->report.pass_stats.size());
  // And it computes what the untuned compile does.
  auto plain = compile_demo(nullptr);
  ASSERT_TRUE(plain.ok());
  expect_same_outputs(*next->executable, *plain->executable);
  // A second tuning run hits the stored choice and measures nothing.
  auto again = compile_demo(config({{"aoe_config.aoe_mode", "1"}, {"aoe_config.work_path", work}}, {}, d.path()));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->report.tuning_stats.subgraph_hit);
  EXPECT_TRUE(again->report.tuning_stats.subgraph_candidates.empty());
}

// With NC1HWC0 regions, subgraph tuning also measures the graph with NHWC in their place, and a
// compile that takes that choice has no NC1HWC0 value.
TEST(AoeTuning, OPT_aoe_config_aoe_mode_2_SubgraphTuningMeasuresNhwcAgainstNc1hwc0Regions) {
  TempDir d;
  auto exe = compile_demo(config({{"aoe_config.aoe_mode", "1"}, {"aoe_config.work_path", d.dir("w")}}, {}, d.path()), 2,
                          passes::Nc1hwc0Regions::kAlways);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  bool measured = false;
  for (const auto& c : exe->report.tuning_stats.subgraph_candidates)
    measured = measured || c.passes_off == std::vector<std::string>{passes::kNc1hwc0Choice};
  EXPECT_TRUE(measured) << "the demo's region has whole 16-channel blocks";
  auto count_nc1hwc0 = [](const Executable& e) {
    size_t n = 0;
    for (size_t v = 0; v < e.graph().values.size(); ++v)
      n += e.stored_format(static_cast<int>(v)) == ActivationFormat::kNc1hwc0;
    return n;
  };
  // The choice as the knowledge base would replay it.
  CompileOptions co;
  co.num_threads = 1;
  co.nc1hwc0_regions = passes::Nc1hwc0Regions::kAlways;
  co.aoe_passes_off = std::vector<std::string>{passes::kNc1hwc0Choice};
  auto g = load_onnx(std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx");
  ASSERT_TRUE(g.ok());
  auto nhwc = compiler::compile(*g, {{1, 3, 32, 32}}, co);
  ASSERT_TRUE(nhwc.ok()) << nhwc.status().message();
  co.aoe_passes_off.reset();
  auto blocked = compiler::compile(*g, {{1, 3, 32, 32}}, co);
  ASSERT_TRUE(blocked.ok()) << blocked.status().message();
  EXPECT_EQ(count_nc1hwc0(**nhwc), 0u);
  EXPECT_GT(count_nc1hwc0(**blocked), 0u);
  expect_same_outputs(**nhwc, **blocked);
}

TEST(AoeKnowledgeBase, KeysLeaveOutNodeNamesAndCarryShapesThreadsAndPlatform) {
  Node a;
  a.op_type = "Conv";
  a.name = "first";
  Node b = a;
  b.name = "second";
  const Tensor w(DType::kFloat32, {8, 3, 3, 3});
  auto request = [&](const Node& n, Shape x) {
    return KernelRequest{
        n,
        17,
        {ValueInfo{DType::kFloat32, true, std::move(x), nullptr}, ValueInfo{DType::kFloat32, true, {8, 3, 3, 3}, &w}},
        {ValueInfo{DType::kFloat32, true, {1, 8, 6, 6}, nullptr}}};
  };
  EXPECT_EQ(knowledge_key(request(a, {1, 3, 8, 8}), 2), knowledge_key(request(b, {1, 3, 8, 8}), 2));
  EXPECT_NE(knowledge_key(request(a, {1, 3, 8, 8}), 2), knowledge_key(request(a, {1, 3, 9, 8}), 2));
  EXPECT_NE(knowledge_key(request(a, {1, 3, 8, 8}), 2), knowledge_key(request(a, {1, 3, 8, 8}), 1));
  EXPECT_NE(knowledge_key(request(a, {1, 3, 8, 8}), 2).find(platform_id()), std::string::npos);
}

// tune_optimization_level O1 (high-performance tuning) times each candidate twice as often as O2,
// the default; the setting a tuning compile measures with.
TEST(AoeTuning, OPT_aoe_config_aoe_config_file_5_O1TimesEachCandidateTwiceAsOften) {
  TempDir d;
  auto settings_for = [&](const std::string& level) {
    const std::string file =
        d.file("aoe_" + level + ".cfg", level.empty() ? R"({})" : R"({"tune_optimization_level":")" + level + R"("})");
    auto cfg =
        config({{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", d.path()}, {"aoe_config.aoe_config_file", file}},
               {}, d.path());
    auto s = read_tuning_settings(cfg.get(), 3, false);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? s->repetitions : -1;
  };
  EXPECT_EQ(settings_for(""), 3);  // default O2
  EXPECT_EQ(settings_for("O2"), 3);
  EXPECT_EQ(settings_for("O1"), 6);
  // And a tuning compile in O1 runs, tunes every tunable op and stores its record.
  const std::string o1 = d.file("o1.cfg", R"({"tune_optimization_level":"O1"})");
  auto c = compile_demo(config(
      {{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", d.dir("o1_work")}, {"aoe_config.aoe_config_file", o1}},
      {}, d.path()));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(records_in(d.path() + "/o1_work").size(), 1u);
}

// feature deeper_opat widens the operator search: the same node gets more candidates (each also
// on the whole team), and a tuning compile with it measures and records as before.
// Every output of two compiles bit for bit the same.
void expect_identical_outputs(const Executable& a, const Executable& b) {
  const auto x = run(a), y = run(b);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(x[i].numel(), y[i].numel());
    for (int64_t j = 0; j < x[i].numel(); ++j) ASSERT_EQ(x[i].data<float>()[j], y[i].data<float>()[j]) << i << " " << j;
  }
}

// nonhomo_split: subgraph tuning measures the chosen compile once more with tapered work splits,
// the record lists that candidate, and a knowledge-base entry holding the choice makes a later
// compile run tapered splits, computing bit for bit what the uniform split does.
TEST(AoeTuning, OPT_aoe_config_aoe_config_file_7_NonhomoSplitMeasuresTaperedSplitsAndReplaysThem) {
  TempDir d;
  const std::string split = d.file("split.cfg", R"({"feature":["nonhomo_split"]})");
  auto tuning_config = [&](const std::string& work, bool nonhomo) {
    options::test::Flags flags{{"aoe_config.aoe_mode", "1"}, {"aoe_config.work_path", work}};
    if (nonhomo) flags.push_back({"aoe_config.aoe_config_file", split});
    return config(flags, {}, d.path());
  };
  auto s = read_tuning_settings(tuning_config(d.dir("s"), true).get(), 1, false);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->nonhomo_split);
  auto plain_tuning = compile_demo(tuning_config(d.dir("plain"), false));
  ASSERT_TRUE(plain_tuning.ok()) << plain_tuning.status().message();
  const std::string work = d.dir("nonhomo");
  auto exe = compile_demo(tuning_config(work, true));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  const TuningStats& st = exe->report.tuning_stats;
  ASSERT_EQ(st.subgraph_candidates.size(), plain_tuning->report.tuning_stats.subgraph_candidates.size() + 1);
  const auto& last = st.subgraph_candidates.back();
  ASSERT_FALSE(last.passes_off.empty());
  EXPECT_EQ(last.passes_off.back(), kUniformWorkSplitChoice);
  const json sgat = read_json(subgraph_records_in(work).at(0)).begin().value().at(1).at("SGAT");
  EXPECT_EQ(sgat.at("candidates").back().at("passes_off").back(), kUniformWorkSplitChoice) << sgat.dump(1);
  EXPECT_EQ(exe->executable->tapered_work_split(),
            std::count(st.passes_off.begin(), st.passes_off.end(), kUniformWorkSplitChoice) > 0);
  // A knowledge base whose entry for the demo holds the choice: the next compile replays it.
  const std::string replay = d.dir("replay");
  KnowledgeBase kb = KnowledgeBase::load(replay + "/" + kKnowledgeBaseFile);
  kb.put(exe->report.subgraph_key, {kSubgraphEntry, {}, {kUniformWorkSplitChoice}, 1000, 900, {}});
  ASSERT_TRUE(kb.save().ok());
  auto replayed = compile_demo(config({{"aoe_config.work_path", replay}}, {}, d.path()));
  ASSERT_TRUE(replayed.ok()) << replayed.status().message();
  EXPECT_TRUE(replayed->report.tuning_stats.subgraph_hit);
  EXPECT_TRUE(replayed->executable->tapered_work_split());
  auto uniform = compile_demo(nullptr);
  ASSERT_TRUE(uniform.ok());
  EXPECT_FALSE(uniform->executable->tapered_work_split());
  expect_identical_outputs(*replayed->executable, *uniform->executable);
}

TEST(AoeTuning, OPT_aoe_config_aoe_config_file_6_DeeperOpatMeasuresMoreCandidates) {
  TempDir d;
  const std::string deeper = d.file("deeper.cfg", R"({"feature":["deeper_opat"]})");
  auto cfg =
      config({{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", d.path()}, {"aoe_config.aoe_config_file", deeper}},
             {}, d.path());
  auto s = read_tuning_settings(cfg.get(), 1, false);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->deeper_opat);
  auto plain = read_tuning_settings(
      config({{"aoe_config.aoe_mode", "2"}, {"aoe_config.work_path", d.path()}}, {}, d.path()).get(), 1, false);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->deeper_opat);
  // A 3x3 convolution of 32 channels on 28x28: more candidates, every ordinary one among them,
  // the new ones on the team.
  Node conv;
  conv.op_type = "Conv";
  conv.name = "conv";
  auto known = [](Shape shape) { return ValueInfo{DType::kFloat32, true, std::move(shape), nullptr}; };
  KernelRequest request{conv, 17, {known({1, 32, 28, 28}), known({32, 32, 3, 3})}, {known({1, 32, 26, 26})}};
  const auto ordinary = candidate_variants(request, 2, false), wider = candidate_variants(request, 2, true);
  EXPECT_GT(wider.size(), ordinary.size());
  for (const KernelVariant& v : ordinary) EXPECT_NE(std::find(wider.begin(), wider.end(), v), wider.end());
  for (const KernelVariant& v : wider)
    if (std::find(ordinary.begin(), ordinary.end(), v) == ordinary.end()) EXPECT_EQ(v.threads, ThreadPlan::kTeam);
  EXPECT_EQ(candidate_variants(request, 1, true).size(), candidate_variants(request, 1, false).size())
      << "one thread: no team to try";
  auto c = compile_demo(cfg);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(records_in(d.path()).size(), 1u);
}

}  // namespace
}  // namespace openge::aoe
