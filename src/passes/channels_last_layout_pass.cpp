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
// declare the layout: FusedConv and ShuffleChannel with channels_last=1, the pools with
// data_format=NHWC, Concat on
// axis 3, Slice with its axes moved to their NHWC positions, and the
// elementwise ops, which compute the same elements whatever the order as long as every 4-D
// operand is permuted alike (broadcasting lines up dimension by dimension), and Resize and Pad,
// whose per-dim sizes / scales / roi / pads are permuted with the data (each dim is resampled or
// padded on its own). These two join the region only when their readers are region ops: an
// upsampling at the end of a segmentation head is cheaper converted before (small) than after
// (large). Every op keeps a reference kernel, so the rewrite is valid whatever engine ends up
// running each node.
//
// A region whose every activation has whole 16-channel blocks (C % 16 == 0), made only of
// convolutions, pools, Concats and elementwise ops that do not broadcast, may take NC1HWC0 instead
// of NHWC (ops/layout/activation_format.h; oneDNN's nChw16c): for float32 oneDNN's Winograd convolutions
// run on it without a reorder in and out of each, and a Concat of whole blocks along C writes
// contiguous slices, so Concat in place applies. It does when the cost table
// (kernels/conv_format_costs.h) says its convolutions, in the dtype each will compute in (the
// precision pass decides it after this pass; the compiler hands in its prediction) and on this
// CPU's instruction-set class, cost less on NC1HWC0 than on NHWC: bf16 on AMX runs oneDNN's brgemm
// kernels only on NHWC, so a bf16 region there stays NHWC. A region's first
// convolution may read an NCHW input with fewer channels (an RGB stem) as it is. The
// conversions at its boundary are a Reshape and a Transpose each way. A region is never split
// between the two formats: conversions in its middle cost more than NC1HWC0 gained.
// CANN does the same with TransData nodes around its 5-D NC1HWC0 format.
#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <utility>
#include <string>

#include "kernels/conv_format_costs.h"
#include "ops/layout/activation_format.h"
#include "ops/layout/in_formats.h"
#include "passes/channels_last_layout_pass.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"

namespace openge::passes {
namespace {

constexpr const char* kPools[] = {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"};

// Ops whose every output element is computed from the elements at the same (broadcast) index of
// their inputs: they run unchanged on NHWC data when all their 4-D operands are NHWC.
constexpr const char* kElementwiseOps[] = {
    "Relu",     "Sigmoid",  "Tanh", "LeakyRelu", "HardSigmoid", "HardSwish", "Clip", "Elu",  "Selu",
    "Softplus", "Identity", "Abs",  "Neg",       "Exp",         "Sqrt",      "Erf",  "Gelu", "Add",
    "Sub",      "Mul",      "Div",  "Max",       "Min",         "Sum",       "PRelu"};

// The Transposes of the conversions at a region's boundary: NCHW -> NHWC and back, and
// [N, C1, C0, H, W] -> NC1HWC0 and back (a Reshape splits or joins C1 x C0 on the NCHW side).
const std::vector<int64_t> kToNhwc{0, 2, 3, 1}, kFromNhwc{0, 3, 1, 2};
const std::vector<int64_t> kToNc1hwc0{0, 1, 3, 4, 2}, kFromNc1hwc0{0, 1, 4, 2, 3};

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

bool is_int8(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

bool is_qlinear_conv(const Node& n) { return is_op(n, "QLinearConv") || is_op(n, "QLinearConvAdd"); }

// The per-tensor QuantizeLinear and DequantizeLinear between int8 convolutions (scale and zero
// point one element each, which follower_plan checks): elementwise, so they join a region as
// the other followers do, on int8 or float activations.
bool is_quantize_op(const Node& n) { return is_op(n, "QuantizeLinear") || is_op(n, "DequantizeLinear"); }

// Convolutions and pools: NHWC always (they are why the region exists). Int8 convolutions
// (RequantFusionPass's QLinearConv and QLinearConvAdd) too: oneDNN's int8 kernels compute only on
// channels-last, so outside a region each one reorders its input and output.
Plan anchor_plan(const Graph& g, const Node& n) {
  if (n.outputs.empty() || n.outputs[0] < 0 || n.inputs.empty() || n.inputs[0] < 0) return {};
  const Value& x = g.values[static_cast<size_t>(n.inputs[0])];
  const Value& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (is_qlinear_conv(n)) {
    if (!static_4d(x) || !static_4d(y) || !is_int8(x.dtype) || x.constant || n.inputs.size() < 8 ||
        !constant_of(g, n.inputs[3]) || n.attrs.get_int("channels_last", 0) != 0)
      return {};
    if (is_op(n, "QLinearConvAdd")) {
      if (n.inputs.size() < 12 || n.inputs[9] < 0 || !static_4d(g.values[static_cast<size_t>(n.inputs[9])])) return {};
      return {Role::kAnchor, {0, 9}};
    }
    return {Role::kAnchor, {0}};
  }
  // MaxPool compares values, so it runs on a QDQ model's quantized tensors too (RequantFusionPass).
  const bool int8_max_pool = is_op(n, "MaxPool") && is_int8(x.dtype);
  if (!static_4d(x) || !static_4d(y) || !(is_fast_float(x.dtype) || int8_max_pool) || x.constant) return {};
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
  const bool quantize = is_quantize_op(n);
  if (is_slice_on_constants(g, n)) return slice_plan(g, n, in_region);
  if (!concat && !elementwise && !shuffle && !quantize) return {};
  const Value& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (!static_4d(y) || !(is_fast_float(y.dtype) || (quantize && is_int8(y.dtype))) || y.constant) return {};
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
      is_op(reader, "ShuffleChannel") || is_slice_on_constants(g, reader) || is_quantize_op(reader))
    return true;
  return std::any_of(std::begin(kElementwiseOps), std::end(kElementwiseOps),
                     [&](const char* op) { return is_op(reader, op); });
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
  if (!is_transpose(n, kToNhwc) || n.inputs[0] < 0 || n.outputs[0] < 0 || is_graph_output(g, n.outputs[0])) return {};
  const Value& x = g.values[static_cast<size_t>(n.inputs[0])];
  if (!static_4d(x) || x.producer < 0 || !in_region[static_cast<size_t>(x.producer)]) return {};
  return {Role::kBypass, {0}};
}

// A constant N x C x H x W tensor copied into `f`'s order.
Tensor permuted_to(const Tensor& t, ActivationFormat f) {
  Tensor out(t.dtype(), stored_shape(t.shape(), f));
  copy_from_nchw(t, out, f);
  return out;
}

Node reshape_node(Graph& g, const std::string& name, int in, int out) {
  const Shape& shape = *g.values[static_cast<size_t>(out)].shape;
  Tensor dims(DType::kInt64, {static_cast<int64_t>(shape.size())});
  std::copy(shape.begin(), shape.end(), dims.data<int64_t>());
  Node r;
  r.name = name;
  r.op_type = "Reshape";
  r.inputs = {in, add_constant(g, name + "_shape", std::move(dims))};
  r.outputs = {out};
  return r;
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

// "nhwc", "nc1hwc0": the suffix of the values made in `f`.
std::string lower_name(ActivationFormat f) {
  std::string s(format_name(f));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
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

// The node's own change of form once its activations are in `f`; `plain_input`: a convolution
// of an NC1HWC0 region that reads its NCHW input as it is.
void declare_format(Graph& g, size_t index, ActivationFormat f, bool plain_input) {
  Node& node = g.nodes[index];
  const bool nhwc = f == ActivationFormat::kNhwc;
  if (is_op(node, "Slice")) {
    const int axes = add_constant(g, node.name + "_nhwc_axes", nhwc_slice_axes(g, g.nodes[index]));
    Node& slice = g.nodes[index];
    slice.inputs.resize(std::max<size_t>(slice.inputs.size(), 4), -1);
    slice.inputs[3] = axes;
  } else if (is_op(node, "ShuffleChannel")) {
    set_int_attr(node, "channels_last", 1);
  } else if (is_qlinear_conv(node)) {
    // No longer ONNX's QLinearConv: its activations are N x H x W x C.
    node.domain = kFusedDomain;
    set_int_attr(node, "channels_last", 1);
  } else if (node.op_type == "Conv" || node.op_type == "FusedConv") {
    make_fused(node);
    if (nhwc)
      set_int_attr(node, "channels_last", 1);
    else
      set_int_attr(node, "nc1hwc0", plain_input ? 2 : 1);
  } else if (is_op(node, "Concat")) {
    int64_t axis = node.attrs.get_int("axis", 1);
    if (axis < 0) axis += 4;
    // NC1HWC0 keeps N, C (as C1), H and W at their NCHW positions.
    set_int_attr(node, "axis", nhwc ? kNhwcAxis[axis] : axis);
  } else if (std::any_of(std::begin(kPools), std::end(kPools), [&](const char* p) { return node.op_type == p; })) {
    set_node_data_format(node, f);
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

// Regions: the nodes in NHWC-capable roles joined through the activations one produces and
// another reads (union-find over node indices).
struct Regions {
  std::vector<size_t> parent;
  explicit Regions(size_t n) : parent(n) {
    for (size_t i = 0; i < n; ++i) parent[i] = i;
  }
  size_t root(size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void join(size_t a, size_t b) { parent[root(a)] = root(b); }
};

int64_t nchw_channels(const Value& v) { return (*v.shape)[1]; }

bool is_conv(const Node& n) { return n.op_type == "Conv" || n.op_type == "FusedConv"; }

// Whether the convolution `n`, in an NC1HWC0 region, reads its NCHW input 0 as it is: an input
// from outside the region without whole 16-channel blocks.
bool reads_plain_input(const Graph& g, const Node& n, const std::vector<bool>& in_region) {
  if (!is_conv(n)) return false;
  const Value& x = g.values[static_cast<size_t>(n.inputs[0])];
  return nchw_channels(x) % kC0 != 0 && (x.producer < 0 || !in_region[static_cast<size_t>(x.producer)]);
}

// Whether the convolution `n` is a small-channel stem (PassContext::small_channel_stem): at most
// kSmallChannels input channels, read from outside every region.
bool is_small_channel_stem(const Graph& g, const Node& n, const std::vector<bool>& in_region) {
  if (!is_conv(n) || n.inputs.empty() || n.inputs[0] < 0) return false;
  const Value& x = g.values[static_cast<size_t>(n.inputs[0])];
  if (!static_4d(x) || nchw_channels(x) > kSmallChannels) return false;
  return x.producer < 0 || !in_region[static_cast<size_t>(x.producer)];
}

// Can node `n` (planned `plan`) run in NC1HWC0? Convolutions, the four pools, Concat and
// elementwise ops without broadcasting over 4-D operands, on float32 activations whose channels
// are whole blocks (a convolution's input may be a plain one, reads_plain_input). A broadcast
// such as squeeze-and-excitation's N x C x 1 x 1 gate becomes a broadcast over the middle dims
// of N x C1 x H x W x C0, which the elementwise kernels run 4-6x slower than NHWC's broadcast
// along the last dim (bench/RESULTS.md).
bool nc1hwc0_capable(const Graph& g, const Node& n, const Plan& plan, const std::vector<bool>& in_region) {
  if (plan.role != Role::kAnchor && plan.role != Role::kFollower) return false;
  if (is_op(n, "Slice") || is_op(n, "ShuffleChannel") || per_dim_op(g, n)) return false;
  if (n.outputs.empty() || n.outputs[0] < 0) return false;
  const Value& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (y.dtype != DType::kFloat32 || nchw_channels(y) % kC0 != 0) return false;
  const bool elementwise = !is_conv(n) && !is_op(n, "Concat") && plan.role == Role::kFollower;
  for (size_t slot : plan.slots) {
    const Value& x = g.values[static_cast<size_t>(n.inputs[slot])];
    if (x.dtype != DType::kFloat32 || (elementwise && *x.shape != *y.shape)) return false;
    if (nchw_channels(x) % kC0 != 0 && !(slot == 0 && reads_plain_input(g, n, in_region))) return false;
  }
  return true;
}

bool nc1hwc0_possible(const Graph& g, const PassContext& context) {
  // Its boundary Reshapes take the shape as an input (opset 5 on).
  return g.opset >= 5 && context.nc1hwc0_regions != Nc1hwc0Regions::kNever;
}

// What an anchor weighs in its region's cost: a convolution its multiply-accumulates, a pool 1
// (next to the convolutions its time does not decide the format).
double anchor_weight(const Graph& g, const Node& n) {
  if (!is_conv(n) || n.inputs.size() < 2) return 1;
  const Value& w = g.values[static_cast<size_t>(n.inputs[1])];
  const Value& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (!w.shape || w.shape->size() != 4 || !has_static_shape(y)) return 1;
  const Shape& k = *w.shape;
  return static_cast<double>(shape_numel(*y.shape)) * static_cast<double>(k[1] * k[2] * k[3]);
}

// Keeps NC1HWC0 only for the regions (by root) whose anchors cost less on it than on NHWC, each
// anchor priced by the table row of its compute dtype on this ISA.
void keep_cheaper_nc1hwc0(const Graph& g, const std::vector<Plan>& plans, Regions& regions, std::vector<bool>& blocked,
                          const PassContext& context) {
  const IsaCosts& costs = context.costs;
  const std::vector<DType> dtypes = context.compute_dtypes ? context.compute_dtypes(g) : std::vector<DType>{};
  std::vector<double> on_nhwc(plans.size(), 0), on_nc1hwc0(plans.size(), 0);
  for (size_t n = 0; n < plans.size(); ++n) {
    if (plans[n].role != Role::kAnchor) continue;
    const Node& node = g.nodes[n];
    DType dtype = n < dtypes.size() ? dtypes[n] : DType::kUndefined;
    if (dtype == DType::kUndefined) dtype = g.values[static_cast<size_t>(node.outputs[0])].dtype;
    const FormatCostRow* row = find_format_cost(costs.table, "Conv", costs.isa, dtype);
    const size_t root = regions.root(n);
    if (!row || row->nc1hwc0 <= 0) {
      blocked[root] = false;
      continue;
    }
    const double weight = anchor_weight(g, node);
    on_nhwc[root] += weight * row->nhwc;
    on_nc1hwc0[root] += weight * row->nc1hwc0;
  }
  for (size_t r = 0; r < plans.size(); ++r)
    if (blocked[r] && !(on_nc1hwc0[r] < on_nhwc[r])) blocked[r] = false;
}

// Each region's format: NC1HWC0 where every node of the region can run so and the cost table
// says it pays (Nc1hwc0Regions::kAlways: wherever it can), NHWC otherwise. A region is never
// split between the two: the conversion between them in the middle of a region cost more than
// NC1HWC0 gained (bench/RESULTS.md). A region holding the model's own Transpose to NHWC
// (bypassed) stays NHWC.
std::vector<ActivationFormat> choose_formats(const Graph& g, const std::vector<Plan>& plans,
                                             const PassContext& context) {
  const size_t count = plans.size();
  std::vector<bool> in_region(count);
  for (size_t n = 0; n < count; ++n) in_region[n] = plans[n].role != Role::kNone && plans[n].role != Role::kBypass;
  Regions regions(count);
  for (size_t n = 0; n < count; ++n)
    for (size_t slot : plans[n].slots) {
      const int p = g.values[static_cast<size_t>(g.nodes[n].inputs[slot])].producer;
      if (p >= 0 && in_region[static_cast<size_t>(p)]) regions.join(n, static_cast<size_t>(p));
    }
  std::vector<bool> blocked(count, nc1hwc0_possible(g, context));
  for (size_t n = 0; n < count; ++n)
    if (plans[n].role != Role::kNone && !nc1hwc0_capable(g, g.nodes[n], plans[n], in_region))
      blocked[regions.root(n)] = false;
  if (context.nc1hwc0_regions == Nc1hwc0Regions::kByCpu) keep_cheaper_nc1hwc0(g, plans, regions, blocked, context);
  std::vector<ActivationFormat> formats(count, ActivationFormat::kNhwc);
  for (size_t n = 0; n < count; ++n)
    if (blocked[regions.root(n)]) formats[n] = ActivationFormat::kNc1hwc0;
  return formats;
}

// Adds the nodes that copy the N x C x H x W activation `nchw_value` into `stored_value` (stored in
// `f`), or the other way (`into_f` false): a Transpose, with a Reshape before it that splits C
// into C1 x C0 going into NC1HWC0, or after it that joins them leaving it.
void convert(Graph& g, std::vector<Node>& added, const std::string& name, int nchw_value, int stored_value,
             ActivationFormat f, bool into_f) {
  const Value& v = g.values[static_cast<size_t>(nchw_value)];
  const Shape s = *v.shape;
  const DType dtype = v.dtype;
  const std::string step = name + (into_f ? "_to_" + lower_name(f) : "_to_nchw");
  if (f == ActivationFormat::kNhwc) {
    added.push_back(into_f ? transpose_node(step, nchw_value, stored_value, kToNhwc)
                           : transpose_node(step, stored_value, nchw_value, kFromNhwc));
    return;
  }
  const int split = add_intermediate(g, name + "_c1c0", dtype, {s[0], s[1] / kC0, kC0, s[2], s[3]});
  if (into_f) {
    added.push_back(reshape_node(g, step + "_split", nchw_value, split));
    added.push_back(transpose_node(step, split, stored_value, kToNc1hwc0));
  } else {
    added.push_back(transpose_node(step, stored_value, split, kFromNc1hwc0));
    added.push_back(reshape_node(g, step + "_join", split, nchw_value));
  }
}

Result<PassResult> run(Graph& g, const PassContext& context) {
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
    if (!context.small_channel_stem && is_small_channel_stem(g, g.nodes[n], in_region)) plans[n] = {};
    if (plans[n].role == Role::kNone) plans[n] = follower_plan(g, g.nodes[n], in_region);
    if (plans[n].role == Role::kNone) plans[n] = per_dim_plan(g, g.nodes[n], in_region, consumers);
    if (plans[n].role == Role::kNone) plans[n] = bypass_plan(g, g.nodes[n], in_region);
    if (plans[n].role == Role::kNone) continue;
    in_region[n] = plans[n].role != Role::kBypass;
    ++result.matched;
  }
  // Each region's format: NC1HWC0 where every node of it can run so, else NHWC. A region with a
  // bypass (the model's own Transpose to NHWC) stays NHWC.
  const std::vector<ActivationFormat> formats = choose_formats(g, plans, context);
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
  // twin[{f, v}]: value v stored in format f (made once per value and format).
  std::map<std::pair<ActivationFormat, int>, int> twin;
  std::vector<Node> added;
  std::vector<bool> dead(original_nodes, false);
  for (int ni : *order) {
    const size_t n = static_cast<size_t>(ni);
    if (plans[n].role == Role::kBypass) {
      // Its input was made NHWC by its producer, earlier in this order.
      replace_uses(g, g.nodes[n].outputs[0], twin.at({ActivationFormat::kNhwc, g.nodes[n].inputs[0]}));
      dead[n] = true;
      ++result.applied;
      continue;
    }
    if (!in_region[n]) continue;
    const ActivationFormat f = formats[n];
    const bool plain_input = f == ActivationFormat::kNc1hwc0 && reads_plain_input(g, g.nodes[n], in_region);
    // Inputs: the twin of each activation input in the region's format: a constant permuted now,
    // a value from outside the region converted.
    for (size_t slot : plans[n].slots) {
      if (slot == 0 && plain_input) continue;
      const int v = g.nodes[n].inputs[slot];
      if (!twin.count({f, v})) {
        const Value src = g.values[static_cast<size_t>(v)];  // a copy: adding values grows g.values
        int t;
        const Node* p = producer(g, v);
        if (src.constant) {
          t = add_constant(g, src.name + "_" + lower_name(f), permuted_to(*src.constant, f));
        } else if (f == ActivationFormat::kNhwc && p && is_transpose(*p, kFromNhwc)) {
          t = p->inputs[0];  // the model's own Transpose from NHWC: its input is the twin
        } else {
          // A value of the region has its twin already (producers come first in this order):
          // this one comes from outside.
          t = add_intermediate(g, src.name + "_" + lower_name(f), src.dtype, stored_shape(*src.shape, f));
          convert(g, added, src.name, v, t, f, true);
        }
        twin[{f, v}] = t;
      }
      g.nodes[n].inputs[slot] = twin.at({f, v});
    }
    // Output: written in the node's format; converted back only when someone needs NCHW.
    const int y = g.nodes[n].outputs[0];
    const Value yv = g.values[static_cast<size_t>(y)];
    const int y_stored = add_intermediate(g, yv.name + "_" + lower_name(f), yv.dtype, stored_shape(*yv.shape, f));
    twin[{f, y}] = y_stored;
    set_output(g, ni, 0, y_stored);
    if (needs_nchw(y)) convert(g, added, yv.name, y, y_stored, f, false);
    declare_format(g, n, f, plain_input);
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

std::vector<ActivationFormat> stored_formats(const Graph& g) {
  std::vector<ActivationFormat> formats(g.values.size(), ActivationFormat::kNchw);
  auto set = [&](int v, ActivationFormat f) {
    if (v >= 0) formats[static_cast<size_t>(v)] = f;
  };
  auto rank = [&](int v) {
    return v >= 0 && g.values[static_cast<size_t>(v)].shape ? g.values[static_cast<size_t>(v)].shape->size() : 0;
  };
  auto order = g.topological_order();
  if (!order.ok()) return formats;
  for (int ni : *order) {
    const Node& n = g.nodes[static_cast<size_t>(ni)];
    if (n.inputs.empty() || n.outputs.empty()) continue;
    const int x = n.inputs[0], y = n.outputs[0];
    const ActivationFormat declared = node_data_format(n);
    if (is_qlinear_conv(n) && n.attrs.get_int("channels_last", 0) != 0) {
      set(x, ActivationFormat::kNhwc);
      set(y, ActivationFormat::kNhwc);
      if (is_op(n, "QLinearConvAdd") && n.inputs.size() > 9) set(n.inputs[9], ActivationFormat::kNhwc);
    } else if (n.op_type == "FusedConv") {
      const ConvFormats f = conv_formats(n.attrs);
      set(x, f.x);
      set(y, f.y);
      if (n.inputs.size() > 3) set(n.inputs[3], f.y);
    } else if (declared != ActivationFormat::kNchw &&
               std::any_of(std::begin(kPools), std::end(kPools), [&](const char* p) { return n.op_type == p; })) {
      set(x, declared);
      set(y, declared);
    } else if (is_transpose(n, kToNhwc)) {
      set(y, ActivationFormat::kNhwc);
    } else if (is_transpose(n, kToNc1hwc0)) {
      set(y, ActivationFormat::kNc1hwc0);
    } else if (region_reader(g, n) && anchor_plan(g, n).role == Role::kNone) {
      // A follower computes in its activation operands' format.
      for (int v : n.inputs)
        if (v >= 0 && formats[static_cast<size_t>(v)] != ActivationFormat::kNchw && rank(v) == rank(y)) {
          set(y, formats[static_cast<size_t>(v)]);
          break;
        }
      // Its other activation operands are in that format too (a conversion that moved only
      // size-1 dims became a Reshape, which says nothing).
      if (formats[static_cast<size_t>(y)] != ActivationFormat::kNchw)
        for (int v : n.inputs)
          if (rank(v) == rank(y)) set(v, formats[static_cast<size_t>(y)]);
    }
  }
  return formats;
}

// A layout choice, not a fusion rule: fusion_switch_file does not turn it off (AMB-15).
const Pass kChannelsLastLayoutPass{"ChannelsLastLayoutPass", "graph", run, PassSwitch::kAlwaysOn};

}  // namespace openge::passes
