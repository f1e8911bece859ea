// The text of src/ops/elementwise/elementwise_fastmath.h (the reference kernels' vectorisable Sigmoid, Tanh
// and Erf), embedded at build time. The code generator pastes it into a kernel that uses one of
// them, so the generated kernel computes what the reference kernel computes and vectorises too;
// the text is part of the kernel's source, hence of its compile-cache key.
#pragma once

namespace openge::compiler {

extern const char* const kFastmathSource;

}  // namespace openge::compiler
