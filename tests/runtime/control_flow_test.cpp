// If, Loop, Scan and SequenceMap end to end: real ONNX protobufs built here, loaded, compiled and run by a
// Session. Expected values are worked out by hand in each test's comment.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "base/size_limit.h"
#include "frontend/onnx_loader.h"
#include "openge/session.h"
#include "compiler/pipeline.h"

namespace openge {
namespace {

using Dims = std::vector<int64_t>;

void set_type(onnx::ValueInfoProto* v, const std::string& name, int elem, const Dims& dims) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) d >= 0 ? shape->add_dim()->set_dim_value(d) : void(shape->add_dim()->set_dim_param("n"));
}

void input(onnx::GraphProto* g, const std::string& name, int elem, const Dims& dims) {
  set_type(g->add_input(), name, elem, dims);
}
void output(onnx::GraphProto* g, const std::string& name, int elem, const Dims& dims) {
  set_type(g->add_output(), name, elem, dims);
}

onnx::NodeProto* node(onnx::GraphProto* g, const std::string& op, std::initializer_list<std::string> ins,
                      std::initializer_list<std::string> outs, const std::string& name = "") {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? op + "_" + std::to_string(g->node_size()) : name);
  for (const auto& i : ins) n->add_input(i);
  for (const auto& o : outs) n->add_output(o);
  return n;
}

void graph_attr(onnx::NodeProto* n, const std::string& name, const onnx::GraphProto& body) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body;
}

void ints_attr(onnx::NodeProto* n, const std::string& name, std::initializer_list<int64_t> values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

void int_attr(onnx::NodeProto* n, const std::string& name, int64_t value) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void float_init(onnx::GraphProto* g, const std::string& name, const Dims& dims, std::initializer_list<float> values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
}

void int64_init(onnx::GraphProto* g, const std::string& name, const Dims& dims, std::initializer_list<int64_t> values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
}

onnx::ModelProto model_of(const onnx::GraphProto& g, int64_t opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  *m.mutable_graph() = g;
  return m;
}

Result<std::unique_ptr<Session>> open(const onnx::ModelProto& m) {
  const std::string bytes = m.SerializeAsString();
  return Session::open_from_memory(bytes.data(), bytes.size(), {}, "cf.onnx");
}

Result<std::vector<Tensor>> run(const onnx::ModelProto& m, const std::vector<Tensor>& inputs) {
  auto s = open(m);
  if (!s.ok()) return s.status();
  return (*s)->run(inputs);
}

Tensor floats(const Dims& shape, std::initializer_list<float> values) {
  Tensor t(DType::kFloat32, shape);
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}
Tensor boolean(bool b) {
  Tensor t(DType::kBool, {});
  *t.data<bool>() = b;
  return t;
}
Tensor int64(int64_t v) {
  Tensor t(DType::kInt64, {});
  *t.data<int64_t>() = v;
  return t;
}

void expect_floats(const Tensor& t, const Dims& shape, std::vector<float> values) {
  ASSERT_EQ(t.dtype(), DType::kFloat32);
  ASSERT_EQ(t.shape(), shape);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_FLOAT_EQ(t.data<float>()[i], values[i]) << "element " << i;
}

void expect_error(const Status& s, std::initializer_list<std::string> fragments) {
  ASSERT_FALSE(s.ok());
  for (const auto& f : fragments) EXPECT_NE(s.message().find(f), std::string::npos) << s.message();
}

// y = If(c) { then: (x + 1) * 2 } else { -x }. `x + 1` is computed in the main graph and read
// only inside then_branch: dead-node removal must keep it.
onnx::ModelProto if_model() {
  onnx::GraphProto g;
  input(&g, "c", onnx::TensorProto::BOOL, {});
  input(&g, "x", onnx::TensorProto::FLOAT, {3});
  float_init(&g, "one", {}, {1.0f});
  node(&g, "Add", {"x", "one"}, {"x1"}, "add_outer");
  onnx::GraphProto then_g, else_g;
  then_g.set_name("then");
  float_init(&then_g, "two", {}, {2.0f});
  node(&then_g, "Mul", {"x1", "two"}, {"t"});
  output(&then_g, "t", onnx::TensorProto::FLOAT, {3});
  else_g.set_name("else");
  node(&else_g, "Neg", {"x"}, {"e"});
  output(&else_g, "e", onnx::TensorProto::FLOAT, {3});
  auto* n = node(&g, "If", {"c"}, {"y"}, "if1");
  graph_attr(n, "then_branch", then_g);
  graph_attr(n, "else_branch", else_g);
  output(&g, "y", onnx::TensorProto::FLOAT, {3});
  return model_of(g);
}

TEST(ControlFlow, IfRunsTheChosenBranchWithOuterScopeValues) {
  const Tensor x = floats({3}, {1, -2, 3});
  auto t = run(if_model(), {boolean(true), x});
  ASSERT_TRUE(t.ok()) << t.status().message();
  expect_floats((*t)[0], {3}, {4, -2, 8});  // (x + 1) * 2
  auto e = run(if_model(), {boolean(false), x});
  ASSERT_TRUE(e.ok()) << e.status().message();
  expect_floats((*e)[0], {3}, {-1, 2, -3});
}

TEST(ControlFlow, LoaderMakesOuterScopeReadsExplicitInputs) {
  const std::string bytes = if_model().SerializeAsString();
  auto g = load_onnx_from_bytes(bytes.data(), bytes.size(), "cf.onnx");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Node& if_node = g->nodes.back();
  ASSERT_EQ(if_node.op_type, "If");
  // cond, then the union of what the branches read, in first-use order: x1 (then), x (else).
  ASSERT_EQ(if_node.inputs.size(), 3u);
  EXPECT_EQ(g->values[if_node.inputs[1]].name, "x1");
  EXPECT_EQ(g->values[if_node.inputs[2]].name, "x");
  for (const char* branch : {"then_branch", "else_branch"}) {
    const Attribute* a = if_node.attrs.find(branch);
    ASSERT_TRUE(a && a->kind == Attribute::Kind::kGraph && a->graph) << branch;
    EXPECT_EQ(a->graph->captured_inputs, 2u) << branch;
    EXPECT_EQ(a->graph->inputs.size(), 2u) << branch;
  }
}

// Loop body: (iter, cond, s) -> (iter < 2, s + w, (s + w) * iter); w = [1, 2] from the outer scope.
onnx::ModelProto loop_model(bool with_cond_input, bool with_trip_count) {
  onnx::GraphProto g;
  if (with_trip_count) input(&g, "M", onnx::TensorProto::INT64, {});
  input(&g, "s0", onnx::TensorProto::FLOAT, {2});
  float_init(&g, "w", {2}, {1.0f, 2.0f});
  int64_init(&g, "two", {}, {2});
  auto* c = g.add_initializer();
  c->set_name("keep");
  c->set_data_type(onnx::TensorProto::BOOL);
  c->add_int32_data(1);
  onnx::GraphProto body;
  body.set_name("body");
  input(&body, "i", onnx::TensorProto::INT64, {});
  input(&body, "c_in", onnx::TensorProto::BOOL, {});
  input(&body, "s", onnx::TensorProto::FLOAT, {2});
  node(&body, "Less", {"i", "two"}, {"c_out"});
  node(&body, "Add", {"s", "w"}, {"s_out"});
  auto* cast = node(&body, "Cast", {"i"}, {"fi"});
  int_attr(cast, "to", onnx::TensorProto::FLOAT);
  node(&body, "Mul", {"s_out", "fi"}, {"scan"});
  output(&body, "c_out", onnx::TensorProto::BOOL, {});
  output(&body, "s_out", onnx::TensorProto::FLOAT, {2});
  output(&body, "scan", onnx::TensorProto::FLOAT, {2});
  auto* n = node(&g, "Loop", {with_trip_count ? "M" : "", with_cond_input ? "keep" : "", "s0"}, {"s_final", "scans"},
                 "loop1");
  graph_attr(n, "body", body);
  output(&g, "s_final", onnx::TensorProto::FLOAT, {2});
  output(&g, "scans", onnx::TensorProto::FLOAT, {-1, 2});
  return model_of(g);
}

TEST(ControlFlow, LoopRunsMIterationsWhenTheConditionIsNotAnInput) {
  // No cond input: the body's cond is ignored, M = 4 iterations. s = [0,0] + 4 w = [4, 8];
  // scan row i = (i + 1) w * i: [0,0], [2,4], [6,12], [12,24].
  auto r = run(loop_model(false, true), {int64(4), floats({2}, {0, 0})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  expect_floats((*r)[0], {2}, {4, 8});
  expect_floats((*r)[1], {4, 2}, {0, 0, 2, 4, 6, 12, 12, 24});
}

TEST(ControlFlow, LoopStopsWhenTheBodysConditionTurnsFalse) {
  // cond input true, M = 10: iterations 0, 1, 2 run (the body says 2 < 2 = false after the third).
  // s = [10, 10] + 3 w = [13, 16]; scan rows (s_i) * i: [0,0], [12,14]*1, [13,16]*2.
  auto r = run(loop_model(true, true), {int64(10), floats({2}, {10, 10})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  expect_floats((*r)[0], {2}, {13, 16});
  expect_floats((*r)[1], {3, 2}, {0, 0, 12, 14, 26, 32});
  // Without a trip count the condition alone ends it, after the same three iterations.
  auto unbounded = run(loop_model(true, false), {floats({2}, {10, 10})});
  ASSERT_TRUE(unbounded.ok()) << unbounded.status().message();
  expect_floats((*unbounded)[0], {2}, {13, 16});
}

TEST(ControlFlow, LoopOfZeroIterationsReturnsTheInitialStateAndEmptyScans) {
  auto r = run(loop_model(false, true), {int64(0), floats({2}, {5, 6})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  expect_floats((*r)[0], {2}, {5, 6});
  EXPECT_EQ((*r)[1].shape(), (Dims{0, 2}));  // the body declares the scan output [2]
}

TEST(ControlFlow, ScanOutputsGrowingPastTheSizeLimitStopWithAnErrorNamingTheNode) {
  // 8 bytes per iteration, a 1 KiB limit: the stacked scan output passes it at iteration 129.
  // (A Session sets its own limit from its options; the executor is used directly here.)
  const std::string bytes = loop_model(false, true).SerializeAsString();
  auto g = load_onnx_from_bytes(bytes.data(), bytes.size(), "cf.onnx");
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto exe = compiler::compile(std::move(g.value()), {{}, {2}}, CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  ScopedMaxTensorBytes limit(1024);
  auto r = (*exe)->run({int64(int64_t{1} << 40), floats({2}, {0, 0})});
  ASSERT_FALSE(r.ok());
  expect_error(r.status(), {"Loop 'loop1'", "scan output 0", "[129,2]"});
}

// Scan (opset 11) of x [2, 3] along axis 1 in reverse, state s [2] += column, scan output the
// running sum stacked along axis 1. x = [[1,2,3],[4,5,6]]: columns visited 3, 2, 1 (and 6, 5, 4);
// sums [3,6], [5,11], [6,15]; outputs stacked on axis 1 in iteration order.
onnx::ModelProto scan_model(int64_t output_direction) {
  onnx::GraphProto g;
  input(&g, "s0", onnx::TensorProto::FLOAT, {2});
  input(&g, "x", onnx::TensorProto::FLOAT, {2, 3});
  onnx::GraphProto body;
  body.set_name("body");
  input(&body, "s", onnx::TensorProto::FLOAT, {2});
  input(&body, "col", onnx::TensorProto::FLOAT, {2});
  node(&body, "Add", {"s", "col"}, {"s_out"});
  node(&body, "Identity", {"s_out"}, {"y"});
  output(&body, "s_out", onnx::TensorProto::FLOAT, {2});
  output(&body, "y", onnx::TensorProto::FLOAT, {2});
  auto* n = node(&g, "Scan", {"s0", "x"}, {"s_final", "ys"}, "scan1");
  graph_attr(n, "body", body);
  int_attr(n, "num_scan_inputs", 1);
  ints_attr(n, "scan_input_axes", {1});
  ints_attr(n, "scan_input_directions", {1});
  ints_attr(n, "scan_output_axes", {-1});
  ints_attr(n, "scan_output_directions", {output_direction});
  output(&g, "s_final", onnx::TensorProto::FLOAT, {2});
  output(&g, "ys", onnx::TensorProto::FLOAT, {2, 3});
  return model_of(g, 11);
}

TEST(ControlFlow, ScanWalksItsAxisInTheGivenDirectionAndStacksOutputs) {
  const Tensor x = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run(scan_model(0), {floats({2}, {0, 0}), x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  expect_floats((*r)[0], {2}, {6, 15});
  expect_floats((*r)[1], {2, 3}, {3, 5, 6, 6, 11, 15});
  // A reverse scan output is filled from the end: the first iteration's sum is the last column.
  auto rev = run(scan_model(1), {floats({2}, {0, 0}), x});
  ASSERT_TRUE(rev.ok()) << rev.status().message();
  expect_floats((*rev)[1], {2, 3}, {6, 5, 3, 15, 11, 6});
}

// If nested in a Loop body, reading a value of the main graph two scopes up.
TEST(ControlFlow, NestedSubgraphsReadValuesTwoScopesUp) {
  onnx::GraphProto g;
  input(&g, "M", onnx::TensorProto::INT64, {});
  input(&g, "bias", onnx::TensorProto::FLOAT, {1});
  input(&g, "s0", onnx::TensorProto::FLOAT, {1});
  int64_init(&g, "one", {}, {1});
  onnx::GraphProto then_g, else_g, body;
  then_g.set_name("then");
  node(&then_g, "Add", {"s", "bias"}, {"t"});  // s: the body's input; bias: the main graph's
  output(&then_g, "t", onnx::TensorProto::FLOAT, {1});
  else_g.set_name("else");
  node(&else_g, "Sub", {"s", "bias"}, {"e"});
  output(&else_g, "e", onnx::TensorProto::FLOAT, {1});
  body.set_name("body");
  input(&body, "i", onnx::TensorProto::INT64, {});
  input(&body, "c", onnx::TensorProto::BOOL, {});
  input(&body, "s", onnx::TensorProto::FLOAT, {1});
  node(&body, "Less", {"i", "one"}, {"first"});
  auto* inner = node(&body, "If", {"first"}, {"s_out"}, "inner_if");
  graph_attr(inner, "then_branch", then_g);
  graph_attr(inner, "else_branch", else_g);
  node(&body, "Identity", {"c"}, {"c_out"});
  output(&body, "c_out", onnx::TensorProto::BOOL, {});
  output(&body, "s_out", onnx::TensorProto::FLOAT, {1});
  auto* loop = node(&g, "Loop", {"M", "", "s0"}, {"s_final"}, "outer_loop");
  graph_attr(loop, "body", body);
  output(&g, "s_final", onnx::TensorProto::FLOAT, {1});
  // 3 iterations from 100 with bias 10: +10, -10, -10 = 90.
  auto r = run(model_of(g), {int64(3), floats({1}, {10}), floats({1}, {100})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  expect_floats((*r)[0], {1}, {90});
}

// ---- hostile subgraphs: errors naming the node, never a crash

TEST(ControlFlow, SubgraphReadingAnUndefinedNameIsAnErrorNamingTheNode) {
  onnx::ModelProto m = if_model();
  auto* then_g = m.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g();
  then_g->mutable_node(0)->set_input(0, "nowhere");
  auto s = open(m);
  ASSERT_FALSE(s.ok());
  expect_error(s.status(), {"If 'if1'", "then_branch", "'nowhere'", "enclosing graph"});
}

TEST(ControlFlow, CycleInsideASubgraphIsAnErrorNamingTheNode) {
  onnx::ModelProto m = if_model();
  auto* then_g = m.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g();
  then_g->mutable_node(0)->set_input(0, "t");  // Mul reads its own output
  auto s = open(m);
  ASSERT_FALSE(s.ok());
  expect_error(s.status(), {"If 'if1'", "then_branch", "cycle"});
}

TEST(ControlFlow, BranchReadingItsOwnNodesOutputIsACycle) {
  onnx::ModelProto m = if_model();
  auto* then_g = m.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g();
  then_g->mutable_node(0)->set_input(0, "y");  // the If's own output, from inside its branch
  auto s = open(m);
  ASSERT_FALSE(s.ok());
  expect_error(s.status(), {"cycle"});
}

TEST(ControlFlow, SubgraphsNestedTooDeepAreRefused) {
  onnx::GraphProto inner;
  inner.set_name("leaf");
  node(&inner, "Identity", {"x"}, {"y0"});
  output(&inner, "y0", onnx::TensorProto::FLOAT, {1});
  // Only then_branch nests: with both branches nesting, the model would hold 2^20 leaf graphs
  // (minutes and gigabytes just to build it); one chain reaches the same depth.
  const onnx::GraphProto leaf = inner;
  for (int depth = 1; depth <= 20; ++depth) {
    onnx::GraphProto outer;
    outer.set_name("level" + std::to_string(depth));
    auto* n = node(&outer, "If", {"c"}, {"y" + std::to_string(depth)}, "if_level" + std::to_string(depth));
    graph_attr(n, "then_branch", inner);
    graph_attr(n, "else_branch", leaf);
    output(&outer, "y" + std::to_string(depth), onnx::TensorProto::FLOAT, {1});
    inner = outer;
  }
  onnx::GraphProto g = inner;
  g.set_name("main");
  input(&g, "c", onnx::TensorProto::BOOL, {});
  input(&g, "x", onnx::TensorProto::FLOAT, {1});
  auto s = open(model_of(g));
  ASSERT_FALSE(s.ok());
  expect_error(s.status(), {"nested more than 16 deep"});
}

TEST(ControlFlow, BranchesWithDifferentOutputCountsAreAnErrorNamingTheNode) {
  onnx::ModelProto m = if_model();
  auto* else_g = m.mutable_graph()->mutable_node(1)->mutable_attribute(1)->mutable_g();
  output(else_g, "x", onnx::TensorProto::FLOAT, {3});
  auto r = run(m, {boolean(true), floats({3}, {1, 2, 3})});  // compiled at the first run
  ASSERT_FALSE(r.ok());
  expect_error(r.status(), {"If 'if1'", "else_branch gives 2"});
}

TEST(ControlFlow, ConditionWithSeveralElementsIsAnErrorNamingTheNode) {
  onnx::ModelProto m = if_model();
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(
      2);
  Tensor c(DType::kBool, {2});
  auto r = run(m, {c, floats({3}, {1, 2, 3})});
  ASSERT_FALSE(r.ok());
  expect_error(r.status(), {"If 'if1'", "one element"});
}

// ys, shapes = SequenceMap(xs, b, zs) { (x, b, z) -> (x + b + z, Shape(x)) }: xs and zs are
// sequences (one element per iteration), b a tensor given whole to every iteration.
onnx::ModelProto sequence_map_model() {
  onnx::GraphProto g;
  auto sequence_input = [&](const std::string& name) {
    auto* v = g.add_input();
    v->set_name(name);
    v->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto::FLOAT);
  };
  sequence_input("xs");
  input(&g, "b", onnx::TensorProto::FLOAT, {1});
  sequence_input("zs");
  onnx::GraphProto body;
  body.set_name("body");
  input(&body, "x", onnx::TensorProto::FLOAT, {-1});
  input(&body, "bb", onnx::TensorProto::FLOAT, {1});
  input(&body, "z", onnx::TensorProto::FLOAT, {-1});
  node(&body, "Add", {"x", "bb"}, {"xb"});
  node(&body, "Add", {"xb", "z"}, {"y"});
  node(&body, "Shape", {"x"}, {"shape"});
  output(&body, "y", onnx::TensorProto::FLOAT, {-1});
  output(&body, "shape", onnx::TensorProto::INT64, {1});
  auto* n = node(&g, "SequenceMap", {"xs", "b", "zs"}, {"ys", "shapes"}, "map1");
  graph_attr(n, "body", body);
  for (const char* name : {"ys", "shapes"}) {
    auto* v = g.add_output();
    v->set_name(name);
    v->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        name[0] == 'y' ? onnx::TensorProto::FLOAT : onnx::TensorProto::INT64);
  }
  return model_of(g, 17);
}

TEST(ControlFlow, SequenceMapRunsItsBodyOncePerElement) {
  const Tensor xs = Tensor::sequence(DType::kFloat32, {floats({2}, {1, 2}), floats({3}, {3, 4, 5})});
  const Tensor zs = Tensor::sequence(DType::kFloat32, {floats({2}, {100, 200}), floats({3}, {0, 0, 1})});
  auto r = run(sequence_map_model(), {xs, floats({1}, {10}), zs});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ((*r)[0].kind(), ValueKind::kSequence);
  ASSERT_EQ((*r)[0].elements().size(), 2u);
  expect_floats((*r)[0].elements()[0], {2}, {111, 212});
  expect_floats((*r)[0].elements()[1], {3}, {13, 14, 16});
  ASSERT_EQ((*r)[1].elements().size(), 2u);
  EXPECT_EQ((*r)[1].elements()[0].to_int64_vector(), std::vector<int64_t>{2});
  EXPECT_EQ((*r)[1].elements()[1].to_int64_vector(), std::vector<int64_t>{3});
  // An empty input sequence maps to empty output sequences.
  const Tensor none = Tensor::sequence(DType::kFloat32, {});
  auto e = run(sequence_map_model(), {none, floats({1}, {10}), none});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_TRUE((*e)[0].elements().empty());
  EXPECT_TRUE((*e)[1].elements().empty());
}

TEST(ControlFlow, SequenceMapWithSequencesOfDifferentLengthsIsAnErrorNamingTheNode) {
  const Tensor xs = Tensor::sequence(DType::kFloat32, {floats({1}, {1}), floats({1}, {2})});
  const Tensor zs = Tensor::sequence(DType::kFloat32, {floats({1}, {1})});
  auto r = run(sequence_map_model(), {xs, floats({1}, {10}), zs});
  ASSERT_FALSE(r.ok());
  expect_error(r.status(), {"SequenceMap 'map1'", "sequence of 1 tensors, input 0 of 2"});
}

}  // namespace
}  // namespace openge
