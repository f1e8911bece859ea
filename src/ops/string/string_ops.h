// String tensors in the ops: the part of Cast that turns strings into numbers and back
// (string_ops.cpp; Cast's kernel calls it when either side is a string).
#pragma once
#include "ops/op_context.h"

namespace openge {

// Cast's kernel when the input or the output is a string tensor; an unparsable string is an error.
Status cast_strings(KernelContext& ctx);

}  // namespace openge
