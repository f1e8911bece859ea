#include "openge/dtype.h"

#include <array>
#include <string_view>

namespace openge {
namespace {

struct DTypeInfo {
  DType type;
  const char* name;
  size_t size;
  bool is_float, is_integer, is_signed;
};

// One row per supported element type.
constexpr std::array<DTypeInfo, 13> kDTypes = {{
    {DType::kFloat32, "float32", 4, true, false, true},
    {DType::kFloat16, "float16", 2, true, false, true},
    {DType::kBFloat16, "bfloat16", 2, true, false, true},
    {DType::kFloat64, "float64", 8, true, false, true},
    {DType::kInt8, "int8", 1, false, true, true},
    {DType::kInt16, "int16", 2, false, true, true},
    {DType::kInt32, "int32", 4, false, true, true},
    {DType::kInt64, "int64", 8, false, true, true},
    {DType::kUInt8, "uint8", 1, false, true, false},
    {DType::kUInt16, "uint16", 2, false, true, false},
    {DType::kUInt32, "uint32", 4, false, true, false},
    {DType::kUInt64, "uint64", 8, false, true, false},
    {DType::kBool, "bool", 1, false, false, false},
}};

const DTypeInfo* find(DType t) {
  for (const auto& info : kDTypes)
    if (info.type == t) return &info;
  return nullptr;
}

}  // namespace

size_t dtype_size(DType t) {
  const auto* i = find(t);
  return i ? i->size : 0;
}
const char* dtype_name(DType t) {
  if (const auto* i = find(t)) return i->name;
  switch (t) {
    case DType::kString:
      return "string";
    case DType::kUndefined:
      return "undefined";
    default:
      return "unsupported";
  }
}
bool dtype_supported(DType t) { return find(t) != nullptr; }
bool dtype_is_float(DType t) {
  const auto* i = find(t);
  return i && i->is_float;
}
bool dtype_is_integer(DType t) {
  const auto* i = find(t);
  return i && i->is_integer;
}
bool dtype_is_signed(DType t) {
  const auto* i = find(t);
  return i && i->is_signed;
}
DType dtype_from_name(const std::string& name) {
  for (const auto& info : kDTypes)
    if (name == info.name) return info.type;
  return DType::kUndefined;
}

}  // namespace openge
