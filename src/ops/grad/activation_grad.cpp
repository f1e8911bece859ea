// ActivationGrad(dY, Z): dX = dY * f'(...), element by element, for the activations whose
// derivative is a function of one saved tensor Z (the output Y where that is enough, else the
// input X). One table row per activation.
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "base/parallel.h"
#include "ir/dispatch.h"
#include "ops/grad/grad_ops.h"
#include "ops/nn/nn_common.h"

namespace openge {
namespace {

using DerivativeFn = double (*)(double z, double alpha);

struct ActivationDerivative {
  std::string_view name;
  DerivativeFn derivative;  // f' as a function of Z
};

constexpr double kTwoOverSqrtPi = 1.1283791670955126;
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt2OverPi = 0.79788456080286535588;

// Gelu = x Φ(x): Φ(x) + x φ(x).
double gelu_derivative(double x, double) {
  return 0.5 * (1 + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5 * x * x);
}

// Gelu's tanh form x/2 (1 + tanh u), u = sqrt(2/pi) (x + 0.044715 x^3).
double gelu_tanh_derivative(double x, double) {
  const double t = std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * kSqrt2OverPi * (1 + 3 * 0.044715 * x * x);
}

const ActivationDerivative kDerivatives[] = {
    {"relu", [](double y, double) { return y > 0 ? 1.0 : 0.0; }},                 // Z = Y
    {"sigmoid", [](double y, double) { return y * (1 - y); }},                    // Z = Y
    {"tanh", [](double y, double) { return 1 - y * y; }},                         // Z = Y
    {"leaky_relu", [](double x, double alpha) { return x > 0 ? 1.0 : alpha; }},   // Z = X
    {"erf", [](double x, double) { return kTwoOverSqrtPi * std::exp(-x * x); }},  // Z = X
    {"gelu", gelu_derivative},                                                    // Z = X
    {"gelu_tanh", gelu_tanh_derivative},                                          // Z = X
};

const ActivationDerivative* find_derivative(const std::string& name) {
  for (const ActivationDerivative& row : kDerivatives)
    if (row.name == name) return &row;
  return nullptr;
}

Status infer_activation_grad(InferContext& ctx) {
  if (!find_derivative(ctx.attrs().get_string("activation", "")))
    return ctx.error("unknown activation '" + ctx.attrs().get_string("activation", "") + "'");
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "dY"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 1, "Z"));
  if (ctx.input_shape_known(0) && ctx.input_shape_known(1) && ctx.input_shape(0) != ctx.input_shape(1))
    return ctx.error("dY " + shape_to_string(ctx.input_shape(0)) + " and Z " + shape_to_string(ctx.input_shape(1)) +
                     " differ");
  if (ctx.input_shape_known(0))
    ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
  else
    ctx.set_output_dtype(0, ctx.input_dtype(0));
  return Status::Ok();
}

Status activation_grad_kernel(KernelContext& ctx) {
  const ActivationDerivative* row = find_derivative(ctx.attrs().get_string("activation", ""));
  if (!row) return ctx.error("unknown activation");
  const double alpha = ctx.attrs().get_float("alpha", 0.01f);
  const Tensor& dy = ctx.input(0);
  const Tensor& z = ctx.input(1);
  if (dy.numel() != z.numel()) return ctx.error("dY and Z differ in size");
  visit_float_dtype(dy.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using F = float_or_self_t<T>;
    const T* g = dy.data<T>();
    const T* zz = z.data<T>();
    T* out = ctx.output(0).data<T>();
    const DerivativeFn f = row->derivative;
    parallel_for(dy.numel(), 20, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        out[i] = nn_store<T>(static_cast<nn_acc_t<T>>(static_cast<double>(static_cast<F>(g[i])) *
                                                      f(static_cast<double>(static_cast<F>(zz[i])), alpha)));
    });
  });
  return Status::Ok();
}

// SoftmaxGrad(dY, Y): over each row along the axis, dX = Y * (dY - sum(dY * Y)); with log = 1
// (Y = LogSoftmax), dX = dY - exp(Y) * sum(dY). flatten = 1 (opset < 13): the rows are the
// flattened dims from the axis on.
Status infer_softmax_grad(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "dY"));
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 1, "Y"));
  if (ctx.input_shape_known(0))
    ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
  else
    ctx.set_output_dtype(0, ctx.input_dtype(0));
  return Status::Ok();
}

Status softmax_grad_kernel(KernelContext& ctx) {
  const Tensor& dy = ctx.input(0);
  const Tensor& y = ctx.input(1);
  const int64_t rank = dy.rank();
  int64_t axis = ctx.attrs().get_int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1)) return ctx.error("axis out of range");
  const bool flatten = ctx.attrs().get_int("flatten", 0) != 0;
  const bool log = ctx.attrs().get_int("log", 0) != 0;
  int64_t outer = 1, n = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis)
      outer *= dy.dim(d);
    else if (d == axis || flatten)
      n *= dy.dim(d);
    else
      inner *= dy.dim(d);
  }
  visit_float_dtype(dy.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using F = float_or_self_t<T>;
    const T* g = dy.data<T>();
    const T* yy = y.data<T>();
    T* out = ctx.output(0).data<T>();
    parallel_for(outer * inner, n * 8, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t base = (r / inner) * n * inner + r % inner;
        double dot = 0;
        for (int64_t k = 0; k < n; ++k) {
          const int64_t i = base + k * inner;
          dot += static_cast<double>(static_cast<F>(g[i])) * (log ? 1.0 : static_cast<double>(static_cast<F>(yy[i])));
        }
        for (int64_t k = 0; k < n; ++k) {
          const int64_t i = base + k * inner;
          const double gi = static_cast<F>(g[i]), yi = static_cast<F>(yy[i]);
          const double v = log ? gi - std::exp(yi) * dot : yi * (gi - dot);
          out[i] = nn_store<T>(static_cast<nn_acc_t<T>>(v));
        }
      }
    });
  });
  return Status::Ok();
}

}  // namespace

void register_activation_grad_ops(std::vector<OpSchema>& table) {
  table.push_back({"ActivationGrad", 2, 2, 1, 1, infer_activation_grad, activation_grad_kernel});
  table.push_back({"SoftmaxGrad", 2, 2, 1, 1, infer_softmax_grad, softmax_grad_kernel});
}

}  // namespace openge
