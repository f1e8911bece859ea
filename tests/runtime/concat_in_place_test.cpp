// Concat in place (Executable::place_concat_inputs): a Concat over contiguous
// slices whose inputs only it reads has them written straight into its output and does not run;
// the result is the concatenation computed by hand, the arena is smaller by the inputs' bytes, and
// inputs that something else also reads, or slices that are not contiguous, keep the copy.
#include <gtest/gtest.h>

#include <cmath>

#include "../passes/pass_test_util.h"
#include "compiler/pipeline.h"

namespace openge {
namespace {

constexpr int64_t kRows = 4, kCols = 256;

Node concat(int64_t axis) {
  Node n;
  n.op_type = "Concat";
  n.name = "concat";
  n.attrs = testing::int_attr("axis", axis);
  return n;
}

// Tanh(Concat(Relu(x), Sigmoid(x))) along `axis`; with `extra_reader`, Relu(x) is also an output.
Graph concat_graph(int64_t axis, bool extra_reader) {
  testing::GraphBuilder b(17);
  b.g.source = "concat_in_place_test";
  const int x = b.input("x", {kRows, kCols});
  const int relu = b.node("Relu", {x});
  const int sigmoid = b.node("Sigmoid", {x});
  const int joined = b.node(concat(axis), {relu, sigmoid});
  b.g.outputs = {b.node("Tanh", {joined})};
  if (extra_reader) b.g.outputs.push_back(relu);
  return std::move(b.g);
}

std::unique_ptr<Executable> compile(Graph g) {
  CompileOptions co;
  co.num_threads = 1;
  co.use_aicore = false;
  co.run_passes = false;
  auto exe = compiler::compile(std::move(g), {{kRows, kCols}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  return exe.ok() ? std::move(exe.value()) : nullptr;
}

size_t concat_node(const Executable& exe) {
  for (size_t s = 0; s < exe.nodes().size(); ++s)
    if (exe.nodes()[s].node.op_type == "Concat") return s;
  return SIZE_MAX;
}

Tensor input() {
  Tensor t(DType::kFloat32, {kRows, kCols});
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>((i * 37) % 101 - 50) / 10.0f;
  return t;
}

// The expected output, by hand.
float expected(const Tensor& x, int64_t axis, int64_t row, int64_t col) {
  // axis 0: rows [0, kRows) from Relu, [kRows, 2 kRows) from Sigmoid; axis 1 the same by columns.
  const bool first = axis == 0 ? row < kRows : col < kCols;
  const float v = x.data<float>()[(axis == 0 ? row % kRows : row) * kCols + (axis == 1 ? col % kCols : col)];
  return std::tanh(first ? std::max(v, 0.0f) : 1.0f / (1.0f + std::exp(-v)));
}

void expect_concatenation(const Executable& exe, int64_t axis) {
  const Tensor x = input();
  for (int run = 0; run < 2; ++run) {  // the second run reuses the run state
    auto out = exe.run({x});
    ASSERT_TRUE(out.ok()) << out.status().message();
    const Tensor& y = (*out)[0];
    const int64_t rows = axis == 0 ? 2 * kRows : kRows, cols = axis == 1 ? 2 * kCols : kCols;
    ASSERT_EQ(y.shape(), (Shape{rows, cols}));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        ASSERT_NEAR(y.data<float>()[r * cols + c], expected(x, axis, r, c), 1e-6) << r << "," << c;
  }
}

TEST(ConcatInPlace, ContiguousSlicesAreWrittenInPlaceAndTheConcatDoesNotRun) {
  auto in_place = compile(concat_graph(0, false));
  auto copied = compile(concat_graph(0, true));
  ASSERT_TRUE(in_place && copied);
  EXPECT_TRUE(in_place->concat_in_place(concat_node(*in_place)));
  EXPECT_FALSE(copied->concat_in_place(concat_node(*copied))) << "Relu's output is also a graph output";
  expect_concatenation(*in_place, 0);
  expect_concatenation(*copied, 0);
  // Each input is 4 KiB: in place, the inputs take no bytes of their own (the copying graph
  // needs Relu's output outside the concat, alive until the run ends).
  EXPECT_LT(in_place->arena_bytes(), copied->arena_bytes());
}

TEST(ConcatInPlace, StridedSlicesKeepTheCopy) {
  auto exe = compile(concat_graph(1, false));  // axis 1 of [4, 256]: rows interleave
  ASSERT_TRUE(exe);
  EXPECT_FALSE(exe->concat_in_place(concat_node(*exe)));
  expect_concatenation(*exe, 1);
}

}  // namespace
}  // namespace openge
