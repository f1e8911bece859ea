// Constant folding and random ops (OpSchema::fold_only_when_seeded): an unseeded RandomUniform /
// RandomNormal has no inputs, so it looks foldable, but folding would freeze one draw into the
// compiled graph and every run would return it. Unseeded: the node runs each time and two runs
// differ. Seeded: the values are fixed by the seed, the node is folded and runs agree.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>

#include "openge/session.h"

namespace openge {
namespace {

// y = op(shape=[256]) (RandomUniform / RandomNormal), or op(x) for the *Like ops with x a
// constant initializer; `seed` < 0: no seed attribute.
std::string random_model(const std::string& op_type, float seed) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("random");
  auto* n = g->add_node();
  n->set_op_type(op_type);
  n->set_name("draw");
  if (op_type.ends_with("Like")) {
    auto* x = g->add_initializer();
    x->set_name("x");
    x->set_data_type(onnx::TensorProto::FLOAT);
    x->add_dims(256);
    for (int i = 0; i < 256; ++i) x->add_float_data(0.0f);
    n->add_input("x");
  } else {
    auto* shape = n->add_attribute();
    shape->set_name("shape");
    shape->set_type(onnx::AttributeProto::INTS);
    shape->add_ints(256);
  }
  if (seed >= 0) {
    auto* s = n->add_attribute();
    s->set_name("seed");
    s->set_type(onnx::AttributeProto::FLOAT);
    s->set_f(seed);
  }
  n->add_output("y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

struct TwoRuns {
  Tensor first, second;
  int nodes_run = 0;  // nodes left in the compiled graph (0: folded to a constant)
};

TwoRuns run_twice(const std::string& op_type, float seed) {
  const std::string bytes = random_model(op_type, seed);
  SessionOptions so;
  so.num_threads = 1;
  auto session = Session::open_from_memory(bytes.data(), bytes.size(), so, op_type);
  EXPECT_TRUE(session.ok()) << session.status().message();
  TwoRuns r;
  if (!session.ok()) return r;
  RunInfo info;
  auto a = session.value()->run({}, &info);
  auto b = session.value()->run({});
  EXPECT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.status().message() : a.status().message());
  if (!a.ok() || !b.ok()) return r;
  r.first = (*a)[0];
  r.second = (*b)[0];
  r.nodes_run = info.aicore_nodes + info.aicpu_nodes;
  return r;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

class RandomFold : public ::testing::TestWithParam<const char*> {};

TEST_P(RandomFold, UnseededDrawsAreNotFoldedAndDifferPerRun) {
  const TwoRuns r = run_twice(GetParam(), -1);
  ASSERT_TRUE(r.first.defined() && r.second.defined());
  EXPECT_EQ(r.nodes_run, 1) << "an unseeded random node was folded into a constant";
  EXPECT_FALSE(same_bits(r.first, r.second)) << "two runs drew the same 256 values";
}

TEST_P(RandomFold, SeededDrawsAreFoldedAndRepeat) {
  const TwoRuns r = run_twice(GetParam(), 7);
  ASSERT_TRUE(r.first.defined() && r.second.defined());
  EXPECT_EQ(r.nodes_run, 0);
  EXPECT_TRUE(same_bits(r.first, r.second));
}

INSTANTIATE_TEST_SUITE_P(Ops, RandomFold,
                         ::testing::Values("RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike"));

}  // namespace
}  // namespace openge
