// ChannelsLastLayoutPass: oneDNN's convolutions on this CPU class are several times faster on
// NHWC activations than on ONNX's NCHW (the depthwise convolutions of MobileNet ~20x: plain
// NCHW falls back to im2col + GEMM), so chains of convolutions and pools keep their
// activations in NHWC and convert only at the boundaries of the NHWC region.
//
// The layout is planned over the whole graph, in topological order: convolutions and pools
// (anchors) always run in NHWC; elementwise ops and Concat (followers) run in NHWC whenever one
// of their 4-D inputs comes from a node already in NHWC, so the activations, squeeze-and-
// excitation gates (Mul by an N x C x 1 x 1 value), residual Adds and fire-module Concats of
// modern CNNs stay inside the region instead of sitting between a Transpose pair each.
//
// The executor stays layout-agnostic: NHWC data lives in values whose shape *is* N x H x W x C,
// produced by explicit Transpose nodes (perm 0,2,3,1 in, 0,3,1,2 out), and consumed by ops that
// declare the layout: FusedConv and ShuffleChannel with channels_last=1, Nhwc<Pool>, Concat on
// axis 3, Slice with its axes moved to their NHWC positions, and the
// elementwise ops, which compute the same elements whatever the order as long as every 4-D
// operand is permuted alike (broadcasting lines up dimension by dimension), and Resize and Pad,
// whose per-dim sizes / scales / roi / pads are permuted with the data (each dim is resampled or
// padded on its own). These two join the region only when their readers are region ops: an
// upsampling at the end of a segmentation head is cheaper converted before (small) than after
// (large). Every op keeps a reference kernel, so the rewrite is valid whatever engine ends up
// running each node.
// CANN does the same with TransData nodes around its 5-D NC1HWC0 format.
#include <algorithm>
#include <array>
#include <string>

#include "ops/shape_strided_copy.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

constexpr const char* kPools[] = {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"};

// Ops whose every output element is computed from the elements at the same (broadcast) index of
// their inputs: they run unchanged on NHWC data when all their 4-D operands are NHWC.
constexpr const char* kElementwiseOps[] = {
    "Relu", "Sigmoid", "Tanh",     "LeakyRelu", "HardSigmoid", "HardSwish", "Clip", "Elu", "Selu",
    "Softplus", "Identity", "Abs", "Neg",       "Exp",         "Sqrt",      "Erf",  "Gelu", "Add",
    "Sub",  "Mul",     "Div",      "Max",       "Min",         "Sum",       "PRelu"};

// NCHW axis -> its position in NHWC, and NHWC axis -> the NCHW axis it holds.
constexpr int64_t kNhwcAxis[] = {0, 3, 1, 2};
constexpr int64_t kNchwAxis[] = {0, 2, 3, 1};

bool is_fast_float(DType t) { return t == DType::kFloat32 || t == DType::kBFloat16; }

bool static_4d(const Value& v) { return has_static_shape(v) && v.shape->size() == 4; }

// kBypass: the model's own Transpose to NHWC (perm 0,2,3,1) of a value the region already holds
// in NHWC (ConvNeXt's permute before its LayerNorm): its readers take the region's value.
enum class Role { kNone, kAnchor, kFollower, kBypass };

struct Plan {
  Role role = Role::kNone;
  std::vector<size_t> slots;  // the input slots that carry 4-D activations (converted to NHWC)
};

// Convolutions and pools: NHWC always (they are why the region exists).
Plan anchor_plan(const Graph& g, const Node& n) {
  if (n.outputs.empty() || n.outputs[0] < 0 || n.inputs.empty() || n.inputs[0] < 0) return {};
  const Value& x = g.values[static_cast<size_t>(n.inputs[0])];
  const Value& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (!static_4d(x) || !static_4d(y) || !is_fast_float(x.dtype) || x.constant) return {};
  if (is_op(n, "Conv") || is_op(n, "FusedConv")) {
    if (n.inputs.size() < 2 || !constant_of(g, n.inputs[1]) || n.attrs.get_int("channels_last", 0) != 0) return {};
    if (has_residual(n)) return {Role::kAnchor, {0, 3}};
    return {Role::kAnchor, {0}};
  }
  if (n.domain.empty() && n.outputs.size() == 1)
    for (const char* p : kPools)
      if (n.op_type == p) return {Role::kAnchor, {0}};
  return {};
}

// Slice with constant starts, ends, axes and steps (opset 10 on, where they are inputs): on NHWC
// data the same slice with each axis moved to its NHWC position (ShuffleNet splits its channels
// with two such Slices between NHWC convolutions).
bool is_slice_on_constants(const Graph& g, const Node& n) {
  if (!is_op(n, "Slice") || g.opset < 10 || n.inputs.size() < 3 || n.outputs.size() != 1) return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] >= 0 && !constant_of(g, n.inputs[i])) return false;
  return true;
}

Plan slice_plan(const Graph& g, const Node& n, const std::vector<bool>& in_region) {
  if (n.inputs[0] < 0 || n.outputs[0] < 0) return {};
  const Value& x = g.values[static_cast<size_t>(n.inputs[0])];
  const Value& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (!static_4d(x) || !static_4d(y) || !is_fast_float(x.dtype) || x.constant || x.producer < 0 ||
      !in_region[static_cast<size_t>(x.producer)])
    return {};
  return {Role::kFollower, {0}};
}

// The Slice's axes moved to their NHWC positions (axes absent: the first len(starts) axes).
Tensor nhwc_slice_axes(const Graph& g, const Node& n) {
  const Tensor* starts = constant_of(g, n.inputs[1]);
  const Tensor* axes = n.inputs.size() > 3 && n.inputs[3] >= 0 ? constant_of(g, n.inputs[3]) : nullptr;
  const int64_t count = axes ? axes->numel() : starts->numel();
  Tensor out(DType::kInt64, {count});
  for (int64_t i = 0; i < count; ++i) {
    int64_t axis = i;
    if (axes) axis = axes->dtype() == DType::kInt32 ? axes->data<int32_t>()[i] : axes->data<int64_t>()[i];
    if (axis < 0) axis += 4;
    out.data<int64_t>()[i] = kNhwcAxis[axis];
  }
  return out;
}

// Elementwise ops and Concat: NHWC when they can be (every non-scalar operand 4-D, static) and
// one of their 4-D inputs is already NHWC (`in_region`). Constant 4-D operands are permuted at
// compile time; one-element operands broadcast the same in either layout.
Plan follower_plan(const Graph& g, const Node& n, const std::vector<bool>& in_region) {
  if (n.outputs.size() != 1 || n.outputs[0] < 0 || n.inputs.empty()) return {};
  const bool concat = is_op(n, "Concat");
  const bool elementwise =
      std::any_of(std::begin(kElementwiseOps), std::end(kElementwiseOps), [&](const char* op) { return is_op(n, op); });
  const bool shuffle = is_op(n, "ShuffleChannel") && n.attrs.get_int("channels_last", 0) == 0;
  if (is_slice_on_constants(g, n)) return slice_plan(g, n, in_region);
  if (!concat && !elementwise && !shuffle) return {};
  const Value& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (!static_4d(y) || !is_fast_float(y.dtype) || y.constant) return {};
  Plan plan{Role::kFollower, {}};
  bool joins = false;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int v = n.inputs[i];
    if (v < 0) continue;
    const Value& x = g.values[static_cast<size_t>(v)];
    if (!has_static_shape(x)) return {};
    if (x.shape->size() != 4) {
      if (concat || shape_numel(*x.shape) != 1) return {};
      continue;
    }
    plan.slots.push_back(i);
    if (x.producer >= 0 && in_region[static_cast<size_t>(x.producer)]) joins = true;
  }
  if (!joins) return {};
  return plan;
}

// Ops that resample or pad each dim on its own, given constant per-dim parameters (one entry per
// dim, or begins then ends): they compute the same on NHWC data with the parameters permuted
// alike. Opset 11 on, where those parameters are inputs; `inputs` is how many a node may have
// (Pad's constant_value is a scalar, opset 18's axes are not taken).
struct PerDimOp {
  const char* op;
  std::array<size_t, 3> per_dim;  // 0: none (X is never a parameter)
  size_t inputs;
};
constexpr PerDimOp kPerDimOps[] = {{"Resize", {1, 2, 3}, 4}, {"Pad", {1, 0, 0}, 3}};

const PerDimOp* per_dim_op(const Graph& g, const Node& n) {
  if (g.opset < 11 || n.attrs.has("axes")) return nullptr;
  for (const PerDimOp& row : kPerDimOps) {
    if (!is_op(n, row.op) || n.inputs.size() > row.inputs) continue;
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      if (n.inputs[i] < 0) continue;
      const Tensor* t = constant_of(g, n.inputs[i]);
      const bool per_dim = std::find(row.per_dim.begin(), row.per_dim.end(), i) != row.per_dim.end();
      if (!t || (per_dim ? t->rank() != 1 || (t->numel() != 0 && t->numel() != 4 && t->numel() != 8) : t->numel() != 1))
        return nullptr;
    }
    return &row;
  }
  return nullptr;
}

// Would `reader` run in NHWC if its input came from the region? (anchors always; followers by op)
bool region_reader(const Graph& g, const Node& reader) {
  if (anchor_plan(g, reader).role == Role::kAnchor || is_op(reader, "Concat") || per_dim_op(g, reader) ||
      is_op(reader, "ShuffleChannel") || is_slice_on_constants(g, reader))
    return true;
  return std::any_of(std::begin(kElementwiseOps), std::end(kElementwiseOps), [&](const char* op) { return is_op(reader, op); });
}

// Resize and Pad: NHWC when X is in the region and every reader would run in NHWC too.
Plan per_dim_plan(const Graph& g, const Node& n, const std::vector<bool>& in_region,
                  const std::vector<std::vector<int>>& consumers) {
  if (!per_dim_op(g, n) || n.outputs.size() != 1 || n.outputs[0] < 0 || n.inputs[0] < 0) return {};
  const Value& x = g.values[static_cast<size_t>(n.inputs[0])];
  const Value& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (!static_4d(x) || !static_4d(y) || !is_fast_float(x.dtype) || x.producer < 0 ||
      !in_region[static_cast<size_t>(x.producer)] || is_graph_output(g, n.outputs[0]))
    return {};
  for (int c : consumers[static_cast<size_t>(n.outputs[0])])
    if (!region_reader(g, g.nodes[static_cast<size_t>(c)])) return {};
  return {Role::kFollower, {0}};
}

bool is_transpose(const Node& n, const std::vector<int64_t>& perm) {
  return is_op(n, "Transpose") && n.inputs.size() == 1 && n.outputs.size() == 1 && n.attrs.get_ints("perm") == perm;
}

// The model's Transpose to NHWC of a value produced inside the region.
Plan bypass_plan(const Graph& g, const Node& n, const std::vector<bool>& in_region) {
  if (!is_transpose(n, {0, 2, 3, 1}) || n.inputs[0] < 0 || n.outputs[0] < 0 || is_graph_output(g, n.outputs[0]))
    return {};
  const Value& x = g.values[static_cast<size_t>(n.inputs[0])];
  if (!static_4d(x) || x.producer < 0 || !in_region[static_cast<size_t>(x.producer)]) return {};
  return {Role::kBypass, {0}};
}

Shape to_nhwc(const Shape& s) { return {s[0], s[2], s[3], s[1]}; }

// A constant N x C x H x W tensor copied into N x H x W x C order.
Tensor permuted_to_nhwc(const Tensor& t) {
  const Shape& s = t.shape();
  Tensor out(t.dtype(), to_nhwc(s));
  strided_copy(t.raw(), out.raw(), dtype_size(t.dtype()), out.shape(), {s[1] * s[2] * s[3], s[3], 1, s[2] * s[3]});
  return out;
}

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

// A per-dim parameter (one entry per NCHW dim, or begins then ends) in NHWC order.
Tensor permuted_per_dim(const Tensor& t) {
  Tensor out(t.dtype(), t.shape());
  const size_t size = dtype_size(t.dtype());
  const auto* src = static_cast<const char*>(t.raw());
  auto* dst = static_cast<char*>(out.raw());
  for (int64_t half = 0; half < t.numel() / 4; ++half)
    for (int64_t j = 0; j < 4; ++j)
      std::copy_n(src + (half * 4 + kNchwAxis[j]) * size, size, dst + (half * 4 + j) * size);
  return out;
}

// The node's own change of form once its activations are NHWC.
void declare_nhwc(Graph& g, size_t index) {
  Node& node = g.nodes[index];
  if (is_op(node, "Slice")) {
    const int axes = add_constant(g, node.name + "_nhwc_axes", nhwc_slice_axes(g, g.nodes[index]));
    Node& slice = g.nodes[index];
    slice.inputs.resize(std::max<size_t>(slice.inputs.size(), 4), -1);
    slice.inputs[3] = axes;
  } else if (is_op(node, "ShuffleChannel")) {
    set_int_attr(node, "channels_last", 1);
  } else if (node.op_type == "Conv" || node.op_type == "FusedConv") {
    make_fused(node);
    set_int_attr(node, "channels_last", 1);
  } else if (is_op(node, "Concat")) {
    int64_t axis = node.attrs.get_int("axis", 1);
    if (axis < 0) axis += 4;
    set_int_attr(node, "axis", kNhwcAxis[axis]);
  } else if (std::any_of(std::begin(kPools), std::end(kPools), [&](const char* p) { return node.op_type == p; })) {
    node.op_type = "Nhwc" + node.op_type;
    node.domain = "openge";
  } else if (const PerDimOp* row = per_dim_op(g, node)) {
    for (size_t i : row->per_dim) {
      const int v = i > 0 && i < g.nodes[index].inputs.size() ? g.nodes[index].inputs[i] : -1;
      if (v < 0 || constant_of(g, v)->numel() == 0) continue;
      const std::string name = g.values[static_cast<size_t>(v)].name + "_nhwc";
      const int permuted = add_constant(g, name, permuted_per_dim(*constant_of(g, v)));
      g.nodes[index].inputs[i] = permuted;
    }
  }
  // Elementwise ops need no change: their operands say the layout.
}

Result<PassResult> run(Graph& g) {
  PassResult result;
  auto order = g.topological_order();
  if (!order.ok()) return order.status();
  const auto consumers = g.consumers();
  const size_t original_nodes = g.nodes.size();
  // The plan, in topological order so a follower sees its producers' decisions.
  std::vector<Plan> plans(original_nodes);
  std::vector<bool> in_region(original_nodes, false);
  for (int ni : *order) {
    const size_t n = static_cast<size_t>(ni);
    plans[n] = anchor_plan(g, g.nodes[n]);
    if (plans[n].role == Role::kNone) plans[n] = follower_plan(g, g.nodes[n], in_region);
    if (plans[n].role == Role::kNone) plans[n] = per_dim_plan(g, g.nodes[n], in_region, consumers);
    if (plans[n].role == Role::kNone) plans[n] = bypass_plan(g, g.nodes[n], in_region);
    if (plans[n].role == Role::kNone) continue;
    in_region[n] = plans[n].role != Role::kBypass;
    ++result.matched;
  }
  // Does a reader need `v` in NCHW? (graph outputs, ops outside the region, other input slots)
  auto needs_nchw = [&](int v) {
    if (is_graph_output(g, v)) return true;
    for (int c : consumers[static_cast<size_t>(v)]) {
      const Node& node = g.nodes[static_cast<size_t>(c)];
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i] != v) continue;
        const auto& s = plans[static_cast<size_t>(c)].slots;
        if (std::find(s.begin(), s.end(), i) == s.end()) return true;
      }
    }
    return false;
  };
  std::vector<int> nhwc_of(g.values.size(), -1);
  std::vector<Node> added;
  std::vector<bool> dead(original_nodes, false);
  for (int ni : *order) {
    const size_t n = static_cast<size_t>(ni);
    if (plans[n].role == Role::kBypass) {
      // Its input was made NHWC by its producer, earlier in this order.
      replace_uses(g, g.nodes[n].outputs[0], nhwc_of[static_cast<size_t>(g.nodes[n].inputs[0])]);
      dead[n] = true;
      ++result.applied;
      continue;
    }
    if (!in_region[n]) continue;
    // Inputs: the NHWC twin of each activation input (made once per value; a constant is
    // permuted now, anything else by a Transpose node).
    for (size_t slot : plans[n].slots) {
      const int v = g.nodes[n].inputs[slot];
      if (nhwc_of[static_cast<size_t>(v)] < 0) {
        const Value src = g.values[static_cast<size_t>(v)];  // a copy: adding values grows g.values
        int t;
        const Node* p = producer(g, v);
        if (src.constant) {
          t = add_constant(g, src.name + "_nhwc", permuted_to_nhwc(*src.constant));
        } else if (p && is_transpose(*p, {0, 3, 1, 2})) {
          t = p->inputs[0];  // the model's own Transpose from NHWC: its input is the twin
        } else {
          t = add_intermediate(g, src.name + "_nhwc", src.dtype, to_nhwc(*src.shape));
          added.push_back(transpose_node(src.name + "_to_nhwc", v, t, {0, 2, 3, 1}));
        }
        nhwc_of.resize(g.values.size(), -1);
        nhwc_of[static_cast<size_t>(v)] = t;
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
    declare_nhwc(g, n);
    ++result.applied;
  }
  for (Node& t : added) {
    g.nodes.push_back(std::move(t));
    set_output(g, static_cast<int>(g.nodes.size() - 1), 0, g.nodes.back().outputs[0]);
  }
  dead.resize(g.nodes.size(), false);
  erase_nodes(g, dead);
  return result;
}

}  // namespace

// A layout choice, not a fusion rule: fusion_switch_file does not turn it off (AMB-15).
const Pass kChannelsLastLayoutPass{"ChannelsLastLayoutPass", "graph", run, PassSwitch::kAlwaysOn};

}  // namespace openge::passes
