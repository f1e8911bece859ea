// Element types. The numeric values are ONNX TensorProto.DataType's, so a model's type field
// converts with a range check and nothing else.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace openge {

enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kBFloat16 = 16,
};

// Bytes per element; 0 for types OpenGE cannot hold (undefined, string, complex).
size_t dtype_size(DType t);
// Lower-case NumPy-style name ("float32", "bfloat16", "bool").
const char* dtype_name(DType t);
// True for the types OpenGE stores and computes.
bool dtype_supported(DType t);
bool dtype_is_float(DType t);    // fp16, bf16, fp32, fp64
bool dtype_is_integer(DType t);  // signed and unsigned ints (not bool)
bool dtype_is_signed(DType t);
// Parses a name as printed by dtype_name; kUndefined when unknown.
DType dtype_from_name(const std::string& name);

}  // namespace openge
