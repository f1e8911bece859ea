// Counting the pools a layout region stores in a format: ChannelsLastLayoutPass keeps their ONNX
// op type and declares the format in their data_format attribute.
#pragma once
#include <string>

#include "ir/graph.h"
#include "ops/layout/in_formats.h"

namespace openge {

inline int count_ops_in_format(const Graph& g, const std::string& op, ActivationFormat f) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op_type == op && node_data_format(node) == f;
  return n;
}

}  // namespace openge
