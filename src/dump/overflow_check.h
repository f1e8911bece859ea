// Overflow detection (dump_config.enable_dump_debug, dump_debug_mode; OPT-dump_config.dump_debug_mode-1..4).
// An op overflows when its inputs are all finite and an output is not: Inf or NaN, or, in a
// narrow float type (float16, bfloat16), the largest finite value, which is what a saturating
// NPU writes instead of Inf. docs/DECISIONS.md says what atomic_overflow means on a CPU.
#pragma once
#include <string_view>

#include "openge/tensor.h"

namespace openge::dump {

// Any NaN or ±Inf (false for integer and bool tensors).
bool has_non_finite(const Tensor& t);
// has_non_finite, or a float16 / bfloat16 element at ± its largest finite value.
bool overflowed(const Tensor& t);
// Ops whose kernels accumulate many products or terms (matmul, convolution, reductions,
// pooling averages, normalisations, softmax): the CPU's counterpart of Atomic Add accumulation.
bool accumulating_op(std::string_view op_type);

}  // namespace openge::dump
