// FusedElementwise (domain "openge"): a group of elementwise vector ops that the UB fusion pass
// (passes/tbe_eltwise_fusion_pass.cpp) merged into one node, so that one generated kernel
// (compiler/) reads every input once and writes the result once instead of one full tensor per op.
//
// The node keeps its ops as a small program in attributes:
//   ub_ops    strings  the op type of each step, in evaluation order (a row of kEltwiseOps)
//   ub_args   ints     per step: its argument count, then each argument: k >= 0 is node input k,
//                      k < 0 is the result of step -k-1 (an earlier step)
//   ub_alpha  floats   per step: the op's first float attribute (LeakyRelu/HardSigmoid alpha)
//   ub_beta   floats   per step: its second (HardSigmoid beta)
//   ub_names  strings  per step: the name of the model node it came from (messages, dump_loc)
//   ub_impl   strings  per step: that node's impl mode (high_precision: libm in Sigmoid, Tanh,
//                      Erf); optional, absent = every step the default
// The last step's result is the node's one output. Every step's result has the output's shape;
// node inputs may be smaller and broadcast (ONNX rules), as they were in the model.
//
// The reference kernel runs each step through the op's own reference kernel, so the AI CPU
// engine (jit_compile=false: the "prebuilt" kernels) gives exactly the unfused results.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ops/op_registry.h"

namespace openge {

inline constexpr const char* kFusedElementwise = "FusedElementwise";

// One op the fusion knows: how many arguments, its float attributes, and its C++ expression for
// the code generator over float operands a, b, c and the attribute literals A, B. `exact`: the
// generated expression is the reference kernel's arithmetic, bit for bit. `fast_expr`: for ops
// whose reference kernel has a vectorisable approximation (ops/elementwise/elementwise_fastmath.h), the
// expression calling it, used unless the node's impl mode is high_precision (then `expr`, libm,
// as the reference's high_precision kernel); nullptr: `expr` always.
struct EltwiseOpRow {
  std::string_view op;
  int args;
  const char* alpha_attr;  // nullptr: none
  float alpha_default;
  const char* beta_attr;
  float beta_default;
  const char* expr;
  bool exact;
  const char* fast_expr = nullptr;
};
const EltwiseOpRow* find_eltwise_op(std::string_view op);

struct EltwiseStep {
  std::string op;
  std::vector<int> args;  // >= 0: node input; < 0: step -a-1
  float alpha = 0, beta = 0;
  std::string name;       // the model node
  std::string impl_mode;  // the model node's impl mode ("" = the kernel's default)
};
struct EltwiseProgram {
  std::vector<EltwiseStep> steps;
};

// Reads and checks the program of a FusedElementwise node (an error names what is wrong).
Result<EltwiseProgram> read_eltwise_program(const Node& node);
void write_eltwise_program(Node& node, const EltwiseProgram& program);

// The standalone node of one step (op type, name, attributes, impl mode; inputs/outputs left empty).
Node eltwise_step_node(const EltwiseStep& step);

void register_fused_elementwise_ops(std::vector<OpSchema>& table);

}  // namespace openge
