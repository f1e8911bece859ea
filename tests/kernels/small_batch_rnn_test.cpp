// AI Core RNN / GRU / LSTM for small batches (kernels/small_batch_rnn_kernel.cpp) against the
// reference kernels on random data: every output within 1e-5 absolute (its own sgemm, gemv and
// fast sigmoid/tanh round differently), then which forms it leaves to oneDNN or the reference.
#include "kernels/small_batch_rnn_kernel.h"
#include "ops/op_registry.h"
#include "rnn_test_util.h"

namespace openge::testing {
namespace {

class SmallBatchRnnTest : public ::testing::TestWithParam<RnnCase> {};

TEST_P(SmallBatchRnnTest, MatchesReferenceWithin1e5) {
  const RnnCase k = GetParam();
  RnnInputs in = make_inputs(k);
  // Weights as PyTorch initialises them (uniform in +-1/sqrt(hidden)): with weights in +-1 a
  // hidden state of 64 units is chaotic, and over 50 steps two float summation orders drift
  // apart by 1e-4 whatever the kernel.
  const float scale = 1.0f / std::sqrt(static_cast<float>(k.hidden));
  for (Tensor* t : {&in.w, &in.r, &in.b})
    for (int64_t i = 0; i < t->numel(); ++i) t->data<float>()[i] *= scale;
  Node node = rnn_node(k, in.list.size());
  auto ref = run_node(node, in.list, 14);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  auto kernel = make_small_batch_rnn_kernel(rnn_request(node, in.list, *ref));
  ASSERT_NE(kernel, nullptr) << "the small-batch kernel does not cover this form";
  EXPECT_EQ(kernel->engine(), Engine::kAiCore);
  EXPECT_FALSE(kernel->reads_input_at_run_time(1));  // W and R are its own prepared copies
  std::vector<Tensor> got;
  std::vector<Tensor*> outs;
  for (const Tensor& r : *ref) got.emplace_back(r.dtype(), r.shape());
  for (Tensor& t : got) outs.push_back(&t);
  // Twice: the second run must not see the first one's state.
  for (int run = 0; run < 2; ++run) {
    KernelContext ctx(node, 14, in.list, outs);
    ASSERT_TRUE(kernel->run(ctx).ok());
    for (size_t o = 0; o < got.size(); ++o)
      EXPECT_LE(max_abs_error(got[o], (*ref)[o]), 1e-5) << "output " << o << ", run " << run;
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, SmallBatchRnnTest, ::testing::ValuesIn(forms_without_peepholes()));
// The zoo's sequence tagger, and a hidden size whose gate columns end in a partial panel.
INSTANTIATE_TEST_SUITE_P(Models, SmallBatchRnnTest,
                         ::testing::Values(RnnCase{"GRU", "forward", 50, 1, 192, 64, true, true, false, true},
                                           RnnCase{"GRU", "forward", 20, 1, 40, 48, true, true, false, false},
                                           RnnCase{"LSTM", "bidirectional", 50, 1, 64, 96, true, true, false, false},
                                           RnnCase{"LSTM", "bidirectional", 7, 1, 9, 130, true, true, false, false}));

// Peepholes, a batch above kSmallBatch, clip: not this kernel's; the AI Core table then gives
// oneDNN's kernel where oneDNN computes the form (peepholes, larger batches).
TEST(SmallBatchRnn, LeavesOtherFormsToOneDnnOrTheReference) {
  const RnnCase peephole{"LSTM", "forward", 7, 3, 5, 4, true, true, true, false};
  const RnnCase large_batch{"LSTM", "forward", 6, kSmallBatch + 1, 5, 8, true, true, false, false};
  for (const RnnCase& k : {peephole, large_batch}) {
    RnnInputs in = make_inputs(k);
    Node node = rnn_node(k, in.list.size());
    auto ref = run_node(node, in.list, 14);
    ASSERT_TRUE(ref.ok()) << ref.status().message();
    const KernelRequest req = rnn_request(node, in.list, *ref);
    EXPECT_EQ(make_small_batch_rnn_kernel(req), nullptr);
    auto aicore = make_aicore_kernel(req);
    ASSERT_TRUE(aicore.ok()) << aicore.status().message();
    EXPECT_NE(*aicore, nullptr) << "oneDNN covers this form";
  }
  RnnCase clipped{"GRU", "forward", 4, 1, 3, 5, true, true, false, true};
  RnnInputs in = make_inputs(clipped);
  Node node = rnn_node(clipped, in.list.size());
  set_float(node, "clip", 0.5f);
  auto ref = run_node(node, in.list, 14);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  EXPECT_EQ(make_small_batch_rnn_kernel(rnn_request(node, in.list, *ref)), nullptr);
}

}  // namespace
}  // namespace openge::testing
