// One-line constructors of node attributes, for code that builds or rewrites nodes (gradient
// rules, opset-form rewrites).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace openge {

inline Attribute int_attr(int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  return a;
}

inline Attribute float_attr(float v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloat;
  a.f = v;
  return a;
}

inline Attribute ints_attr(std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  return a;
}

inline Attribute string_attr(std::string v) {
  Attribute a;
  a.kind = Attribute::Kind::kString;
  a.s = std::move(v);
  return a;
}

}  // namespace openge
