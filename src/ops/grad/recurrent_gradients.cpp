// Gradient rules of LSTM, GRU and RNN: one backward op per node (LSTMGrad, GRUGrad, RNNGrad of
// recurrent_grad.cpp) that recomputes the forward from the node's inputs and backpropagates
// through time. The form trained is the common one (what PyTorch's nn.LSTM, nn.GRU and nn.RNN export):
// default activations, any direction, with or without B and the initial states, GRU with either
// linear_before_reset. Every other attribute or input is refused by name, so a model that needs
// it fails at build time instead of training on a wrong gradient.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "ops/grad/grad_ops.h"
#include "ops/grad/gradient_rules.h"

namespace openge {
namespace {

constexpr size_t kSeqLensInput = 4, kInitialHInput = 5, kInitialCInput = 6, kPeepholeInput = 7;

bool same_ignoring_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The attributes and inputs the backward ops do not model, each with what to change.
Status check_trained_form(GradientBuilder& gb, const std::vector<std::string>& default_activations) {
  const Node& n = gb.node();
  if (n.attrs.get_int("layout", 0) != 0) return gb.error("no gradient for layout = 1 (batch-major); export layout 0");
  if (n.attrs.has("clip")) return gb.error("no gradient with the clip attribute; remove clip to train");
  if (n.attrs.get_int("input_forget", 0) != 0) return gb.error("no gradient with input_forget = 1");
  if (gb.input(kSeqLensInput) >= 0)
    return gb.error("no gradient with sequence_lens; pad the batch to one length and leave sequence_lens out");
  if (gb.input(kPeepholeInput) >= 0) return gb.error("no gradient with peepholes (input P)");
  if (const Attribute* a = n.attrs.find("activations")) {
    const size_t per_dir = default_activations.size();
    bool defaults = a->strings.size() == per_dir || a->strings.size() == 2 * per_dir;
    for (size_t i = 0; defaults && i < a->strings.size(); ++i)
      defaults = same_ignoring_case(a->strings[i], default_activations[i % per_dir]);
    if (!defaults) {
      std::string expected;
      for (const std::string& s : default_activations) expected += (expected.empty() ? "" : ", ") + s;
      return gb.error("no gradient for activations other than the defaults (" + expected + ")");
    }
  }
  return Status::Ok();
}

// Which forward input each backward output is the gradient of: X, W, R, B, initial_h[, initial_c].
constexpr size_t kGradOf[] = {0, 1, 2, 3, kInitialHInput, kInitialCInput};

struct RecurrentRule {
  const char* backward_op;
  bool lstm;
  std::vector<std::string> default_activations;
};

Status recurrent_grad(GradientBuilder& gb, const RecurrentRule& rule) {
  const bool lstm = rule.lstm;
  OPENGE_RETURN_IF_ERROR(check_trained_form(gb, rule.default_activations));
  const size_t outputs = lstm ? 6 : 5;
  std::vector<int> inputs;
  for (size_t o = 0; o < outputs; ++o) inputs.push_back(gb.input(kGradOf[o]));
  for (size_t o = 0; o < (lstm ? 3u : 2u); ++o) inputs.push_back(gb.grad_of_output(o));
  uint32_t omitted = 0;
  for (size_t o = 0; o < outputs; ++o)
    if (gb.input(kGradOf[o]) < 0 || !gb.wants_grad_of_input(kGradOf[o])) omitted |= 1u << o;
  Attributes a;
  a.set("direction", string_attr(gb.node().attrs.get_string("direction", "forward")));
  if (gb.node().op_type == "GRU")
    a.set("linear_before_reset", int_attr(gb.node().attrs.get_int("linear_before_reset", 0)));
  auto g = gb.emit(rule.backward_op, std::move(inputs), std::move(a), outputs, kGradDomain, omitted);
  if (!g.ok()) return g.status();
  for (size_t o = 0; o < outputs; ++o)
    if ((*g)[o] >= 0) gb.set_grad_of_input(kGradOf[o], (*g)[o]);
  return Status::Ok();
}

Status lstm_grad(GradientBuilder& gb) { return recurrent_grad(gb, {"LSTMGrad", true, {"Sigmoid", "Tanh", "Tanh"}}); }
Status gru_grad(GradientBuilder& gb) { return recurrent_grad(gb, {"GRUGrad", false, {"Sigmoid", "Tanh"}}); }
Status rnn_grad(GradientBuilder& gb) { return recurrent_grad(gb, {"RNNGrad", false, {"Tanh"}}); }

}  // namespace

void add_recurrent_gradient_rules(std::vector<GradientRule>& rules) {
  rules.insert(rules.end(), {{"LSTM", lstm_grad}, {"GRU", gru_grad}, {"RNN", rnn_grad}});
}

}  // namespace openge
