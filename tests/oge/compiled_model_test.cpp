// Compiled models (.oge, openge compile): a model compiled once and loaded gives the very bits
// of the model compiled from its .onnx, without any rewrite running again; a .oge from another
// engine version, CPU or option set is refused with what differs; a truncated, corrupt or
// tampered file is one clear error.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../compiler/fused_model_test_util.h"
#include "../frontend/matmul_model_util.h"
#include "oge_test_models.h"
#include "base/cpu_features.h"
#include "compiler/prebuilt_kernels.h"
#include "oge/oge_file.h"
#include "openge/compile.h"
#include "options/option_set.h"
#include "runtime/demo_run_util.h"
#include "compiler/pipeline.h"
#include "compiler/compile_config_test_util.h"

namespace openge::oge::test {
namespace {
namespace fs = std::filesystem;
using options::test::Flags;
using options::test::TempDir;

const std::string& kDemo = openge::test::kDemoModel;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

SessionOptions session_options(const TempDir& d, const Flags& flags = {}) {
  SessionOptions so;
  so.num_threads = 1;
  so.config = openge::test::options_from({{"HOME", d.path()}}, d.path(), flags);
  return so;
}

// Deterministic inputs of every input's (fixed) shape: values cycling through [-1, 1).
std::vector<Tensor> inputs_of(const Session& s) {
  std::vector<Tensor> inputs;
  for (const auto& info : s.inputs()) {
    Tensor t(info.dtype, info.shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>((i * 37) % 101) / 50.5f - 1.0f;
    inputs.push_back(std::move(t));
  }
  return inputs;
}

std::vector<Tensor> run_model(const std::string& model, const SessionOptions& so) {
  auto session = Session::open(model, so);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  auto out = (*session)->run(inputs_of(**session));
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(out.value()) : std::vector<Tensor>{};
}

void expect_same_bits(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].dtype(), b[i].dtype()) << "output " << i;
    ASSERT_EQ(a[i].shape(), b[i].shape()) << "output " << i;
    EXPECT_EQ(0, std::memcmp(a[i].raw(), b[i].raw(), a[i].nbytes())) << "output " << i << " differs";
  }
}

// A .oge carries the binaries of its fused nodes' kernels, built at compile for the highest
// x86-64 level of the compiling CPU (compiler/prebuilt_kernels.h): loading it runs no compiler,
// so it runs where none is installed, and its outputs are the .onnx session's bits.
TEST(CompiledModel, FusedKernelsAreBuiltIntoTheOgeAndRunWithoutACompiler) {
  TempDir d;
  const std::string cxx = openge::testing::fused::counting_compiler(d.path());
  SessionOptions so;
  so.num_threads = 1;
  so.config = openge::test::options_from({{"HOME", d.path()}, {"CXX", cxx}}, d.path(), {{"jit_compile", "true"}});
  const std::string onnx_path = eltwise_model(d.path()), oge = d.path() + "/eltwise.oge";
  const auto from_onnx = run_model(onnx_path, so);
  ASSERT_EQ(openge::testing::fused::compiler_runs(d.path()), 1);
  auto summary = compile_model(onnx_path, oge, so);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->prebuilt_kernels, 1u);
  EXPECT_EQ(summary->kernel_isa, compiler::best_isa_level());
  EXPECT_EQ(openge::testing::fused::compiler_runs(d.path()), 2) << "one build for the .oge's level";
  auto model = read_oge_file(oge);
  ASSERT_TRUE(model.ok()) << model.status().message();
  ASSERT_EQ(model->graph.nodes.size(), 1u);
  EXPECT_EQ(model->graph.nodes[0].op_type, "FusedElementwise");
  ASSERT_EQ(model->header.kernels.size(), 1u);
  EXPECT_EQ(model->header.kernels.begin()->second.substr(0, 4),
            "\x7f"
            "ELF");

  // No compiler at all where it runs: the file's kernel is loaded, not built.
  SessionOptions no_compiler = so;
  no_compiler.config = openge::test::options_from({{"HOME", d.path()}, {"CXX", d.path() + "/no-such-compiler"}},
                                                  d.path(), {{"jit_compile", "true"}});
  expect_same_bits(run_model(oge, no_compiler), from_onnx);
  EXPECT_EQ(openge::testing::fused::compiler_runs(d.path()), 2) << "loading the .oge ran the compiler";
  // The .onnx under the same options needs the compiler: the .oge is what made the difference.
  auto from_source = Session::open(onnx_path, no_compiler);
  ASSERT_TRUE(from_source.ok()) << from_source.status().message();
  EXPECT_FALSE((*from_source)->run(inputs_of(**from_source)).ok());
}

// Kernels built for a level this CPU does not run are never loaded (they would stop at an illegal
// instruction): the fused node runs its reference kernel, with the same results.
TEST(CompiledModel, KernelsForALevelThisCpuDoesNotRunGiveWayToTheReferenceKernels) {
  TempDir d;
  SessionOptions so = session_options(d, {{"jit_compile", "true"}});
  const std::string onnx_path = eltwise_model(d.path()), oge = d.path() + "/eltwise.oge";
  ASSERT_TRUE(compile_model(onnx_path, oge, so).ok());
  auto model = read_oge_file(oge);
  ASSERT_TRUE(model.ok()) << model.status().message();
  ASSERT_FALSE(model->header.kernels.empty());
  model->header.kernel_isa = "x86-64-v9";
  auto bytes = serialize_oge(model->graph, model->header);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  SessionOptions no_compiler = so;
  no_compiler.config = openge::test::options_from({{"HOME", d.path()}, {"CXX", d.path() + "/no-such-compiler"}},
                                                  d.path(), {{"jit_compile", "true"}});
  auto session = Session::open_from_memory(bytes->data(), bytes->size(), no_compiler, "elsewhere.oge");
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto out = (*session)->run(inputs_of(**session));
  ASSERT_TRUE(out.ok()) << out.status().message();
  expect_same_bits(*out, run_model(onnx_path, so));
}

// Without a compiler at compile time the .oge is still written, without kernels, and says so; with
// jit_compile=false none are built either. Damaged kernel bytes are refused when the file is read.
TEST(CompiledModel, OgeWithoutKernelsSaysWhyAndDamagedKernelsAreRefused) {
  TempDir d;
  const std::string onnx_path = eltwise_model(d.path()), oge = d.path() + "/eltwise.oge";
  SessionOptions no_compiler;
  no_compiler.num_threads = 1;
  no_compiler.config = openge::test::options_from({{"HOME", d.path()}, {"CXX", d.path() + "/no-such-compiler"}},
                                                  d.path(), {{"jit_compile", "true"}});
  auto summary = compile_model(onnx_path, oge, no_compiler);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->prebuilt_kernels, 0u);
  EXPECT_NE(summary->kernels_note.find("no-such-compiler"), std::string::npos) << summary->kernels_note;
  auto offline = compile_model(onnx_path, oge, session_options(d, {{"jit_compile", "false"}}));
  ASSERT_TRUE(offline.ok()) << offline.status().message();
  EXPECT_EQ(offline->prebuilt_kernels, 0u);
  EXPECT_NE(offline->kernels_note.find("jit_compile=false"), std::string::npos) << offline->kernels_note;

  ASSERT_TRUE(compile_model(onnx_path, oge, session_options(d, {{"jit_compile", "true"}})).ok());
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(read_bytes(oge)));
  bool damaged = false;
  for (int i = m.metadata_props_size() - 1; i >= 0; --i) {
    const std::string key = m.metadata_props(i).key();
    if (key == "openge.digest") m.mutable_metadata_props()->DeleteSubrange(i, 1);
    if (key.rfind("openge.kernel.", 0) == 0) {
      m.mutable_metadata_props(i)->mutable_value()->insert(0, "!");
      damaged = true;
    }
  }
  ASSERT_TRUE(damaged);
  const std::string resealed = seal_oge(m.SerializeAsString());
  auto parsed = parse_oge(resealed.data(), resealed.size(), "damaged.oge");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("damaged"), std::string::npos) << parsed.status().message();
}

TEST(CompiledModel, DemoModelFromOgeGivesTheBitsOfTheOnnxAndRunsNoPassAgain) {
  TempDir d;
  const SessionOptions so = session_options(d);
  const std::string oge = d.path() + "/demo.oge";
  auto summary = compile_model(kDemo, oge, so);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_FALSE(summary->passes_applied.empty()) << "the demo model's Conv+BatchNorm+Relu should fuse";
  EXPECT_LT(summary->compiled_nodes, summary->model_nodes);
  expect_same_bits(run_model(oge, so), run_model(kDemo, so));

  // Loaded, the graph is the fused one and neither the passes nor the precision pass ran.
  auto model = read_oge_file(oge);
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(model->graph.nodes.size(), summary->compiled_nodes);
  size_t fused = 0;
  for (const Node& n : model->graph.nodes) fused += n.fused_from.empty() ? 0 : 1;
  EXPECT_GT(fused, 0u);
  std::vector<Shape> shapes;
  for (int v : model->graph.inputs) shapes.push_back(*model->graph.values[static_cast<size_t>(v)].shape);
  CompileOptions co;
  co.config = openge::test::compile_config(so.config);
  co.stages = CompileStages::kPrecompiled;
  CompileReport report;
  auto exe = compiler::compile(model->graph, shapes, co, &report);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  EXPECT_TRUE(report.pass_stats.empty());
  EXPECT_TRUE(report.precision_decisions.empty());
  EXPECT_EQ((*exe)->nodes().size(), summary->compiled_nodes);
}

TEST(CompiledModel, OpenInputCompiledForTheGivenShapeMatchesTheOnnxBitForBit) {
  TempDir d;
  const SessionOptions so = session_options(d);
  const std::string onnx = matmul_model(d.path());
  const std::string oge = d.path() + "/mlp.oge";
  auto missing = compile_model(onnx, oge, so);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("input 'x'"), std::string::npos) << missing.status().message();
  EXPECT_NE(missing.status().message().find("--input-shape"), std::string::npos) << missing.status().message();
  EXPECT_FALSE(fs::exists(oge));
  auto unknown = compile_model(onnx, oge, so, {{"x", {5, 4}}, {"z", {1}}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("'z', which is not an input"), std::string::npos)
      << unknown.status().message();

  auto summary = compile_model(onnx, oge, so, {{"x", {5, 4}}});
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_LT(summary->compiled_nodes, 3u) << "MatMul + Add (+ Relu) fuse";
  auto compiled = Session::open(oge, so);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  EXPECT_EQ((*compiled)->inputs()[0].shape, (Shape{5, 4}));
  const auto inputs = inputs_of(**compiled);
  auto from_oge = (*compiled)->run(inputs);
  ASSERT_TRUE(from_oge.ok()) << from_oge.status().message();
  auto original = Session::open(onnx, so);
  ASSERT_TRUE(original.ok());
  auto from_onnx = (*original)->run(inputs);
  ASSERT_TRUE(from_onnx.ok());
  expect_same_bits(*from_oge, *from_onnx);
  // By hand: row 0 of x is (-1, -0.267, 0.465, -0.802) ... checked against the definition instead.
  const float* xs = inputs[0].data<float>();
  const float W[12] = {-2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1};
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 3; ++c) {
      float acc = 0.5f * static_cast<float>(c) - 0.5f;
      for (int k = 0; k < 4; ++k) acc += xs[r * 4 + k] * W[k * 3 + c];
      EXPECT_NEAR((*from_oge)[0].data<float>()[r * 3 + c], acc > 0 ? acc : 0.0f, 1e-5f) << r << "," << c;
    }
  // Compiled for [5, 4]: another batch is refused with the shape it was compiled for.
  auto other = (*compiled)->run({Tensor(DType::kFloat32, {2, 4})});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("[5,4]"), std::string::npos) << other.status().message();
}

TEST(CompiledModel, PrecisionModeIsCompiledInAndTheOgeMatchesTheOnnxUnderTheSameMode) {
  TempDir d;
  const SessionOptions fp16 = session_options(d, {{"precision_mode", "allow_fp32_to_fp16"}});
  const std::string oge = d.path() + "/demo_fp16.oge";
  auto summary = compile_model(kDemo, oge, fp16);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  ASSERT_TRUE(summary->options.count("precision_mode"));
  EXPECT_EQ(summary->options.at("precision_mode"), "allow_fp32_to_fp16");
  // Weights are stored in their final dtype.
  auto model = read_oge_file(oge);
  ASSERT_TRUE(model.ok());
  size_t fp16_constants = 0;
  for (const Value& v : model->graph.values) fp16_constants += v.constant && v.dtype == DType::kFloat16 ? 1 : 0;
  EXPECT_GT(fp16_constants, 0u);
  // Run without options, the .oge keeps its compiled mode: the bits of the .onnx under allow_fp32_to_fp16.
  const std::vector<Tensor> from_oge = run_model(oge, session_options(d));
  expect_same_bits(from_oge, run_model(kDemo, fp16));
  // ... and within fp16 tolerance of the float32 model.
  const std::vector<Tensor> fp32 = run_model(kDemo, session_options(d));
  ASSERT_EQ(fp32.size(), from_oge.size());
  for (int64_t i = 0; i < fp32[0].numel(); ++i)
    EXPECT_NEAR(from_oge[0].data<float>()[i], fp32[0].data<float>()[i], 2e-3f) << i;
}

TEST(CompiledModel, ConflictingOptionVersionOrCpuIsRefusedSayingWhatDiffersAndToRecompile) {
  TempDir d;
  const std::string oge = d.path() + "/demo.oge";
  ASSERT_TRUE(compile_model(kDemo, oge, session_options(d, {{"precision_mode", "allow_fp32_to_fp16"}})).ok());
  // The same value, or none, is accepted; another value is refused naming both.
  EXPECT_TRUE(Session::open(oge, session_options(d, {{"precision_mode", "allow_fp32_to_fp16"}})).ok());
  auto conflict = Session::open(oge, session_options(d, {{"precision_mode", "allow_mix_precision"}}));
  ASSERT_FALSE(conflict.ok());
  const std::string m = conflict.status().message();
  EXPECT_NE(
      m.find(
          "option precision_mode is 'allow_mix_precision' here but the graph was compiled with 'allow_fp32_to_fp16'"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("openge compile --model demo.onnx"), std::string::npos) << m;
  SessionOptions no_passes = session_options(d);
  no_passes.run_passes = false;
  auto passes = Session::open(oge, no_passes);
  ASSERT_FALSE(passes.ok());
  EXPECT_NE(passes.status().message().find("fusion passes on"), std::string::npos) << passes.status().message();

  // Another engine version and a CPU feature this CPU lacks: the same graph, other headers.
  auto model = read_oge_file(oge);
  ASSERT_TRUE(model.ok());
  OgeHeader other_version = model->header;
  other_version.engine_version = "0.0.0-test";
  OgeHeader other_cpu = model->header;
  other_cpu.cpu_features.push_back("openge-test-feature");
  for (const auto& [header, expected] :
       std::vector<std::pair<OgeHeader, std::string>>{{other_version, "compiled by OpenGE 0.0.0-test, this is OpenGE "},
                                                      {other_cpu, "with openge-test-feature, which this CPU lacks"}}) {
    auto bytes = serialize_oge(model->graph, header);
    ASSERT_TRUE(bytes.ok());
    auto refused = Session::open_from_memory(bytes->data(), bytes->size(), session_options(d), "other.oge");
    ASSERT_FALSE(refused.ok()) << expected;
    EXPECT_NE(refused.status().message().find(expected), std::string::npos) << refused.status().message();
    EXPECT_NE(refused.status().message().find("Recompile it here"), std::string::npos) << refused.status().message();
  }
  // This CPU's features are what a .oge records.
  EXPECT_EQ(model->header.cpu_features, cpu_features());
}

TEST(CompiledModel, TruncatedCorruptOrTamperedFilesAreOneClearError) {
  TempDir d;
  const SessionOptions so = session_options(d);
  const std::string oge = d.path() + "/demo.oge";
  ASSERT_TRUE(compile_model(kDemo, oge, so).ok());
  const std::string bytes = read_bytes(oge);
  // In memory, a .oge is recognised by its first bytes and runs like the file.
  auto from_memory = Session::open_from_memory(bytes.data(), bytes.size(), so);
  ASSERT_TRUE(from_memory.ok()) << from_memory.status().message();
  for (size_t cut : {size_t{0}, size_t{1}, size_t{40}, bytes.size() / 2, bytes.size() - 1}) {
    const std::string path = d.file("cut.oge", bytes.substr(0, cut));
    auto s = Session::open(path, so);
    ASSERT_FALSE(s.ok()) << cut;
    EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find("truncated"), std::string::npos) << s.status().message();
  }
  std::string flipped = bytes;
  flipped[bytes.size() / 3] ^= 0x10;
  auto corrupt = Session::open(d.file("flipped.oge", flipped), so);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_NE(corrupt.status().message().find("digest does not match"), std::string::npos) << corrupt.status().message();

  // A valid digest over a graph whose stored shape is not what its node computes.
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  ASSERT_GT(m.graph().value_info_size(), 0);
  m.mutable_graph()
      ->mutable_value_info(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(7);
  for (int i = m.metadata_props_size() - 1; i >= 0; --i)
    if (m.metadata_props(i).key() == "openge.digest") m.mutable_metadata_props()->DeleteSubrange(i, 1);
  const std::string tampered = seal_oge(m.SerializeAsString());
  auto session = Session::open_from_memory(tampered.data(), tampered.size(), so, "tampered.oge");
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto run = (*session)->run(inputs_of(**session));
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("is stored with shape"), std::string::npos) << run.status().message();
}

TEST(CompiledModel, ResealedFloat16InputOfAVectorOpIsRefusedNotRunWrong) {
  // A float32 Relu model compiled, its input retyped to float16 and the digest resealed: Relu
  // computes float16, the file stores float32. The engine before the check read the float16
  // bytes of the output as floats (2.15e-41 for 1.0); now the run is one error naming the node.
  TempDir d;
  const SessionOptions so = session_options(d);
  onnx::ModelProto relu;
  onnx::TensorShapeProto* x = start_model(relu, "relu");
  x->add_dim()->set_dim_value(2);
  x->add_dim()->set_dim_value(3);
  add_node(relu.mutable_graph(), "Relu", {"x"}, "y");
  relu.mutable_graph()->add_output()->set_name("y");
  const std::string oge = d.path() + "/relu.oge";
  ASSERT_TRUE(compile_model(save_model(relu, d.path() + "/relu.onnx"), oge, so).ok());
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(read_bytes(oge)));
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
  for (int i = m.metadata_props_size() - 1; i >= 0; --i)
    if (m.metadata_props(i).key() == "openge.digest") m.mutable_metadata_props()->DeleteSubrange(i, 1);
  const std::string resealed = seal_oge(m.SerializeAsString());
  auto session = Session::open_from_memory(resealed.data(), resealed.size(), so, "resealed.oge");
  if (!session.ok()) {  // refused at open is as good as at the first run
    EXPECT_NE(session.status().message().find("Relu"), std::string::npos) << session.status().message();
    return;
  }
  Tensor input(DType::kFloat16, {2, 3});
  for (int i = 0; i < 6; ++i) input.data<uint16_t>()[i] = 0x3c00;  // 1.0
  auto run = (*session)->run({input});
  ASSERT_FALSE(run.ok()) << "ran with output " << (run.ok() && !run->empty() ? (*run)[0].data<float>()[0] : 0.0f);
  EXPECT_NE(run.status().message().find("is stored as float32 but the op computes float16"), std::string::npos)
      << run.status().message();
  // The float16 form of a cube op (the precision pass's "float16 in, float32 out") still loads:
  // covered by PrecisionModeIsCompiledInAndTheOgeMatchesTheOnnxUnderTheSameMode.
}

TEST(CompiledModel, WriteFailureLeavesNoFile) {
  TempDir d;
  const std::string missing_dir = d.path() + "/no/such/dir/demo.oge";
  auto r = compile_model(kDemo, missing_dir, session_options(d));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--output"), std::string::npos) << r.status().message();
  EXPECT_FALSE(fs::exists(missing_dir));
}

// Cold-start memory for compiled models: a .oge is mapped and its weights copied from the file's
// pages into their tensors (those pages given back as they go), never read into a buffer and
// parsed whole (which peaked at three times the file).
TEST(CompiledModel, ALargeOgeLoadsWithoutHoldingItsWeightsTwice) {
  TempDir d;
  const std::string onnx_path = d.path() + "/big.onnx", oge = d.path() + "/big.oge";
  {
    std::ofstream out(onnx_path, std::ios::binary);
    ASSERT_TRUE(openge::test::matmul_model(2048, 8192).SerializeToOstream(&out));  // a 64 MiB weight
  }
  auto summary = compile_model(onnx_path, oge, session_options(d));
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  const size_t file_size = fs::file_size(oge);
  openge::test::reset_peak_rss();
  const size_t before = openge::test::peak_rss();
  auto model = read_oge_file(oge);
  const size_t grown = openge::test::peak_rss() - before;
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_LE(static_cast<double>(grown), openge::test::kLoadPeakBound * static_cast<double>(file_size))
      << "peak grew by " << grown / (1 << 20) << " MiB for a " << file_size / (1 << 20) << " MiB .oge";
}

}  // namespace
}  // namespace openge::oge::test
