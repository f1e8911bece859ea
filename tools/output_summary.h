#pragma once
#include <string>

#include "openge/tensor.h"

namespace openge::cli {

// "float32 [1,1000] min -3.1 max 4.2 mean 0.01 first [0.1, 0.2, ...]"
std::string summarize_tensor(const Tensor& t);

}  // namespace openge::cli
