// FileConstant (OpenGE's domain, as GE's op of that name): a weight that lives in a file, named by
// the node's attributes file_path, offset, length, dtype (ONNX's TensorProto type) and shape.
// external_weight (session/external_weights.h) turns every weight of a model into one; its infer
// hands the weight out as a constant that views the session's mapping of the file (no copy), so
// constant folding takes it like any constant and the compiled graph reads the file's pages.
// Only OpenGE makes these nodes: the loader checks every node of a model file against ONNX's
// schemas, which have no FileConstant, so a hostile model cannot read the user's files with one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace openge {

struct OpSchema;

inline constexpr const char* kFileConstantOp = "FileConstant";
inline constexpr const char* kFileConstantDomain = "openge";

// The attributes of a FileConstant node naming [offset, offset + length) of `path` as a tensor.
Attributes file_constant_attributes(const std::string& path, uint64_t offset, uint64_t length, DType dtype,
                                    const Shape& shape);

void register_file_constant_op(std::vector<OpSchema>& table);

}  // namespace openge
