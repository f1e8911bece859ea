// Weights held once: a compiled graph drops the constants its kernels packed,
// and a Session of a fixed-shape model hands its graph to that one compile. The expected products
// are computed here by a plain triple loop in double precision.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "dump/exception_dump.h"
#include "openge/session.h"
#include "options/option_set.h"
#include "runtime/demo_run_util.h"
#include "compiler/pipeline.h"
#include "compiler/compile_config_test_util.h"

namespace openge {
namespace {
using options::test::TempDir;

constexpr int64_t kRows = 4, kDepth = 96, kCols = 40;

Tensor ramp(const Shape& shape, float scale) {
  Tensor t(DType::kFloat32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = scale * static_cast<float>((i * 37) % 23 - 11);
  return t;
}

// a [rows, K] x w [K, N], in double.
std::vector<double> expected_product(const Tensor& a, const Tensor& w) {
  const int64_t rows = a.dim(0), depth = a.dim(1), cols = w.dim(1);
  std::vector<double> out(static_cast<size_t>(rows * cols), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < depth; ++k)
      for (int64_t c = 0; c < cols; ++c)
        out[static_cast<size_t>(r * cols + c)] +=
            static_cast<double>(a.data<float>()[r * depth + k]) * w.data<float>()[k * cols + c];
  return out;
}

void expect_product(const Tensor& y, const Tensor& a, const Tensor& w) {
  const auto want = expected_product(a, w);
  ASSERT_EQ(y.numel(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(y.data<float>()[i], want[i], 1e-3 * (1 + std::fabs(want[i]))) << i;
}

// y = MatMul(a, w) with w an initializer; `rows` < 0 makes a's first dim symbolic. With
// `w_also_output`, w is a graph output too (a reader no kernel packs).
Graph matmul_graph(int64_t rows, bool w_also_output = false) {
  Graph g;
  g.opset = 13;
  g.name = "matmul";
  const int a = g.add_value("a");
  g.values[static_cast<size_t>(a)].dtype = DType::kFloat32;
  g.values[static_cast<size_t>(a)].shape = Shape{rows, kDepth};
  g.inputs.push_back(a);
  const int w = g.add_value("w");
  Value& wv = g.values[static_cast<size_t>(w)];
  wv.constant = ramp({kDepth, kCols}, 0.01f);
  wv.dtype = DType::kFloat32;
  wv.shape = wv.constant->shape();
  const int y = g.add_value("y");
  Node n;
  n.op_type = "MatMul";
  n.name = "mm";
  n.inputs = {a, w};
  n.outputs = {y};
  g.values[static_cast<size_t>(y)].producer = 0;
  g.nodes.push_back(n);
  g.outputs = {y};
  if (w_also_output) g.outputs.push_back(w);
  return g;
}

std::string matmul_model_bytes(int64_t rows, int64_t w_rows) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("matmul");
  auto* in = g->add_input();
  in->set_name("a");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  if (rows < 0)
    tt->mutable_shape()->add_dim()->set_dim_param("N");
  else
    tt->mutable_shape()->add_dim()->set_dim_value(rows);
  tt->mutable_shape()->add_dim()->set_dim_value(kDepth);
  const Tensor w = ramp({w_rows, kCols}, 0.01f);
  auto* init = g->add_initializer();
  init->set_name("w");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(w_rows);
  init->add_dims(kCols);
  init->set_raw_data(w.raw(), w.nbytes());
  auto* n = g->add_node();
  n->set_op_type("MatMul");
  n->add_input("a");
  n->add_input("w");
  n->add_output("y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

Result<std::unique_ptr<Executable>> compile(Graph g, bool release,
                                            std::shared_ptr<const options::OptionSet> config = {}) {
  CompileOptions co;
  co.num_threads = 1;
  co.release_packed_constants = release;
  // As the session does: the exception dump is the compile's failure hook.
  if (config) co.failure_hook = dump::ExceptionDumper::from_options(*config);
  co.config = openge::test::compile_config(config);
  return compiler::compile(std::move(g), {{kRows, kDepth}}, co);
}

TEST(PackedConstantRelease, AMatmulsPackedWeightsLeaveTheCompiledGraph) {
  auto exe = compile(matmul_graph(kRows), true);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  ASSERT_EQ((*exe)->nodes().size(), 1u);
  ASSERT_EQ((*exe)->nodes()[0].engine, Engine::kAiCore) << "the test needs oneDNN's matmul";
  EXPECT_EQ((*exe)->released_constant_bytes(), static_cast<size_t>(kDepth * kCols * 4));
  const Value& w = (*exe)->graph().values[1];
  ASSERT_TRUE(w.constant.has_value());
  EXPECT_EQ(w.constant->raw(), nullptr);
  EXPECT_EQ(w.constant->shape(), (Shape{kDepth, kCols}));  // the stand-in still says what it was
  const Tensor a = ramp({kRows, kDepth}, 0.5f);
  for (int run = 0; run < 2; ++run) {
    auto y = (*exe)->run({a});
    ASSERT_TRUE(y.ok()) << y.status().message();
    expect_product((*y)[0], a, ramp({kDepth, kCols}, 0.01f));
  }
}

TEST(PackedConstantRelease, KeptWhenNotAskedForOrAnotherReaderNeedsTheData) {
  auto plain = compile(matmul_graph(kRows), false);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ((*plain)->released_constant_bytes(), 0u);
  EXPECT_NE((*plain)->graph().values[1].constant->raw(), nullptr);

  auto output = compile(matmul_graph(kRows, /*w_also_output=*/true), true);
  ASSERT_TRUE(output.ok()) << output.status().message();
  EXPECT_EQ((*output)->released_constant_bytes(), 0u);
  auto y = (*output)->run({ramp({kRows, kDepth}, 0.5f)});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ASSERT_EQ(y->size(), 2u);
  EXPECT_EQ(std::memcmp((*y)[1].raw(), ramp({kDepth, kCols}, 0.01f).raw(), (*y)[1].nbytes()), 0);
}

TEST(PackedConstantRelease, KeptWhenAnExceptionDumpOrTheFinalGraphDumpWritesTheConstants) {
  TempDir d;
  for (const auto& config : {test::options_from({}, d.path(), {{"enable_exception_dump", "1"}}),
                             test::options_from({{"DUMP_GE_GRAPH", "1"}, {"DUMP_GRAPH_PATH", d.path()}}, d.path())}) {
    ASSERT_TRUE(config);
    auto exe = compile(matmul_graph(kRows), true, config);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    EXPECT_EQ((*exe)->released_constant_bytes(), 0u);
  }
}

Result<std::vector<Tensor>> run(Session& s, int64_t rows) { return s.run({ramp({rows, kDepth}, 0.5f)}); }

std::unique_ptr<Session> open_matmul(int64_t rows, const options::test::Flags& flags, const TempDir& d,
                                     int64_t w_rows = kDepth) {
  const std::string bytes = matmul_model_bytes(rows, w_rows);
  SessionOptions so;
  so.num_threads = 1;
  so.config = test::options_from({}, d.path(), flags);
  auto s = Session::open_from_memory(bytes.data(), bytes.size(), so, "matmul.onnx");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s.value()) : nullptr;
}

TEST(PackedConstantRelease, AFixedShapeSessionRunsAgainAndStillRefusesOtherShapes) {
  TempDir d;
  // Capacity 1: the refused shape's attempt must not cost the one compile the session can make.
  auto s = open_matmul(kRows, {{"compiled_shape_cache_size", "1"}}, d);
  ASSERT_TRUE(s);
  const Tensor w = ramp({kDepth, kCols}, 0.01f);
  for (int round = 0; round < 2; ++round) {
    auto y = run(*s, kRows);
    ASSERT_TRUE(y.ok()) << y.status().message();
    expect_product((*y)[0], ramp({kRows, kDepth}, 0.5f), w);
    auto wrong = run(*s, kRows + 1);
    ASSERT_FALSE(wrong.ok());
    EXPECT_NE(wrong.status().message().find("but the model declares"), std::string::npos) << wrong.status().message();
  }
}

TEST(PackedConstantRelease, ASymbolicShapeSessionCompilesEachShapeFromItsWeights) {
  TempDir d;
  auto s = open_matmul(-1, {}, d);
  ASSERT_TRUE(s);
  const Tensor w = ramp({kDepth, kCols}, 0.01f);
  for (int64_t rows : {kRows, int64_t{7}, kRows}) {
    auto y = run(*s, rows);
    ASSERT_TRUE(y.ok()) << y.status().message();
    expect_product((*y)[0], ramp({rows, kDepth}, 0.5f), w);
  }
  EXPECT_EQ(s->compiled_shape_count(), 2u);
}

TEST(PackedConstantRelease, AFixedShapeModelThatFailsToCompileFailsTheSameWayAgain) {
  TempDir d;
  auto s = open_matmul(kRows, {}, d, /*w_rows=*/kDepth + 1);  // inner dimensions disagree
  ASSERT_TRUE(s);
  auto first = run(*s, kRows);
  ASSERT_FALSE(first.ok());
  auto second = run(*s, kRows);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(), first.status().message());
}

}  // namespace
}  // namespace openge
