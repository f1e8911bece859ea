#include "dump/overflow_check.h"

#include <cmath>
#include <set>
#include <string>

#include "openge/half.h"
#include "ops/layout/activation_format.h"

namespace openge::dump {
namespace {

// Exponent bits all ones = Inf or NaN, in the raw 16-bit patterns.
bool half_bits_non_finite(uint16_t bits) { return (bits & 0x7C00u) == 0x7C00u; }
bool bf16_bits_non_finite(uint16_t bits) { return (bits & 0x7F80u) == 0x7F80u; }
constexpr uint16_t kHalfMaxBits = 0x7BFFu;  // 65504
constexpr uint16_t kBf16MaxBits = 0x7F7Fu;  // 3.3895e38

template <class T>
bool any_non_finite(const T* p, int64_t n) {
  bool bad = false;
  for (int64_t i = 0; i < n; ++i) bad |= !std::isfinite(p[i]);  // no early exit: vectorises
  return bad;
}

bool any_16bit(const Tensor& t, bool (*non_finite)(uint16_t), uint16_t max_bits, bool count_saturated) {
  const auto* p = t.data<uint16_t>();
  bool bad = false;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const uint16_t magnitude = p[i] & 0x7FFFu;
    bad |= non_finite(p[i]) || (count_saturated && magnitude == max_bits);
  }
  return bad;
}

bool check(const Tensor& t, bool count_saturated) {
  switch (t.dtype()) {
    case DType::kFloat32:
      return any_non_finite(t.data<float>(), t.numel());
    case DType::kFloat64:
      return any_non_finite(t.data<double>(), t.numel());
    case DType::kFloat16:
      return any_16bit(t, half_bits_non_finite, kHalfMaxBits, count_saturated);
    case DType::kBFloat16:
      return any_16bit(t, bf16_bits_non_finite, kBf16MaxBits, count_saturated);
    default:
      return false;
  }
}

}  // namespace

bool has_non_finite(const Tensor& t) { return t.defined() && check(t, false); }
bool overflowed(const Tensor& t) { return t.defined() && check(t, true); }

bool accumulating_op(std::string_view op_type) {
  static const std::set<std::string, std::less<>> kAccumulating = {"MatMul",
                                                                   "Gemm",
                                                                   "Conv",
                                                                   "ConvTranspose",
                                                                   "ConvInteger",
                                                                   "MatMulInteger",
                                                                   "QLinearConv",
                                                                   "QLinearMatMul",
                                                                   "Einsum",
                                                                   "ReduceSum",
                                                                   "ReduceMean",
                                                                   "ReduceSumSquare",
                                                                   "ReduceL1",
                                                                   "ReduceL2",
                                                                   "ReduceLogSum",
                                                                   "ReduceLogSumExp",
                                                                   "ReduceProd",
                                                                   "Sum",
                                                                   "Mean",
                                                                   "CumSum",
                                                                   "AveragePool",
                                                                   "GlobalAveragePool",
                                                                   "LpPool",
                                                                   "GlobalLpPool",
                                                                   "LpNormalization",
                                                                   "LayerNormalization",
                                                                   "InstanceNormalization",
                                                                   "GroupNormalization",
                                                                   "Softmax",
                                                                   "LogSoftmax",
                                                                   "Attention"};
  // OpenGE's fused forms (FusedConv, FusedMatMul ...); a pool stored in another format keeps its op type.
  op_type = unprefixed_op_type(op_type);
  return kAccumulating.count(op_type) > 0;
}

}  // namespace openge::dump
