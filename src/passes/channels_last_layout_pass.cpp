// ChannelsLastLayoutPass: oneDNN's convolutions on this CPU class are several times faster on
// NHWC activations than on ONNX's NCHW (the depthwise convolutions of MobileNet ~20x: plain
// NCHW falls back to im2col + GEMM), so chains of convolutions and pools keep their
// activations in NHWC and convert only at the boundaries to other ops.
//
// The executor stays layout-agnostic: NHWC data lives in values whose shape *is* N x H x W x C,
// produced by explicit Transpose nodes (perm 0,2,3,1 in, 0,3,1,2 out), and consumed by internal
// ops that declare the layout: FusedConv with channels_last=1, and Nhwc<Pool>. Every op keeps a
// reference kernel, so the rewrite is valid whatever engine ends up running each node.
// CANN does the same with TransData nodes around its 5-D NC1HWC0 format.
#include <algorithm>
#include <string>

#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

constexpr const char* kPools[] = {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"};

bool is_fast_float(DType t) { return t == DType::kFloat32 || t == DType::kBFloat16; }

bool static_4d(const Value& v) {
  if (!v.shape || v.shape->size() != 4) return false;
  for (int64_t d : *v.shape)
    if (d < 0) return false;
  return true;
}

// Can run with NHWC activations: the input slots that carry activations.
std::vector<size_t> nhwc_slots(const Graph& g, const Node& n) {
  if (n.outputs.empty() || n.outputs[0] < 0 || n.inputs.empty() || n.inputs[0] < 0) return {};
  const Value& x = g.values[static_cast<size_t>(n.inputs[0])];
  const Value& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (!static_4d(x) || !static_4d(y) || !is_fast_float(x.dtype) || x.constant) return {};
  if (is_op(n, "Conv") || is_op(n, "FusedConv")) {
    if (n.inputs.size() < 2 || !constant_of(g, n.inputs[1]) || n.attrs.get_int("channels_last", 0) != 0) return {};
    if (has_residual(n)) return {0, 3};
    return {0};
  }
  if (n.domain.empty() && n.outputs.size() == 1)
    for (const char* p : kPools)
      if (n.op_type == p) return {0};
  return {};
}

Shape to_nhwc(const Shape& s) { return {s[0], s[2], s[3], s[1]}; }

Node transpose_node(const std::string& name, int in, int out, std::vector<int64_t> perm) {
  Node t;
  t.name = name;
  t.op_type = "Transpose";
  t.inputs = {in};
  t.outputs = {out};
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(perm);
  t.attrs.set("perm", a);
  return t;
}

Result<PassResult> run(Graph& g) {
  PassResult result;
  auto order = g.topological_order();
  if (!order.ok()) return order.status();
  const auto consumers = g.consumers();
  const size_t original_nodes = g.nodes.size();
  std::vector<std::vector<size_t>> slots(original_nodes);
  for (size_t n = 0; n < original_nodes; ++n) {
    slots[n] = nhwc_slots(g, g.nodes[n]);
    if (!slots[n].empty()) ++result.matched;
  }
  // Does a reader need `v` in NCHW? (graph outputs, other ops, other input slots)
  auto needs_nchw = [&](int v) {
    if (is_graph_output(g, v)) return true;
    for (int c : consumers[static_cast<size_t>(v)]) {
      const Node& node = g.nodes[static_cast<size_t>(c)];
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i] != v) continue;
        const auto& s = slots[static_cast<size_t>(c)];
        if (std::find(s.begin(), s.end(), i) == s.end()) return true;
      }
    }
    return false;
  };
  std::vector<int> nhwc_of(g.values.size(), -1);
  std::vector<Node> added;
  for (int ni : *order) {
    const size_t n = static_cast<size_t>(ni);
    if (slots[n].empty()) continue;
    // Inputs: the NHWC twin of each activation input (made once per value).
    for (size_t slot : slots[n]) {
      const int v = g.nodes[n].inputs[slot];
      if (nhwc_of[static_cast<size_t>(v)] < 0) {
        const Value src = g.values[static_cast<size_t>(v)];  // a copy: add_intermediate grows g.values
        const int t = add_intermediate(g, src.name + "_nhwc", src.dtype, to_nhwc(*src.shape));
        nhwc_of.resize(g.values.size(), -1);
        nhwc_of[static_cast<size_t>(v)] = t;
        added.push_back(transpose_node(src.name + "_to_nhwc", v, t, {0, 2, 3, 1}));
      }
      g.nodes[n].inputs[slot] = nhwc_of[static_cast<size_t>(v)];
    }
    // Output: written in NHWC; converted back only when someone needs NCHW.
    const int y = g.nodes[n].outputs[0];
    const Value yv = g.values[static_cast<size_t>(y)];
    const int y_nhwc = add_intermediate(g, yv.name + "_nhwc", yv.dtype, to_nhwc(*yv.shape));
    nhwc_of.resize(g.values.size(), -1);
    nhwc_of[static_cast<size_t>(y)] = y_nhwc;
    set_output(g, ni, 0, y_nhwc);
    if (needs_nchw(y)) {
      added.push_back(transpose_node(g.values[static_cast<size_t>(y)].name + "_to_nchw", y_nhwc, y, {0, 3, 1, 2}));
    }
    Node& node = g.nodes[n];
    if (node.op_type == "Conv" || node.op_type == "FusedConv") {
      make_fused(node);
      Attribute cl;
      cl.kind = Attribute::Kind::kInt;
      cl.i = 1;
      node.attrs.set("channels_last", cl);
    } else {
      node.op_type = "Nhwc" + node.op_type;
      node.domain = "openge";
    }
    ++result.applied;
  }
  for (Node& t : added) {
    g.nodes.push_back(std::move(t));
    set_output(g, static_cast<int>(g.nodes.size() - 1), 0, g.nodes.back().outputs[0]);
  }
  return result;
}

}  // namespace

// A layout choice, not a fusion rule: fusion_switch_file does not turn it off (AMB-15).
const Pass kChannelsLastLayoutPass{"ChannelsLastLayoutPass", "graph", run, PassSwitch::kAlwaysOn};

}  // namespace openge::passes
