// ShuffleChannelFusionPass: ONNX exports ShuffleNet's channel shuffle as
//   Reshape (N, C, H, W) -> (N, g, C/g, H, W) -> Transpose perm (0, 2, 1, 3, 4) -> Reshape (N, C, H, W)
// Three nodes, a 5-D copy, and no 4-D op the layout pass could keep in NHWC; one ShuffleChannel
// (ops/nn/shuffle_channel.h) does the same copy and has an NHWC form, so the convolutions around
// the shuffle stay in one NHWC region. The shapes are read from inference, so the Reshapes'
// shape constants may use 0 and -1 as exporters write them.
#include "ops/fused/fused_ops.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

// The static shape of a computed (non-constant) value, or nullptr.
const Shape* static_shape_of(const Graph& g, int v) {
  if (v < 0) return nullptr;
  const Value& value = g.values[static_cast<size_t>(v)];
  return has_static_shape(value) && !value.constant ? &*value.shape : nullptr;
}

std::optional<PatternMatch> find(const Graph& g, const std::vector<std::vector<int>>& consumers, int split_node) {
  const Node& split = g.nodes[static_cast<size_t>(split_node)];
  if (split.inputs.empty() || split.outputs.size() != 1) return std::nullopt;
  const int x = split.inputs[0];
  const Shape* xs = static_shape_of(g, x);
  const Shape* ss = static_shape_of(g, split.outputs[0]);
  // (N, C, H, W) -> (N, g, C/g, H, W)
  if (!xs || !ss || xs->size() != 4 || ss->size() != 5) return std::nullopt;
  const int64_t groups = (*ss)[1];
  if ((*ss)[0] != (*xs)[0] || groups <= 0 || groups * (*ss)[2] != (*xs)[1] || (*ss)[3] != (*xs)[2] ||
      (*ss)[4] != (*xs)[3])
    return std::nullopt;
  const int transpose_node = sole_reader_op(g, consumers, split.outputs[0], "Transpose");
  if (transpose_node < 0) return std::nullopt;
  const Node& transpose = g.nodes[static_cast<size_t>(transpose_node)];
  if (transpose.attrs.get_ints("perm") != std::vector<int64_t>{0, 2, 1, 3, 4} || transpose.outputs.size() != 1)
    return std::nullopt;
  const int merge_node = sole_reader_op(g, consumers, transpose.outputs[0], "Reshape");
  if (merge_node < 0) return std::nullopt;
  const Node& merge = g.nodes[static_cast<size_t>(merge_node)];
  const Shape* ys = static_shape_of(g, merge.outputs.empty() ? -1 : merge.outputs[0]);
  if (!ys || *ys != *xs) return std::nullopt;
  return PatternMatch{{split_node, transpose_node, merge_node}, merge.outputs[0], [x, groups](Graph&, Node& node) {
                        node.op_type = "ShuffleChannel";
                        node.domain = kFusedDomain;
                        node.inputs = {x};
                        node.attrs = Attributes{};
                        set_int_attr(node, "group", groups);
                        return true;
                      }};
}

Result<PassResult> run(Graph& g, const PassContext&) { return fuse_anchored_patterns(g, "Reshape", find); }

}  // namespace

const Pass kShuffleChannelFusionPass{"ShuffleChannelFusionPass", "graph", run};

}  // namespace openge::passes
