// The profiler end to end on the bundled demo model: the collection folder, one op_summary row
// per task per iteration, op_statistic = op_summary sums, step times, valid CSV and trace JSON.
#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <set>

#include "openge/profiling_report.h"
#include "profiling_test_util.h"

namespace openge::profiling {
namespace {
using namespace testing;

struct Collected {
  std::unique_ptr<Executable> exe;
  std::string collection, out;
};

Collected collect(const std::string& name, const std::string& json, int iterations, bool use_aicore = true) {
  Collected c;
  c.exe = compile_demo(use_aicore);
  auto cfg = profiler_config_from_json(json, scratch_dir(name));
  EXPECT_TRUE(cfg.ok()) << cfg.status().message();
  auto p = Profiler::create(cfg.value());
  EXPECT_TRUE(p.ok()) << p.status().message();
  profiled_runs(*p.value(), *c.exe, iterations);
  EXPECT_TRUE(p.value()->finish().ok());
  c.collection = p.value()->collection_dir();
  c.out = p.value()->output_dir();
  return c;
}

size_t count_engine(const Executable& exe, Engine e) {
  size_t n = 0;
  for (const auto& node : exe.nodes()) n += node.engine == e;
  return n;
}

TEST(ProfilerE2E, CollectionFolderFollowsCannNaming) {
  auto c = collect("naming", R"({"task_trace":"on","training_trace":"on"})", 1);
  const std::string name = fs::path(c.collection).filename().string();
  EXPECT_TRUE(std::regex_match(name, std::regex(R"(^PROF_\d{6}_\d{17}_\w+$)"))) << name;
  EXPECT_TRUE(fs::is_directory(c.collection + "/device_0/data"));
  EXPECT_TRUE(fs::is_directory(c.collection + "/host/data"));
  EXPECT_TRUE(fs::is_directory(c.collection + "/mindstudio_profiler_log"));
  EXPECT_TRUE(fs::exists(c.collection + "/device_0/start_info.0"));
  EXPECT_TRUE(fs::exists(c.collection + "/device_0/end_info.0"));
  auto info = nlohmann::json::parse(read_text(c.collection + "/device_0/info.json.0"));
  EXPECT_EQ(info["task_trace"], "l1");
  EXPECT_EQ(info["options"]["training_trace"], "on");
  // PROF-6 names: {stem}_{device_id}_{model_id}_{iter_id}
  for (const char* f : {"msprof_0_1_1.json", "task_time_0_1_1.json", "step_trace_0_1_1.json", "op_summary_0_1_1.csv",
                        "op_statistic_0_1_1.csv", "step_trace_0_1_1.csv", "task_time_0_1_1.csv", "report.html"})
    EXPECT_TRUE(fs::exists(c.out + "/" + f)) << f;
  // Nothing but the collection in the output folder (no temporary names left).
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(fs::path(c.collection).parent_path())) entries += 1, (void)e;
  EXPECT_EQ(entries, 1u);
}

TEST(ProfilerE2E, OpSummaryHasOneRowPerTaskPerIteration) {
  const int kIterations = 4;
  auto c = collect("rows", R"({"task_trace":"l1","training_trace":"on","aicpu":"on"})", kIterations);
  const auto files = files_matching(c.out, "op_summary_", ".csv");
  ASSERT_EQ(files.size(), static_cast<size_t>(kIterations));
  for (int i = 1; i <= kIterations; ++i) {
    const Csv csv = parse_csv(read_text(c.out + "/op_summary_0_1_" + std::to_string(i) + ".csv"));
    ASSERT_EQ(csv.rows.size(), c.exe->nodes().size()) << "iteration " << i;
    for (size_t r = 0; r < csv.rows.size(); ++r) {
      const auto& row = csv.rows[r];
      const CompiledNode& node = c.exe->nodes()[r];
      EXPECT_EQ(row.at("Op Name"), node.node.name);
      EXPECT_EQ(row.at("OP Type"), node.node.op_type);
      EXPECT_EQ(row.at("Task Type"), engine_name(node.engine));
      EXPECT_EQ(row.at("Task ID"), std::to_string(r));
      EXPECT_EQ(row.at("Model ID"), "1");
      EXPECT_GE(num(row.at("Task Duration(us)")), 0.0);
      EXPECT_GE(num(row.at("Task Wait Time(us)")), 0.0);
      EXPECT_GE(std::stoi(row.at("Block Num")), 1);
    }
  }
  // l1 basic information of the first Conv: input 1x3x32x32 FLOAT NCHW.
  const Csv first = parse_csv(read_text(c.out + "/op_summary_0_1_1.csv"));
  for (const auto& row : first.rows) {
    if (row.at("OP Type") != "Conv") continue;
    EXPECT_EQ(row.at("Input Shapes").substr(0, 10), "1,3,32,32;");
    EXPECT_EQ(row.at("Input Data Types").substr(0, 6), "FLOAT;");
    EXPECT_EQ(row.at("Input Formats").substr(0, 5), "NCHW;");
    break;
  }
}

TEST(ProfilerE2E, WithoutAicpuOnlyAiCoreTasksAreSummarised) {  // PROF-13
  auto c = collect("noaicpu", R"({"task_trace":"on","training_trace":"on"})", 1, /*use_aicore=*/true);
  const Csv csv = parse_csv(read_text(c.out + "/op_summary_0_1_1.csv"));
  EXPECT_EQ(csv.rows.size(), count_engine(*c.exe, Engine::kAiCore));
  for (const auto& row : csv.rows) EXPECT_EQ(row.at("Task Type"), "AI_CORE");
  EXPECT_FALSE(fs::exists(c.out + "/aicpu_0_1_1.csv"));
  // task_time lists every task whatever the engine.
  EXPECT_EQ(parse_csv(read_text(c.out + "/task_time_0_1_1.csv")).rows.size(), c.exe->nodes().size());
}

TEST(ProfilerE2E, AicpuFileListsAiCpuTasks) {
  auto c = collect("aicpu", R"({"aicpu":"on","training_trace":"on"})", 1, /*use_aicore=*/false);
  const Csv csv = parse_csv(read_text(c.out + "/aicpu_0_1_1.csv"));
  EXPECT_EQ(csv.rows.size(), c.exe->nodes().size());
  std::map<std::string, std::string> op_type;
  for (const auto& n : c.exe->nodes()) op_type[n.node.name] = n.node.op_type;
  for (const auto& row : csv.rows) {
    // The layout Transposes are copies; Conv, Relu, Gemm, Softmax compute; Flatten aliases, and so
    // does the Reshape TransposeToReshapePass made of the global pool's (1,1,1,C) Transpose.
    const std::string& type = op_type.at(row.at("Node"));
    if (type == "Transpose") {
      EXPECT_EQ(row.at("Memcpy_time(us)"), row.at("Task_time(us)")) << row.at("Node");
    } else if (type != "Flatten" && type != "Reshape") {
      EXPECT_EQ(row.at("Memcpy_time(us)"), "0.000") << row.at("Node");
    }
    EXPECT_NEAR(num(row.at("Compute_time(us)")) + num(row.at("Memcpy_time(us)")), num(row.at("Task_time(us)")), 1e-3);
  }
}

TEST(ProfilerE2E, PROF_17_AicpuDataMovementTasksCountAsMemcpy) {
  // x [64,128,16] -> Transpose (a copy) -> Relu (compute) -> y, all on the AI CPU engine.
  Graph g;
  g.source = "transpose_relu";
  const int x = g.add_value("x"), t = g.add_value("t"), y = g.add_value("y");
  g.values[static_cast<size_t>(x)].dtype = DType::kFloat32;
  g.values[static_cast<size_t>(x)].shape = Shape{64, 128, 16};
  g.inputs = {x};
  g.outputs = {y};
  Node transpose{"transpose", "Transpose", "", {x}, {t}, {}, {}, false, ""};
  Attribute perm;
  perm.kind = Attribute::Kind::kInts;
  perm.ints = {2, 0, 1};
  transpose.attrs.set("perm", perm);
  g.nodes.push_back(transpose);
  g.nodes.push_back(Node{"relu", "Relu", "", {t}, {y}, {}, {}, false, ""});
  g.values[static_cast<size_t>(t)].producer = 0;
  g.values[static_cast<size_t>(y)].producer = 1;
  g.opset = 13;
  CompileOptions co;
  co.use_aicore = false;
  auto exe = compiler::compile(std::move(g), {{64, 128, 16}}, co);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto cfg = profiler_config_from_json(R"({"aicpu":"on"})", scratch_dir("aicpu_copy"));
  auto p = std::move(Profiler::create(cfg.value()).value());
  Tensor input(DType::kFloat32, {64, 128, 16});
  for (int64_t i = 0; i < input.numel(); ++i) input.data<float>()[i] = static_cast<float>(i % 7) - 3.0f;
  auto it = p->begin_iteration(exe->get(), 2);
  ASSERT_TRUE((*exe)->run({input}, nullptr, it.get()).ok());
  ASSERT_TRUE(p->end_iteration(std::move(it)).ok());
  ASSERT_TRUE(p->finish().ok());
  const Csv csv = parse_csv(read_text(p->output_dir() + "/aicpu_0_1_1.csv"));
  ASSERT_EQ(csv.rows.size(), 2u);
  const auto& copy = csv.rows[0];
  const auto& relu = csv.rows[1];
  EXPECT_EQ(copy.at("Node"), "transpose");
  EXPECT_EQ(copy.at("Compute_time(us)"), "0.000");
  EXPECT_EQ(copy.at("Memcpy_time(us)"), copy.at("Task_time(us)"));
  EXPECT_GT(num(copy.at("Memcpy_time(us)")), 0.0);
  EXPECT_EQ(relu.at("Memcpy_time(us)"), "0.000");
  EXPECT_EQ(relu.at("Compute_time(us)"), relu.at("Task_time(us)"));
}

TEST(ProfilerE2E, OpStatisticTotalsEqualOpSummarySums) {
  auto c = collect("stat", R"({"aicpu":"on","training_trace":"on"})", 3);
  for (int i = 1; i <= 3; ++i) {
    const std::string sfx = "_0_1_" + std::to_string(i) + ".csv";
    const Csv summary = parse_csv(read_text(c.out + "/op_summary" + sfx));
    const Csv stat = parse_csv(read_text(c.out + "/op_statistic" + sfx));
    std::map<std::pair<std::string, std::string>, std::pair<int, double>> sums;
    for (const auto& r : summary.rows) {
      auto& s = sums[{r.at("OP Type"), r.at("Task Type")}];
      s.first += 1;
      s.second += num(r.at("Task Duration(us)"));
    }
    ASSERT_EQ(stat.rows.size(), sums.size());
    double ratio_sum = 0;
    for (const auto& r : stat.rows) {
      const auto& s = sums.at({r.at("OP Type"), r.at("Core Type")});
      EXPECT_EQ(std::stoi(r.at("Count")), s.first);
      EXPECT_NEAR(num(r.at("Total Time(us)")), s.second, 1e-3 * s.first + 1e-9);
      EXPECT_LE(num(r.at("Min Time(us)")), num(r.at("Avg Time(us)")) + 1e-3);
      EXPECT_LE(num(r.at("Avg Time(us)")), num(r.at("Max Time(us)")) + 1e-3);
      ratio_sum += num(r.at("Ratio(%)"));
    }
    EXPECT_NEAR(ratio_sum, 100.0, 0.01 * static_cast<double>(stat.rows.size()));
  }
}

TEST(ProfilerE2E, StepTimeIsTaskDurationsPlusGaps) {
  auto c = collect("step", R"({"aicpu":"on","training_trace":"on"})", 5);
  double best_coverage = 0;  // the largest share of an iteration its tasks account for
  for (int i = 1; i <= 5; ++i) {
    const std::string sfx = "_0_1_" + std::to_string(i) + ".csv";
    const Csv summary = parse_csv(read_text(c.out + "/op_summary" + sfx));
    const Csv step = parse_csv(read_text(c.out + "/step_trace" + sfx));
    ASSERT_EQ(step.rows.size(), 1u);
    double busy = 0;
    for (const auto& r : summary.rows) busy += num(r.at("Task Duration(us)")) + num(r.at("Task Wait Time(us)"));
    const double iteration = num(step.rows[0].at("Iteration Time(us)"));
    EXPECT_LE(busy, iteration + 1e-3 * static_cast<double>(summary.rows.size()));
    best_coverage = std::max(best_coverage, busy / iteration);
    EXPECT_EQ(step.rows[0].at("Iteration ID"), std::to_string(i));
    // training_trace=on: FP/BP auto-detected as the first task's start and the last task's end.
    EXPECT_NEAR(num(step.rows[0].at("FP Start(us)")), num(summary.rows.front().at("Task Start Time(us)")), 1e-2);
    EXPECT_EQ(step.rows[0].at("Data Aug Bound(us)") == "N/A", i == 1);
  }
  // What remains of an iteration is its tail after the last task (output hand-over), small next to
  // the run. A preemption in that tail can stretch one iteration on a loaded machine, so the bound is
  // on the best of the five: time the step trace counted outside every task would show in each.
  EXPECT_GE(best_coverage, 0.8);
}

TEST(ProfilerE2E, TimelinesAreValidNestedChromeTraces) {
  auto c = collect("trace", R"({"aicpu":"on","training_trace":"on","runtime_api":"on","msproftx":"on"})", 2);
  for (const auto& f : files_matching(c.out, "", ".json")) {
    SCOPED_TRACE(f);
    check_trace(read_text(f));
  }
  const auto j = check_trace(read_text(c.out + "/msprof_0_1_1.json"));
  std::set<std::string> processes, threads;
  size_t tasks = 0;
  for (const auto& e : j) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X" && e.contains("args") && e["args"].contains("Task Type")) ++tasks;
  }
  EXPECT_TRUE(processes.count("Ascend Hardware"));
  EXPECT_TRUE(processes.count("Step Trace"));
  EXPECT_TRUE(threads.count("Stream 0"));
  EXPECT_EQ(tasks, c.exe->nodes().size());
}

TEST(ProfilerE2E, L0RecordsTimingsWithoutBasicInformation) {  // task_trace-4
  auto c = collect("l0", R"({"task_time":"l0","training_trace":"on","aicpu":"on"})", 1);
  const Csv csv = parse_csv(read_text(c.out + "/op_summary_0_1_1.csv"));
  EXPECT_EQ(csv.rows.size(), c.exe->nodes().size());
  EXPECT_EQ(std::count(csv.header.begin(), csv.header.end(), "Input Shapes"), 0);
  EXPECT_EQ(std::count(csv.header.begin(), csv.header.end(), "Block Num"), 0);
  EXPECT_EQ(std::count(csv.header.begin(), csv.header.end(), "Task Duration(us)"), 1);
}

TEST(ProfilerE2E, TaskTraceOffWritesNoTaskFiles) {  // task_trace-3, DISC-10
  auto c = collect("off", R"({"task_trace":"off"})", 2);
  EXPECT_TRUE(files_matching(c.out, "op_summary_", ".csv").empty());
  EXPECT_TRUE(files_matching(c.out, "task_time_", ".csv").empty());
  EXPECT_EQ(files_matching(c.out, "step_trace_", ".csv").size(), 2u);
  // Without training_trace the FP/BP columns are N/A (DISC-11).
  const Csv step = parse_csv(read_text(c.out + "/step_trace_0_1_2.csv"));
  EXPECT_EQ(step.rows[0].at("FP Start(us)"), "N/A");
}

TEST(ProfilerE2E, MarkersAndRuntimeApiGoToTheTimeline) {
  auto exe = compile_demo();
  auto cfg =
      profiler_config_from_json(R"({"msproftx":"on","runtime_api":"on","training_trace":"on"})", scratch_dir("tx"));
  auto p = std::move(Profiler::create(cfg.value()).value());
  p->range_push("outer");
  p->mark("before run");
  p->range_push("inner");
  const int64_t t0 = steady_now_ns();
  profiled_runs(*p, *exe, 1);
  p->record_api("ModelExecute", t0, steady_now_ns());
  ASSERT_TRUE(p->range_pop().ok());
  ASSERT_TRUE(p->range_pop().ok());
  EXPECT_FALSE(p->range_pop().ok());  // nothing left to pop
  ASSERT_TRUE(p->finish().ok());
  const auto j = check_trace(read_text(p->output_dir() + "/msprof_0_1_1.json"));
  std::set<std::string> names;
  for (const auto& e : j) names.insert(e["name"].get<std::string>());
  for (const char* n : {"outer", "inner", "before run", "ModelExecute"}) EXPECT_TRUE(names.count(n)) << n;
}

TEST(ProfilerE2E, SwitchesOffMeanNoMarkers) {
  auto cfg = profiler_config_from_json(R"({"training_trace":"on"})", scratch_dir("notx"));
  auto p = std::move(Profiler::create(cfg.value()).value());
  p->range_push("ignored");
  EXPECT_TRUE(p->range_pop().ok());  // msproftx off: the calls do nothing
  auto exe = compile_demo();
  profiled_runs(*p, *exe, 1);
  ASSERT_TRUE(p->finish().ok());
  EXPECT_EQ(read_text(p->output_dir() + "/msprof_0_1_1.json").find("ignored"), std::string::npos);
}

TEST(ProfilerE2E, MissingOutputFolderLeavesNothing) {  // output-2; bad input: no partial collection
  const std::string base = scratch_dir("missing");
  auto cfg = profiler_config_from_json("", base + "/does_not_exist");
  auto p = Profiler::create(cfg.value());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("does not exist"), std::string::npos) << p.status().message();
  EXPECT_TRUE(fs::is_empty(base));
}

TEST(ProfilerE2E, HardwareCountersFillOrSayNA) {
  auto c = collect("pmu", R"({"aic_metrics":"PipeUtilization","training_trace":"on","aicpu":"on"})", 1);
  const Csv csv = parse_csv(read_text(c.out + "/op_summary_0_1_1.csv"));
  ASSERT_FALSE(csv.rows.empty());
  auto info = nlohmann::json::parse(read_text(c.collection + "/device_0/info.json.0"));
  const std::string status = info["aic_metrics"]["status"];
  for (const auto& row : csv.rows) {
    EXPECT_EQ(row.at("aicore_time(us)"), row.at("Task Duration(us)"));  // counters or not
    if (status.rfind("N/A", 0) == 0) {
      EXPECT_EQ(row.at("aic_total_cycles"), "N/A");
    } else {
      EXPECT_GE(num(row.at("aic_total_cycles")), 0.0);
    }
  }
}

// No aic_metrics key: the PipeUtilization set is collected all the same (its columns in
// op_summary, info.json naming the set and that it came from the default).
TEST(ProfilerE2E, OPT_profiling_config_profiling_options_aic_metrics_3_AbsentKeyCollectsPipeUtilization) {
  auto c = collect("pmu_default", R"({"training_trace":"on","task_trace":"on"})", 1);
  const Csv csv = parse_csv(read_text(c.out + "/op_summary_0_1_1.csv"));
  ASSERT_FALSE(csv.rows.empty());
  for (const char* column : {"aicore_time(us)", "aic_total_cycles", "aic_instructions", "aic_ipc"})
    EXPECT_EQ(std::count(csv.header.begin(), csv.header.end(), column), 1) << column;
  auto info = nlohmann::json::parse(read_text(c.collection + "/device_0/info.json.0"));
  EXPECT_EQ(info["aic_metrics"]["set"], "PipeUtilization");
  EXPECT_EQ(info["aic_metrics"]["source"], "default");
  const std::string status = info["aic_metrics"]["status"];
  EXPECT_TRUE(status.rfind("ok", 0) == 0 || status.rfind("N/A: ", 0) == 0) << status;  // N/A says why
}

TEST(ProfilerE2E, ReportIsWrittenAndReadsBack) {
  auto c = collect("report", R"({"aicpu":"on","training_trace":"on"})", 3);
  const std::string html = read_text(c.out + "/report.html");
  EXPECT_NE(html.find("id=top-ops"), std::string::npos);
  EXPECT_NE(html.find("<svg id=timeline"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);  // self-contained: nothing fetched
  auto d = load_report_data(c.collection);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->step_times.size(), 3u);
  uint64_t count = 0;
  for (const auto& o : d->ops) count += o.count;
  EXPECT_EQ(count, 3 * c.exe->nodes().size());
}

TEST(ProfilerE2E, ReportReadBackKeepsIterationOrderPastNine) {
  auto c = collect("report11", R"({"aicpu":"on","training_trace":"on"})", 11);
  auto d = load_report_data(c.collection + "/");  // a trailing slash still names the folder
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->step_times.size(), 11u);
  for (uint32_t i = 0; i < 11; ++i) EXPECT_EQ(d->step_times[i].first, i + 1);
  EXPECT_EQ(d->timeline_label, "model 1, iteration 11");
  EXPECT_EQ(d->title, fs::path(c.collection).filename().string());
  ASSERT_FALSE(d->timeline.empty());
  EXPECT_GE(d->timeline.front().start_us, 0.0);  // from the iteration's start, not before it
}

// Steady state: each op's median and min come from iterations 2..N of its per-iteration task
// records (the op_summary CSVs), and iteration 1 (compile and warm-up) is reported apart.
TEST(ProfilerE2E, ReportOpFiguresExcludeIterationOneByDefault) {
  const int kIterations = 5;
  auto c = collect("steady", R"({"aicpu":"on","training_trace":"on"})", kIterations);
  std::map<std::string, std::vector<int64_t>> per_op;  // op name -> ns per iteration 1..N
  for (int i = 1; i <= kIterations; ++i)
    for (const auto& row : parse_csv(read_text(c.out + "/op_summary_0_1_" + std::to_string(i) + ".csv")).rows)
      per_op[row.at("Op Name")].push_back(static_cast<int64_t>(num(row.at("Task Duration(us)")) * 1000.0));
  auto d = load_report_data(c.collection);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->ops.size(), per_op.size());
  for (const auto& op : d->ops) {
    const auto& all = per_op.at(op.name);
    ASSERT_EQ(all.size(), static_cast<size_t>(kIterations)) << op.name;
    std::vector<int64_t> steady(all.begin() + 1, all.end());
    std::sort(steady.begin(), steady.end());
    const OpSteadyStats st = steady_stats(op);
    EXPECT_EQ(st.steady_iterations, static_cast<size_t>(kIterations - 1)) << op.name;
    EXPECT_EQ(st.first_ns, all[0]) << op.name;
    EXPECT_EQ(st.median_ns, (steady[1] + steady[2]) / 2) << op.name;  // four steady iterations
    EXPECT_EQ(st.min_ns, steady.front()) << op.name;
  }
}

TEST(ProfilerE2E, SteadyStatsLeaveTheWarmUpOut) {
  ReportOp op{"conv1", "Conv", "AI_CORE", 4, 0, {{1, 6'335'000}, {2, 1'600'000}, {3, 1'511'000}, {4, 1'700'000}}};
  const OpSteadyStats st = steady_stats(op);
  EXPECT_EQ(st.first_ns, 6'335'000);
  EXPECT_EQ(st.median_ns, 1'600'000);
  EXPECT_EQ(st.min_ns, 1'511'000);
  EXPECT_EQ(steady_median_step_ns({{1, 9'000}, {2, 3'000}, {3, 5'000}}), 4'000);
  EXPECT_EQ(steady_median_step_ns({{1, 9'000}}), 9'000);  // one iteration: nothing else to report
  const auto only_first = steady_stats({"x", "Relu", "AI_CORE", 1, 7, {{1, 7}}});
  EXPECT_EQ(only_first.steady_iterations, 0u);
  EXPECT_EQ(only_first.median_ns, 7);
}

TEST(ProfilerE2E, ReportFindsTheCollectionInsideItsOutputFolder) {
  auto c = collect("inside", R"({"training_trace":"on"})", 2);
  const std::string parent = fs::path(c.collection).parent_path().string();
  auto d = load_report_data(parent);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->folder, c.out);
  fs::create_directories(parent + "/PROF_000000_second");
  auto two = load_report_data(parent);
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("give one of them"), std::string::npos) << two.status().message();
  EXPECT_NE(two.status().message().find("PROF_000000_second"), std::string::npos);
}

TEST(ProfilerE2E, ConcurrentRunsGetTheirOwnStreams) {
  auto exe = compile_demo();
  auto cfg = profiler_config_from_json(R"({"aicpu":"on","training_trace":"on"})", scratch_dir("streams"));
  auto p = std::move(Profiler::create(cfg.value()).value());
  auto a = p->begin_iteration(exe.get());
  auto b = p->begin_iteration(exe.get());
  ASSERT_TRUE(exe->run({demo_image(1)}, nullptr, a.get()).ok());
  ASSERT_TRUE(exe->run({demo_image(2)}, nullptr, b.get()).ok());
  ASSERT_TRUE(p->end_iteration(std::move(a)).ok());
  ASSERT_TRUE(p->end_iteration(std::move(b)).ok());
  ASSERT_TRUE(p->finish().ok());
  const Csv one = parse_csv(read_text(p->output_dir() + "/op_summary_0_1_1.csv"));
  const Csv two = parse_csv(read_text(p->output_dir() + "/op_summary_0_1_2.csv"));
  EXPECT_EQ(one.rows[0].at("Stream ID"), "0");
  EXPECT_EQ(two.rows[0].at("Stream ID"), "1");
}

}  // namespace
}  // namespace openge::profiling

namespace openge::profiling {
namespace {
using namespace testing;

TEST(ProfilerE2E, PROF_19_FusionOpListsEveryFusedNodeWithItsOriginalOps) {
  auto c = collect("fusion", R"({"training_trace":"on"})", 2);
  // Independently: the demo model's nodes that a pass merged away are the ones missing from the
  // compiled graph; each must appear in exactly one fused node's Original Ops.
  auto model = load_onnx(std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx");
  ASSERT_TRUE(model.ok());
  std::set<std::string> compiled_names, fused_away;
  for (const auto& n : c.exe->nodes()) compiled_names.insert(n.node.name);
  for (const auto& n : model->nodes)
    if (!compiled_names.count(n.name)) fused_away.insert(n.name);
  ASSERT_FALSE(fused_away.empty());
  for (int i = 1; i <= 2; ++i) {
    const Csv csv = parse_csv(read_text(c.out + "/fusion_op_0_1_" + std::to_string(i) + ".csv"));
    ASSERT_FALSE(csv.rows.empty());
    std::multiset<std::string> listed;
    for (const auto& row : csv.rows) {
      EXPECT_EQ(row.at("Model ID"), "1");
      EXPECT_TRUE(compiled_names.count(row.at("Fusion Op"))) << row.at("Fusion Op");
      std::stringstream ops(row.at("Original Ops"));
      std::string op;
      std::getline(ops, op, ';');
      EXPECT_EQ(op, row.at("Fusion Op"));  // the surviving node first
      while (std::getline(ops, op, ';')) listed.insert(op);
      const double total = num(row.at("Memory Total(KB)"));
      EXPECT_NEAR(total,
                  num(row.at("Memory Input(KB)")) + num(row.at("Memory Output(KB)")) +
                      num(row.at("Memory Weight(KB)")) + num(row.at("Memory Workspace(KB)")),
                  2e-3);
      EXPECT_GT(num(row.at("Memory Output(KB)")), 0.0);
    }
    for (const auto& name : fused_away) EXPECT_EQ(listed.count(name), 1u) << name;
    EXPECT_EQ(listed.size(), fused_away.size());
  }
}

TEST(ProfilerE2E, PROF_19_NoFusionNoFusionOpFile) {
  auto g = load_onnx(std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx");
  CompileOptions co;
  co.run_passes = false;
  auto plain = compiler::compile(std::move(g.value()), {{1, 3, 32, 32}}, co);
  ASSERT_TRUE(plain.ok());
  auto cfg = profiler_config_from_json(R"({"training_trace":"on"})", scratch_dir("nofusion"));
  auto p = std::move(Profiler::create(cfg.value()).value());
  profiled_runs(*p, **plain, 1);
  ASSERT_TRUE(p->finish().ok());
  EXPECT_TRUE(files_matching(p->output_dir(), "fusion_op_", ".csv").empty());
}

TEST(ProfilerE2E, PROF_20_L2SwitchWritesL2CacheRowsPerTask) {
  auto c = collect("l2", R"({"l2":"on","training_trace":"on"})", 1);
  const Csv csv = parse_csv(read_text(c.out + "/l2_cache_0_1_1.csv"));
  EXPECT_EQ(csv.header,
            (std::vector<std::string>{"Device_id", "Stream Id", "Task Id", "Hit Rate", "Victim Rate", "Op Name"}));
  ASSERT_EQ(csv.rows.size(), c.exe->nodes().size());
  const std::string info = read_text(c.collection + "/device_0/info.json.0");
  const bool counters_missing = info.find("l2_cache Hit Rate is N/A") != std::string::npos;
  for (size_t r = 0; r < csv.rows.size(); ++r) {
    EXPECT_EQ(csv.rows[r].at("Op Name"), c.exe->nodes()[r].node.name);
    EXPECT_EQ(csv.rows[r].at("Victim Rate"), "N/A");
    if (!counters_missing && csv.rows[r].at("Hit Rate") != "N/A") {
      EXPECT_GE(num(csv.rows[r].at("Hit Rate")), 0.0);
      EXPECT_LE(num(csv.rows[r].at("Hit Rate")), 1.0);
    }
    if (counters_missing) {
      EXPECT_EQ(csv.rows[r].at("Hit Rate"), "N/A");
    }
  }
  // Off (the default): no file.
  auto off = collect("l2off", R"({"training_trace":"on"})", 1);
  EXPECT_TRUE(files_matching(off.out, "l2_cache_", ".csv").empty());
}

}  // namespace
}  // namespace openge::profiling
