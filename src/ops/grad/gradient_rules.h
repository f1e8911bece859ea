// The gradient rules of the op table (ops/gradient.h), one file per op family; each file adds its
// rows here and register_gradient_rules() (gradient_rules.cpp) puts them into the OpSchema rows.
#pragma once
#include <string_view>
#include <vector>

#include "ops/gradient.h"

// `const int var = <Result<int> expr>`, returning the error from the rule when there is one.
#define TRY_EMIT(var, expr)                             \
  auto var##_result = (expr);                           \
  if (!var##_result.ok()) return var##_result.status(); \
  const int var = *var##_result

namespace openge {

struct GradientRule {
  std::string_view op_type;
  GradientFn rule;
};

void add_math_gradient_rules(std::vector<GradientRule>& rules);       // Add … MatMul Gemm Reduce*
void add_nn_gradient_rules(std::vector<GradientRule>& rules);         // activations, Conv, pools, norms, losses
void add_shape_gradient_rules(std::vector<GradientRule>& rules);      // Reshape … Concat Split Gather Cast
void add_recurrent_gradient_rules(std::vector<GradientRule>& rules);  // LSTM GRU RNN

// `v` summed to `target` over the dims broadcasting added or stretched (SumToShape); `v` itself
// when the shapes already agree.
Result<int> sum_to_shape(GradientBuilder& gb, int v, const Shape& target);
// The same to forward input `input`'s shape.
Result<int> sum_to_input(GradientBuilder& gb, int grad, size_t input);

}  // namespace openge
