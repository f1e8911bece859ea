// Bulk conversions between float and the 16-bit float types, for kernels that compute a narrow
// tensor in float (round to nearest even once, as DESIGN.md "Numerics" asks).
#pragma once
#include <cstdint>

#include "openge/tensor.h"

namespace openge {

// dst[i] = float(src[i]) for a float16/bfloat16/float32 tensor.
void widen_to_float(const Tensor& src, float* dst);
// dst[i] = round_to_nearest_even(src[i]) into a float16/bfloat16/float32 tensor.
void narrow_from_float(const float* src, Tensor& dst);
// A float32 copy of a float16/bfloat16 tensor (owned).
Tensor widened_copy(const Tensor& src);
// An owned copy of a float tensor converted to `dtype` (float16, bfloat16 or float32).
Tensor converted_copy(const Tensor& src, DType dtype);

}  // namespace openge
