// NumPy .npy files (format 1.0/2.0, little-endian, C order). bfloat16 has no NumPy type: it is
// read from and written as '<u2' holding the raw bits only when the caller says so.
#pragma once
#include <string>

#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

Result<Tensor> read_npy(const std::string& path);
// Written atomically. bfloat16 tensors are stored as float32 (NumPy cannot name bf16).
Status write_npy(const Tensor& tensor, const std::string& path);

}  // namespace openge
