// The Trainer (include/openge/trainer.h) on a small MLP written as a real ONNX file: the loss
// falls, deterministic=1 gives the same bits at 1 and 2 threads (OPT-deterministic), the saved
// model runs in a Session with the trained outputs, graph_run_mode=0 is refused with what to set.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "frontend/model_proto_builder.h"
#include "openge/session.h"
#include "openge/trainer.h"
#include "options/option_builder.h"

namespace openge {
namespace {

namespace fs = std::filesystem;

// x [N, 4] -> Gemm 4x16 -> Relu [-> Dropout(ratio, training_mode true)] -> Gemm 16x3 -> logits [N, 3]
std::string write_mlp(const fs::path& dir, float dropout = 0) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("mlp");
  test::add_float_input(g, "x", {-1, 4});
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  auto random = [&](int64_t) { return u(rng); };
  test::add_float_initializer(g, "w1", {4, 16}, random);
  test::add_float_initializer(g, "b1", {16}, random);
  test::add_float_initializer(g, "w2", {16, 3}, random);
  test::add_float_initializer(g, "b2", {3}, random);
  test::add_node(g, "Gemm", {"x", "w1", "b1"}, {"h"});
  test::add_node(g, "Relu", {"h"}, {"r"});
  if (dropout > 0) {
    test::add_float_initializer(g, "ratio", {}, [&](int64_t) { return dropout; });
    auto* on = g->add_initializer();
    on->set_name("training_mode");
    on->set_data_type(onnx::TensorProto::BOOL);
    on->add_int32_data(1);
    test::add_node(g, "Dropout", {"r", "ratio", "training_mode"}, {"d"});
  }
  test::add_node(g, "Gemm", {dropout > 0 ? "d" : "r", "w2", "b2"}, {"logits"});
  g->add_output()->set_name("logits");
  fs::create_directories(dir);
  const std::string path = (dir / (dropout > 0 ? "mlp_dropout.onnx" : "mlp.onnx")).string();
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

// Three Gaussian blobs in 4-D, labelled by blob.
std::vector<Tensor> blobs(int64_t n, uint32_t seed) {
  Tensor x(DType::kFloat32, {n, 4});
  Tensor y(DType::kInt64, {n});
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = i % 3;
    y.data<int64_t>()[i] = c;
    for (int64_t d = 0; d < 4; ++d) x.data<float>()[i * 4 + d] = (d == c ? 2.0f : 0.0f) + noise(rng);
  }
  return {x, y};
}

std::shared_ptr<const options::OptionSet> config(std::vector<options::OptionAssignment> flags) {
  options::OptionInputs in;
  in.flags = std::move(flags);
  auto set = options::build_option_set(in);
  EXPECT_TRUE(set.ok()) << set.status().message();
  return std::make_shared<const options::OptionSet>(std::move(set.value()));
}

class TrainerTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("openge_trainer_test_" + std::to_string(::getpid()));
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(TrainerTest, CrossEntropyLossFallsAndEvaluateClassifies) {
  TrainerOptions o;
  o.loss = "cross_entropy";
  o.optimizer = "momentum";
  o.learning_rate = 0.05f;
  auto t = Trainer::open(write_mlp(dir), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->trainable(), (std::vector<std::string>{"w1", "b1", "w2", "b2"}));
  ASSERT_EQ((*t)->feeds().size(), 2u);
  EXPECT_EQ((*t)->feeds()[1].name, "labels");
  const std::vector<Tensor> batch = blobs(30, 2);
  auto first = (*t)->step(batch);
  ASSERT_TRUE(first.ok()) << first.status().message();
  float last = *first;
  for (int s = 0; s < 60; ++s) last = *(*t)->step(batch);
  EXPECT_LT(last, 0.2f * *first);
  EXPECT_EQ((*t)->steps(), 61);
  const std::vector<Tensor> test = blobs(60, 9);
  auto out = (*t)->evaluate({test[0]});
  ASSERT_TRUE(out.ok()) << out.status().message();
  int right = 0;
  for (int64_t i = 0; i < 60; ++i) {
    const float* row = (*out)[0].data<float>() + i * 3;
    const int64_t best = std::max_element(row, row + 3) - row;
    right += best == test[1].data<int64_t>()[i];
  }
  EXPECT_GE(right, 57);
}

// mse: the labels take the output's shape; the MLP learns a fixed linear map of its inputs.
TEST_F(TrainerTest, MseLossLearnsARegressionTarget) {
  TrainerOptions o;
  o.loss = "mse";
  o.optimizer = "adam";
  o.learning_rate = 0.01f;
  auto t = Trainer::open(write_mlp(dir), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ((*t)->feeds().size(), 2u);
  EXPECT_EQ((*t)->feeds()[1].dtype, DType::kFloat32);
  const Tensor x = blobs(32, 6)[0];
  Tensor target(DType::kFloat32, {32, 3});
  for (int64_t i = 0; i < 32; ++i)
    for (int64_t j = 0; j < 3; ++j)
      target.data<float>()[i * 3 + j] = 0.5f * x.data<float>()[i * 4 + j] - 0.25f * x.data<float>()[i * 4 + 3];
  auto first = (*t)->step({x, target});
  ASSERT_TRUE(first.ok()) << first.status().message();
  float last = *first;
  for (int s = 0; s < 150; ++s) last = *(*t)->step({x, target});
  EXPECT_LT(last, 0.05f * *first) << "mean squared error after 150 steps";
}

TEST_F(TrainerTest, SavedModelRunsInASessionWithTheTrainedOutputs) {
  TrainerOptions o;
  o.loss = "cross_entropy";
  o.optimizer = "adam";
  o.learning_rate = 0.01f;
  auto t = Trainer::open(write_mlp(dir), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const std::vector<Tensor> batch = blobs(12, 4);
  for (int s = 0; s < 5; ++s) ASSERT_TRUE((*t)->step(batch).ok());
  const std::string saved = (dir / "trained.onnx").string();
  ASSERT_TRUE((*t)->save(saved).ok());
  auto session = Session::open(saved);
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto expected = (*t)->evaluate({batch[0]});
  auto got = (*session)->run({batch[0]});
  ASSERT_TRUE(expected.ok() && got.ok());
  for (int64_t i = 0; i < (*got)[0].numel(); ++i)
    EXPECT_NEAR((*got)[0].data<float>()[i], (*expected)[0].data<float>()[i], 1e-5f) << i;
  auto w1 = (*t)->parameter("w1");
  ASSERT_TRUE(w1.ok());
  EXPECT_FALSE((*t)->parameter("x").ok());
}

TEST_F(TrainerTest, OPT_deterministic_1_SameWeightsAtOneAndTwoThreads) {
  for (float dropout : {0.0f, 0.3f}) {
    SCOPED_TRACE(dropout > 0 ? "with training-mode Dropout" : "without Dropout");
    std::vector<std::vector<Tensor>> weights;
    const std::string model = write_mlp(dir, dropout);
    for (int threads : {1, 2}) {
      TrainerOptions o;
      o.loss = "cross_entropy";
      o.optimizer = "momentum";
      o.session.num_threads = threads;
      o.session.config = config({{"deterministic", "1", "test"}});
      auto t = Trainer::open(model, o);
      ASSERT_TRUE(t.ok()) << t.status().message();
      const std::vector<Tensor> batch = blobs(64, 5);
      for (int s = 0; s < 50; ++s) ASSERT_TRUE((*t)->step(batch).ok());
      std::vector<Tensor> w;
      for (const std::string& name : (*t)->trainable()) w.push_back(*(*t)->parameter(name));
      weights.push_back(std::move(w));
    }
    for (size_t p = 0; p < weights[0].size(); ++p)
      EXPECT_EQ(std::memcmp(weights[0][p].raw(), weights[1][p].raw(), weights[0][p].nbytes()), 0) << "parameter " << p;
  }
}

// Training-mode Dropout (ratio 0.3): masks drawn from the seed and the step, so the same seed
// trains to the same bits and another seed to other weights; the loss still falls; evaluation runs
// without dropping (two evaluations agree).
TEST_F(TrainerTest, DropoutTrainsWithSeededMasks) {
  const std::string model = write_mlp(dir, 0.3f);
  auto train = [&](int64_t seed, std::vector<float>* losses) {
    TrainerOptions o;
    o.loss = "cross_entropy";
    o.optimizer = "momentum";
    o.learning_rate = 0.05f;
    o.seed = seed;
    o.session.num_threads = 1;
    auto t = Trainer::open(model, o);
    EXPECT_TRUE(t.ok()) << t.status().message();
    for (int s = 0; s < 60; ++s) {
      auto loss = (*t)->step(blobs(32, 40 + static_cast<uint32_t>(s)));
      EXPECT_TRUE(loss.ok()) << loss.status().message();
      if (losses) losses->push_back(*loss);
    }
    return std::move(t.value());
  };
  std::vector<float> losses;
  auto a = train(7, &losses), b = train(7, nullptr), c = train(8, nullptr);
  EXPECT_LT(losses.back(), 0.5f * losses.front());
  bool all_same = true, any_differs = false;
  for (const std::string& name : a->trainable()) {
    const Tensor wa = *a->parameter(name), wb = *b->parameter(name), wc = *c->parameter(name);
    all_same &= std::memcmp(wa.raw(), wb.raw(), wa.nbytes()) == 0;
    any_differs |= std::memcmp(wa.raw(), wc.raw(), wa.nbytes()) != 0;
  }
  EXPECT_TRUE(all_same) << "the same seed must draw the same masks";
  EXPECT_TRUE(any_differs) << "another seed must draw other masks";
  const std::vector<Tensor> x = {blobs(8, 3)[0]};
  auto e1 = a->evaluate(x), e2 = a->evaluate(x);
  ASSERT_TRUE(e1.ok() && e2.ok());
  EXPECT_EQ(std::memcmp((*e1)[0].raw(), (*e2)[0].raw(), (*e1)[0].nbytes()), 0) << "evaluation must not drop";
}

// Resuming from the step-25 checkpoint gives the uninterrupted run's weights bit for bit (Adam:
// moments and step count are part of the checkpoint).
TEST_F(TrainerTest, ResumingFromACheckpointContinuesExactly) {
  // With Dropout, the masks of the resumed steps are the uninterrupted run's too.
  for (float dropout : {0.3f, 0.0f}) {
    SCOPED_TRACE(dropout > 0 ? "with training-mode Dropout" : "without Dropout");
    const std::string model = write_mlp(dir, dropout);
    TrainerOptions o;
    o.loss = "cross_entropy";
    o.optimizer = "adam";
    o.learning_rate = 0.01f;
    o.session.num_threads = 1;
    o.session.config = config({{"deterministic", "1", "test"}});
    std::vector<std::vector<Tensor>> data;
    for (uint32_t s = 0; s < 50; ++s) data.push_back(blobs(16, 100 + s));
    auto whole = Trainer::open(model, o);
    ASSERT_TRUE(whole.ok());
    for (const auto& batch : data) ASSERT_TRUE((*whole)->step(batch).ok());

    auto first = Trainer::open(model, o);
    ASSERT_TRUE(first.ok());
    for (size_t s = 0; s < 25; ++s) ASSERT_TRUE((*first)->step(data[s]).ok());
    const std::string ckpt = (dir / "ckpt").string();
    ASSERT_TRUE((*first)->save_checkpoint(ckpt).ok());
    ASSERT_TRUE((*first)->save_checkpoint(ckpt).ok()) << "an existing checkpoint is replaced";
    auto resumed = Trainer::open(model, o);
    ASSERT_TRUE(resumed.ok());
    Status loaded = (*resumed)->load_checkpoint(ckpt);
    ASSERT_TRUE(loaded.ok()) << loaded.message();
    EXPECT_EQ((*resumed)->steps(), 25);
    for (size_t s = 25; s < 50; ++s) ASSERT_TRUE((*resumed)->step(data[s]).ok());
    for (const std::string& name : (*whole)->trainable()) {
      const Tensor a = *(*whole)->parameter(name), b = *(*resumed)->parameter(name);
      EXPECT_EQ(std::memcmp(a.raw(), b.raw(), a.nbytes()), 0) << name;
    }
    if (dropout > 0) continue;
    // Another optimizer's checkpoint is refused, naming both.
    o.optimizer = "sgd";
    auto other = Trainer::open(model, o);
    ASSERT_TRUE(other.ok());
    Status refused = (*other)->load_checkpoint(ckpt);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find("optimizer adam"), std::string::npos) << refused.message();
    EXPECT_FALSE((*other)->load_checkpoint((dir / "missing").string()).ok());
  }
}

// Loss Scaling (OPT-precision_mode-12): under a float16 precision mode the loss is scaled; a
// batch that overflows is skipped (no update) and halves the scale; training goes on.
TEST_F(TrainerTest, OPT_precision_mode_12_DynamicLossScalingSkipsAnOverflowingStep) {
  TrainerOptions o;
  o.loss = "cross_entropy";
  o.optimizer = "momentum";
  o.learning_rate = 0.05f;
  o.session.config = config({{"precision_mode", "allow_mix_precision", "test"}});
  auto t = Trainer::open(write_mlp(dir), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->loss_scale(), 65536.0f) << "auto: dynamic under a float16 mode";
  const std::vector<Tensor> batch = blobs(30, 2);
  auto first = (*t)->step(batch);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ((*t)->skipped_steps(), 0);
  // An input no float16 holds: every gradient overflows.
  std::vector<Tensor> huge = {batch[0].clone(), batch[1]};
  for (int64_t i = 0; i < huge[0].numel(); ++i) huge[0].data<float>()[i] = 1e30f;
  const Tensor before = *(*t)->parameter("w1");
  ASSERT_TRUE((*t)->step(huge).ok());
  EXPECT_EQ((*t)->skipped_steps(), 1);
  EXPECT_EQ((*t)->loss_scale(), 32768.0f);
  EXPECT_EQ((*t)->steps(), 1) << "the skipped step made no update";
  const Tensor after = *(*t)->parameter("w1");
  EXPECT_EQ(std::memcmp(before.raw(), after.raw(), before.nbytes()), 0);
  float last = *first;
  for (int s = 0; s < 60; ++s) last = *(*t)->step(batch);
  EXPECT_LT(last, 0.2f * *first) << "training converges after the skipped step";
  // Plain float32: no scaling.
  TrainerOptions plain;
  plain.loss = "cross_entropy";
  auto p = Trainer::open(write_mlp(dir), plain);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->loss_scale(), 1.0f);
  plain.loss_scale = "-3";
  EXPECT_FALSE(Trainer::open(write_mlp(dir), plain).ok());
}

// Every training step is a profiling iteration whose step trace has FP start (the first forward
// op, auto-detected) before BP end (the last backward op) before the iteration end.
TEST_F(TrainerTest, OPT_profiling_config_profiling_options_training_trace_1_StepTracePerTrainingStep_PROF_18) {
  const fs::path out = dir / "prof";
  fs::create_directories(out);
  TrainerOptions o;
  o.loss = "cross_entropy";
  o.session.config =
      config({{"profiling_config.enable_profiling", "True", "test"},
              {"profiling_config.profiling_options",
               "{\"output\":\"" + out.string() + "\",\"training_trace\":\"on\",\"task_trace\":\"on\"}", "test"}});
  auto t = Trainer::open(write_mlp(dir), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const std::vector<Tensor> batch = blobs(12, 3);
  for (int s = 0; s < 3; ++s) {
    (*t)->record_batch_timing(12, 0.001, 0.0, true);
    ASSERT_TRUE((*t)->step(batch).ok());
  }
  ASSERT_TRUE((*t)->finish_profiling().ok());
  int traced = 0, data_rows = 0, phase_lanes = 0, update_tasks = 0;
  for (const auto& e : fs::recursive_directory_iterator((*t)->profiling_dir())) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("dp_") && e.path().extension() == ".csv") {  // PROF-18: one row per batch taken
      std::ifstream in(e.path());
      std::string header, row;
      std::getline(in, header);
      EXPECT_EQ(header,
                "Device_id,Timestamp(us),Action,Source,Cached Buffer Size,Samples,Gather Time(us),Wait Time(us)");
      while (std::getline(in, row)) {
        EXPECT_NE(row.find("Dequeue,openge.Prefetcher,1,12,1000.000"), std::string::npos) << row;
        ++data_rows;
      }
    }
    if (name.starts_with("msprof_") && e.path().extension() == ".json") {
      std::ifstream in(e.path());
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      for (const char* lane : {"\"name\":\"Forward\"", "\"name\":\"Backward\"", "\"name\":\"Update\""})
        phase_lanes += text.find(lane) != std::string::npos;
      // The update runs inside the step's graph: its nodes are tasks of the iteration.
      update_tasks += text.find("\"Op Type\":\"OptimizerUpdate\"") != std::string::npos;
    }
    if (!name.starts_with("step_trace_") || e.path().extension() != ".csv") continue;
    std::ifstream in(e.path());
    std::string header, row;
    std::getline(in, header);
    while (std::getline(in, row)) {
      // Device_id, Iteration ID, FP Start, BP End, Iteration End, ...
      std::vector<double> cells;
      std::stringstream ss(row);
      for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(std::atof(cell.c_str()));
      ASSERT_GE(cells.size(), 5u) << row;
      EXPECT_GT(cells[2], 0) << row;
      EXPECT_LT(cells[2], cells[3]) << "FP start before BP end: " << row;
      EXPECT_LE(cells[3], cells[4]) << "BP end before the iteration end: " << row;
      ++traced;
    }
  }
  EXPECT_EQ(traced, 3) << "one step-trace row per training step";
  EXPECT_EQ(data_rows, 3) << "PROF-18: one dp_*.csv row per batch";
  EXPECT_EQ(phase_lanes, 9) << "forward, backward and update lanes in each step's timeline";
  EXPECT_EQ(update_tasks, 3) << "the optimizer's OptimizerUpdate nodes in each step's timeline";
}

// dump_step counts training steps: "1" dumps the second step only, backward ops included.
TEST_F(TrainerTest, OPT_dump_config_dump_step_1_SelectsTrainingSteps) {
  const fs::path out = dir / "dump";
  fs::create_directories(out);
  TrainerOptions o;
  o.loss = "cross_entropy";
  o.session.config = config({{"dump_config.enable_dump", "True", "test"},
                             {"dump_config.dump_path", out.string(), "test"},
                             {"dump_config.dump_step", "1", "test"}});
  auto t = Trainer::open(write_mlp(dir), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const std::vector<Tensor> batch = blobs(12, 3);
  for (int s = 0; s < 3; ++s) ASSERT_TRUE((*t)->step(batch).ok());
  ASSERT_TRUE((*t)->flush_dump().ok());
  std::set<std::string> iterations;
  bool backward = false;
  for (const auto& e : fs::recursive_directory_iterator((*t)->dump_dir())) {
    if (!e.is_regular_file()) continue;
    iterations.insert(e.path().parent_path().filename().string());
    backward = backward || e.path().filename().string().starts_with("ConvGrad") ||
               e.path().filename().string().find("_grad_") != std::string::npos;
  }
  EXPECT_EQ(iterations, std::set<std::string>{"1"});
  EXPECT_TRUE(backward) << "the backward pass is dumped too";
}

TEST_F(TrainerTest, OPT_graph_run_mode_2_OnlineInferenceRefusesATrainerWithWhatToSet) {
  TrainerOptions o;
  o.session.config = config({{"graph_run_mode", "0", "test"}});
  auto t = Trainer::open(write_mlp(dir), o);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("set graph_run_mode=1"), std::string::npos) << t.status().message();
}

TEST_F(TrainerTest, BadRequestsNameWhatIsWrong) {
  TrainerOptions o;
  o.optimizer = "rmsprop";
  auto bad = Trainer::open(write_mlp(dir), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("rmsprop"), std::string::npos);
  o.optimizer = "sgd";
  o.loss = "model";  // the MLP has no scalar output
  bad = Trainer::open(write_mlp(dir), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("name a loss"), std::string::npos) << bad.status().message();
  o.loss = "cross_entropy";
  auto t = Trainer::open(write_mlp(dir), o);
  ASSERT_TRUE(t.ok());
  auto step = (*t)->step({blobs(3, 1)[0]});  // the labels are missing
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.status().message().find("x, labels"), std::string::npos) << step.status().message();
}

}  // namespace
}  // namespace openge
