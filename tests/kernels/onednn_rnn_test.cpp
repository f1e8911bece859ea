// AI Core RNN / GRU / LSTM (oneDNN RNN primitives) against the reference kernels on random data:
// every output within 1e-5 absolute (hidden and cell states of a few units; oneDNN has its own
// GEMM and sigmoid/tanh). Forms oneDNN's cells do not compute stay on the reference kernel.
#include "kernels/onednn_rnn.h"
#include "ops/op_registry.h"
#include "rnn_test_util.h"

namespace openge::testing {
namespace {

// oneDNN's kernel for `node` (small batches get kernels/small_batch_rnn_kernel.h from the AI Core
// table, so the primitives are asked for directly), or nullptr: constants are W, R, B and P.
std::unique_ptr<CompiledKernel> rnn_kernel(const Node& node, const std::vector<const Tensor*>& in,
                                           const std::vector<Tensor>& outputs) {
  auto k = onednn::make_rnn_kernel(rnn_request(node, in, outputs));
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
  for (size_t o = 0; o < got.size(); ++o) EXPECT_LE(max_abs_error(got[o], (*ref)[o]), 1e-5) << "output " << o;
  // As a run state runs it: the argument list made once, then a run on another sequence and
  // initial state through it (the weights stay the kernel's).
  RnnInputs other = make_inputs(k);
  other.x = random_tensor(other.x.shape(), 11);
  other.h0 = random_tensor(other.h0.shape(), 12);
  other.c0 = random_tensor(other.c0.shape(), 13);
  auto ref2 = run_node(node, other.list, 14);
  ASSERT_TRUE(ref2.ok()) << ref2.status().message();
  const auto runs = run_kernel_on_one_state(*kernel, node, {in.list, other.list}, *ref, 14);
  for (size_t o = 0; o < got.size(); ++o) {
    EXPECT_LE(max_abs_error(runs[0][o], (*ref)[o]), 1e-5) << "output " << o << ", first run on one state";
    EXPECT_LE(max_abs_error(runs[1][o], (*ref2)[o]), 1e-5) << "output " << o << ", second run on one state";
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, OneDnnRnnTest, ::testing::ValuesIn(forms_without_peepholes()));
INSTANTIATE_TEST_SUITE_P(Peepholes, OneDnnRnnTest,
                         ::testing::Values(RnnCase{"LSTM", "forward", 7, 3, 5, 4, true, true, true, false},
                                           RnnCase{"LSTM", "bidirectional", 6, 2, 5, 4, true, true, true, false}));

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
