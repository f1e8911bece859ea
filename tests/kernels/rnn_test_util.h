// RNN / GRU / LSTM cases for the AI Core recurrent kernels' tests: random inputs in ONNX order
// and the node, for comparing a kernel with the reference kernel.
#pragma once
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "../ops/op_test_util.h"

namespace openge::testing {

struct RnnCase {
  std::string op;
  std::string direction;
  int64_t seq, batch, input, hidden;
  bool bias, initial_state, peephole, linear_before_reset;
};
inline void PrintTo(const RnnCase& k, std::ostream* os) {
  *os << k.op << " " << k.direction << " T" << k.seq << " N" << k.batch << " C" << k.input << " H" << k.hidden
      << (k.bias ? " bias" : "") << (k.initial_state ? " init" : "") << (k.peephole ? " peephole" : "")
      << (k.linear_before_reset ? " lbr" : "");
}

inline int gates(const std::string& op) { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }

// Inputs in ONNX order (X, W, R, B, sequence_lens, initial_h, initial_c, P); nullptr = omitted.
struct RnnInputs {
  Tensor x, w, r, b, h0, c0, p;
  std::vector<const Tensor*> list;
};
inline RnnInputs make_inputs(const RnnCase& k) {
  const int64_t g = gates(k.op), d = k.direction == "bidirectional" ? 2 : 1;
  RnnInputs in{random_tensor({k.seq, k.batch, k.input}, 1),   random_tensor({d, g * k.hidden, k.input}, 2),
               random_tensor({d, g * k.hidden, k.hidden}, 3), random_tensor({d, 2 * g * k.hidden}, 4),
               random_tensor({d, k.batch, k.hidden}, 5),      random_tensor({d, k.batch, k.hidden}, 6),
               random_tensor({d, 3 * k.hidden}, 7),           {}};
  const bool lstm = k.op == "LSTM";
  in.list = {&in.x, &in.w, &in.r, k.bias ? &in.b : nullptr, nullptr, k.initial_state ? &in.h0 : nullptr};
  if (lstm) in.list.insert(in.list.end(), {k.initial_state ? &in.c0 : nullptr, k.peephole ? &in.p : nullptr});
  while (!in.list.empty() && !in.list.back()) in.list.pop_back();
  return in;
}

inline Node rnn_node(const RnnCase& k, size_t inputs) {
  Node node = make_node(k.op, inputs, k.op == "LSTM" ? 3 : 2);
  set_int(node, "hidden_size", k.hidden);
  set_string(node, "direction", k.direction);
  if (k.op == "GRU") set_int(node, "linear_before_reset", k.linear_before_reset ? 1 : 0);
  return node;
}

// Forms both AI Core recurrent kernels compute (no peepholes: the small-batch kernel leaves those
// to oneDNN): every op and direction, with and without bias, initial state, linear_before_reset.
inline std::vector<RnnCase> forms_without_peepholes() {
  return {RnnCase{"RNN", "forward", 5, 3, 4, 6, true, true, false, false},
          RnnCase{"RNN", "reverse", 4, 2, 5, 3, false, false, false, false},
          RnnCase{"GRU", "forward", 6, 2, 4, 5, true, true, false, false},
          RnnCase{"GRU", "reverse", 6, 2, 4, 5, true, false, false, true},
          RnnCase{"GRU", "forward", 3, 1, 3, 7, false, true, false, true},
          RnnCase{"LSTM", "reverse", 5, 2, 6, 8, true, false, false, false},
          RnnCase{"LSTM", "forward", 16, 4, 32, 32, true, true, false, false},
          RnnCase{"RNN", "bidirectional", 4, 3, 5, 6, true, true, false, false},
          RnnCase{"GRU", "bidirectional", 5, 2, 4, 3, true, true, false, true},
          RnnCase{"GRU", "bidirectional", 3, 2, 4, 5, false, false, false, false},
          RnnCase{"LSTM", "bidirectional", 5, 3, 4, 7, true, false, false, false}};
}

// Largest |a - b| of two float tensors of one shape.
inline double max_abs_error(const Tensor& a, const Tensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    worst = std::max(worst, std::abs(a.data<float>()[i] - static_cast<double>(b.data<float>()[i])));
  return worst;
}

// What kernel selection knows of such a node in a model: W, R, B and P are constants.
inline KernelRequest rnn_request(const Node& node, const std::vector<const Tensor*>& in,
                                 const std::vector<Tensor>& outputs) {
  KernelRequest req{node, 14, {}, {}};
  for (size_t i = 0; i < in.size(); ++i) req.inputs.push_back(info_of(in[i], i == 1 || i == 2 || i == 3 || i == 7));
  for (const Tensor& o : outputs) req.outputs.push_back(ValueInfo{o.dtype(), true, o.shape(), nullptr});
  return req;
}

}  // namespace openge::testing
