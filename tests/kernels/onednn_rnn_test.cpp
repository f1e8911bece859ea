// AI Core RNN / GRU / LSTM (oneDNN RNN primitives) against the reference kernels on random data:
// every output within 1e-5 absolute (hidden and cell states of a few units; oneDNN has its own
// GEMM and sigmoid/tanh). Forms oneDNN's cells do not compute stay on the reference kernel.
#include "kernel_test_util.h"
#include "ops/op_registry.h"
#include "../ops/op_test_util.h"

namespace openge::testing {
namespace {

struct RnnCase {
  std::string op;
  std::string direction;
  int64_t seq, batch, input, hidden;
  bool bias, initial_state, peephole, linear_before_reset;
};
void PrintTo(const RnnCase& k, std::ostream* os) {
  *os << k.op << " " << k.direction << " T" << k.seq << " N" << k.batch << " C" << k.input << " H" << k.hidden
      << (k.bias ? " bias" : "") << (k.initial_state ? " init" : "") << (k.peephole ? " peephole" : "")
      << (k.linear_before_reset ? " lbr" : "");
}

int gates(const std::string& op) { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }

// Inputs in ONNX order (X, W, R, B, sequence_lens, initial_h, initial_c, P); nullptr = omitted.
struct RnnInputs {
  Tensor x, w, r, b, h0, c0, p;
  std::vector<const Tensor*> list;
};
RnnInputs make_inputs(const RnnCase& k) {
  const int64_t g = gates(k.op), d = k.direction == "bidirectional" ? 2 : 1;
  RnnInputs in{random_tensor({k.seq, k.batch, k.input}, 1), random_tensor({d, g * k.hidden, k.input}, 2),
               random_tensor({d, g * k.hidden, k.hidden}, 3), random_tensor({d, 2 * g * k.hidden}, 4),
               random_tensor({d, k.batch, k.hidden}, 5), random_tensor({d, k.batch, k.hidden}, 6),
               random_tensor({d, 3 * k.hidden}, 7), {}};
  const bool lstm = k.op == "LSTM";
  in.list = {&in.x, &in.w, &in.r, k.bias ? &in.b : nullptr, nullptr, k.initial_state ? &in.h0 : nullptr};
  if (lstm) in.list.insert(in.list.end(), {k.initial_state ? &in.c0 : nullptr, k.peephole ? &in.p : nullptr});
  while (!in.list.empty() && !in.list.back()) in.list.pop_back();
  return in;
}

Node rnn_node(const RnnCase& k, size_t inputs) {
  Node node = make_node(k.op, inputs, k.op == "LSTM" ? 3 : 2);
  set_int(node, "hidden_size", k.hidden);
  set_string(node, "direction", k.direction);
  if (k.op == "GRU") set_int(node, "linear_before_reset", k.linear_before_reset ? 1 : 0);
  return node;
}

// The AI Core kernel for `node`, or nullptr: constants are W, R, B and P, as in a model.
std::unique_ptr<CompiledKernel> rnn_kernel(const Node& node, const std::vector<const Tensor*>& in,
                                           const std::vector<Tensor>& outputs) {
  KernelRequest req{node, 14, {}, {}};
  for (size_t i = 0; i < in.size(); ++i) req.inputs.push_back(info_of(in[i], i == 1 || i == 2 || i == 3 || i == 7));
  for (const Tensor& o : outputs) req.outputs.push_back(ValueInfo{o.dtype(), true, o.shape(), nullptr});
  auto k = make_aicore_kernel(req);
  EXPECT_TRUE(k.ok()) << k.status().message();
  return k.ok() ? std::move(*k) : nullptr;
}

class OneDnnRnnTest : public ::testing::TestWithParam<RnnCase> {};

TEST_P(OneDnnRnnTest, RnnPrimitiveMatchesReferenceWithin1e5) {
  const RnnCase k = GetParam();
  RnnInputs in = make_inputs(k);
  Node node = rnn_node(k, in.list.size());
  auto ref = run_node(node, in.list, 14);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  auto kernel = rnn_kernel(node, in.list, *ref);
  ASSERT_NE(kernel, nullptr) << "no oneDNN RNN primitive for this form";
  EXPECT_EQ(kernel->engine(), Engine::kAiCore);
  std::vector<Tensor> got;
  std::vector<Tensor*> outs;
  for (const Tensor& r : *ref) got.emplace_back(r.dtype(), r.shape());
  for (Tensor& t : got) outs.push_back(&t);
  KernelContext ctx(node, 14, in.list, outs);
  ASSERT_TRUE(kernel->run(ctx).ok());
  for (size_t o = 0; o < got.size(); ++o) {
    double worst = 0;
    for (int64_t i = 0; i < got[o].numel(); ++i)
      worst = std::max(worst, std::abs(got[o].data<float>()[i] - static_cast<double>((*ref)[o].data<float>()[i])));
    EXPECT_LE(worst, 1e-5) << "output " << o;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Forms, OneDnnRnnTest,
    ::testing::Values(RnnCase{"RNN", "forward", 5, 3, 4, 6, true, true, false, false},
                      RnnCase{"RNN", "reverse", 4, 2, 5, 3, false, false, false, false},
                      RnnCase{"GRU", "forward", 6, 2, 4, 5, true, true, false, false},
                      RnnCase{"GRU", "reverse", 6, 2, 4, 5, true, false, false, true},
                      RnnCase{"GRU", "forward", 3, 1, 3, 7, false, true, false, true},
                      RnnCase{"LSTM", "forward", 7, 3, 5, 4, true, true, true, false},
                      RnnCase{"LSTM", "reverse", 5, 2, 6, 8, true, false, false, false},
                      RnnCase{"LSTM", "forward", 16, 4, 32, 32, true, true, false, false},
                      RnnCase{"RNN", "bidirectional", 4, 3, 5, 6, true, true, false, false},
                      RnnCase{"GRU", "bidirectional", 5, 2, 4, 3, true, true, false, true},
                      RnnCase{"GRU", "bidirectional", 3, 2, 4, 5, false, false, false, false},
                      RnnCase{"LSTM", "bidirectional", 6, 2, 5, 4, true, true, true, false},
                      RnnCase{"LSTM", "bidirectional", 5, 3, 4, 7, true, false, false, false}));

// A non-default activation, clip, sequence_lens: the reference kernel runs them.
TEST(OneDnnRnn, FormsOutsideOneDnnCellsStayOnTheReferenceKernel) {
  const RnnCase base{"LSTM", "forward", 4, 2, 3, 5, true, true, false, false};
  for (int variant = 1; variant < 4; ++variant) {
    RnnCase k = base;
    RnnInputs in = make_inputs(k);
    Node node = rnn_node(k, in.list.size());
    if (variant == 1) {
      Attribute a;
      a.kind = Attribute::Kind::kStrings;
      a.strings = {"Sigmoid", "Relu", "Tanh"};
      node.attrs.set("activations", a);
    }
    if (variant == 2) set_float(node, "clip", 0.5f);
    Tensor lens(DType::kInt32, {k.batch});
    for (int64_t b = 0; b < k.batch; ++b) lens.data<int32_t>()[b] = static_cast<int32_t>(k.seq);
    if (variant == 3) in.list[4] = &lens;
    auto ref = run_node(node, in.list, 14);
    ASSERT_TRUE(ref.ok()) << ref.status().message();
    EXPECT_EQ(rnn_kernel(node, in.list, *ref), nullptr) << "variant " << variant;
  }
}

}  // namespace
}  // namespace openge::testing
