// SiLU (Swish with alpha 1: x * sigmoid(x)) over a float buffer in place, for the convolutions
// that end in it. oneDNN 2.6's swish post-op costs about 0.32 ns an element on the AVX-512
// machines we measure, more than the convolution itself on the wide early layers of
// EfficientNet (bench/RESULTS.md, "SiLU after the convolution"); this pass costs about 0.23 ns.
// e^-x by the Cephes polynomial (clamped, as ops/math/math_exp.h's), the division by an approximate
// reciprocal refined by one Newton step: relative error below 3e-7 on AVX-512 and AVX2.
#pragma once
#include <cstdint>

namespace openge {

// True where this build has a vector path (AVX-512F, or AVX2 with FMA): elsewhere the pass is
// no faster than oneDNN's post-op, and kernels keep the post-op.
bool fast_silu_available();

// data[i] = data[i] * sigmoid(data[i]) for i < n, on the calling thread's OpenMP team when the
// buffer is large enough to be worth it (base/parallel.h).
void silu_in_place(float* data, int64_t n);

}  // namespace openge
