// Reads an ONNX model into the graph IR. Every problem with the file (corrupt or truncated
// protobuf, unsupported opset, unknown op, dangling input, cycle, inconsistent tensors) comes
// back as one Status naming the file and, where there is one, the node and op.
#pragma once
#include <cstddef>
#include <string>

#include "ir/graph.h"
#include "openge/status.h"

namespace openge {

// Default-domain opsets OpenGE implements.
constexpr int64_t kMinOpset = 1;  // opsets 1-6 through src/ops/opset_forms.cpp
constexpr int64_t kMaxOpset = 17;
// Largest model file accepted (protobuf itself stops at 2 GiB; larger models use external data).
constexpr size_t kMaxModelBytes = size_t{2} << 30;

Result<Graph> load_onnx(const std::string& path);
// `source_name` names the model in messages; external data resolves against `base_dir`.
Result<Graph> load_onnx_from_bytes(const void* data, size_t size, const std::string& source_name,
                                   const std::string& base_dir = ".");

}  // namespace openge
