// The op types the engine implements (`openge ops --list`; the ONNX conformance harness takes
// its scope from it, so no list of ops is kept twice).
#pragma once
#include <string>
#include <vector>

namespace openge {

struct OpTypeName {
  std::string domain;  // "" for the default ONNX domain
  std::string op_type;
};

// Every registered op type, in the order of the engine's op table (sorted).
std::vector<OpTypeName> supported_op_types();

}  // namespace openge
