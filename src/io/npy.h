// NumPy .npy files (format 1.0/2.0/3.0, little-endian, C order). bfloat16 has no NumPy type:
// it is written as float32.
//
// Files are untrusted input: the header is parsed by hand (no regex, whose backtracking
// recursion a long hostile header could exhaust the stack with), every dimension must be a
// non-negative decimal integer, and the size is checked against the size-limit policy
// (base/size_limit.h) and against the bytes the file really holds before anything is allocated.
#pragma once
#include <cstddef>
#include <string>

#include "openge/tensor_files.h"  // read_npy, write_npy
#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

// What the magic, version and header dict of a .npy file say.
struct NpyHeader {
  DType dtype = DType::kUndefined;
  Shape shape;
  size_t data_offset = 0;  // bytes from the start of the file to the first element
};

// Parses the start of a .npy file: `size` bytes at `data`, at least through the header dict.
// `name` names the file in messages.
Result<NpyHeader> parse_npy_header(const void* data, size_t size, const std::string& name);

}  // namespace openge
