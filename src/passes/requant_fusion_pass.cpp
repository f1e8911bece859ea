// RequantFusionPass (CANN's name for folding a quantized cube op's dequantize/requantize pair):
// a QDQ model's
//     DequantizeLinear(x_q) ─┐
//     DequantizeLinear(W_q) ─┼─> Conv | MatMul | Gemm ─> [Relu] ─> QuantizeLinear ─> y_q
//     DequantizeLinear(B_q) ─┘   (bias optional)
// becomes one QLinearConv / QLinearMatMul(x_q, x_scale, x_zp, W_q, w_scale, w_zp, y_scale, y_zp
// [, B_q]), which the AI Core engine runs as an int8 oneDNN primitive (onednn_qlinear.h).
//
// The rewrite is the one ONNX Runtime's QDQ transformer makes: the quantized op computes the
// integer sum exactly, where the QDQ graph sums dequantized floats, so an output may differ by
// one quantization step where the float sum rounds across a .5 boundary. Everything else is
// exact by construction; forms that would change results more are left alone:
//   - x: per-tensor scale and zero point (constants); uint8 or int8.
//   - W: a constant; per-tensor, or per-output-channel scale (DequantizeLinear axis 0 for Conv
//     and Gemm with transB, axis 1 for MatMul's [K, N]) and zero point.
//   - B (Conv): absent, or DequantizeLinear of int32 with zero point 0 and scale exactly
//     x_scale * w_scale[m] (the product in float, as the quantized op's definition uses), or a
//     float32 constant, which is quantized here as ONNX Runtime's quantizer does: int32 at scale
//     x_scale * w_scale[m], rounded to nearest even (the one step that is not exact: the bias
//     moves by at most half of x_scale * w_scale[m], half a unit of the integer sum; a bias
//     beyond int32 leaves the node float). Gemm: no C (QLinearMatMul has no bias), alpha 1,
//     transA 0.
//   - Relu is absorbed only when the QuantizeLinear's zero point is its type's minimum: then
//     saturation clamps negative sums exactly as Relu does.
//   - every intermediate float value has the next node as its only reader.
// A residual convolution (ONNX Runtime's quantizer leaves the convolution before a residual Add
// without a QuantizeLinear of its own)
//     Conv (as above) ─> Add(·, DequantizeLinear(r_q)) ─> [Relu] ─> QuantizeLinear ─> y_q
// becomes QLinearConvAdd (openge): QLinearConv's inputs, the bias slot (-1 when absent), then
// r_q, r_scale, r_zero_point, and attribute relu; r_q has the output's shape and one scale and
// zero point. The AI Core kernel adds the residual in oneDNN's sum post-op.
//
// Q/DQ pairs around ops that commute with them, exactly:
//   DequantizeLinear(x_q, s, z) ─> MaxPool ─> QuantizeLinear(·, s, z)   becomes MaxPool(x_q)
// when both have the same per-tensor scale, zero point and type: dequantizing is increasing
// (s > 0), so the window's maximum is the dequantized maximum, and quantizing (k - z) * s back
// at the same s gives k - z again (k - z within ±255, float32's relative error far below the
// half step that would round elsewhere). And a DequantizeLinear read only by a QuantizeLinear of
// the same parameters is the identity on x_q: the pair is removed.
// The Q/DQ around GlobalAveragePool are left: averaging in integers rounds where the float
// average does not (ONNX Runtime's QLinearGlobalAveragePool is not exact either).
// Each fold counts as one match and one rewrite of this pass.
#include <cmath>
#include <cstring>
#include <optional>

#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "passes/pass_util.h"
#include "ops/shape/shape_util.h"

namespace openge::passes {
namespace {

bool is_int8_type(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

// A DequantizeLinear node's operands: its quantized input and constant scale / zero point.
struct Dequant {
  int q = -1, scale = -1, zero_point = -1;  // value indices; zero_point -1 when omitted
  const Tensor* scale_t = nullptr;
  const Tensor* zero_point_t = nullptr;
  int64_t axis = 1;
};

std::optional<Dequant> match_dequant(const Graph& g, int v) {
  const Node* n = producer(g, v);
  if (!n || !is_op(*n, "DequantizeLinear") || n->domain == kFusedDomain || n->inputs.size() < 2) return std::nullopt;
  Dequant d;
  d.q = n->inputs[0];
  d.scale = n->inputs[1];
  d.zero_point = n->inputs.size() > 2 ? n->inputs[2] : -1;
  d.scale_t = constant_of(g, d.scale);
  d.zero_point_t = d.zero_point >= 0 ? constant_of(g, d.zero_point) : nullptr;
  if (!d.scale_t || d.scale_t->dtype() != DType::kFloat32 || (d.zero_point >= 0 && !d.zero_point_t))
    return std::nullopt;
  d.axis = n->attrs.get_int("axis", 1);
  return d;
}

bool per_tensor(const Dequant& d) { return d.scale_t->numel() == 1; }
int64_t zero_point_at(const Dequant& d, int64_t i) {
  return d.zero_point_t ? d.zero_point_t->scalar_as_int(d.zero_point_t->numel() == 1 ? 0 : i) : 0;
}

// The int32 bias when `v` is DequantizeLinear(B_q) with zero point 0 and scale x_scale * w_scale[m].
int exact_int32_bias(const Graph& g, int v, const Dequant& x, const Dequant& w, int64_t channels) {
  const auto b = match_dequant(g, v);
  if (!b) return -1;
  const Tensor* bq = constant_of(g, b->q);
  if (!bq || bq->dtype() != DType::kInt32 || bq->numel() != channels) return -1;
  if (b->scale_t->numel() != 1 && b->scale_t->numel() != channels) return -1;
  const float xs = x.scale_t->data<float>()[0];
  for (int64_t m = 0; m < channels; ++m) {
    const float expected = xs * w.scale_t->data<float>()[w.scale_t->numel() == 1 ? 0 : m];
    if (b->scale_t->data<float>()[b->scale_t->numel() == 1 ? 0 : m] != expected || zero_point_at(*b, m) != 0) return -1;
  }
  return b->q;
}

// A float32 constant bias quantized to int32 at scale x_scale * w_scale[m]; nothing when a value
// does not fit int32 or a scale is not a positive finite number.
std::optional<Tensor> quantized_float_bias(const Graph& g, int v, const Dequant& x, const Dequant& w,
                                           int64_t channels) {
  const Tensor* b = constant_of(g, v);
  if (!b || b->dtype() != DType::kFloat32 || b->numel() != channels) return std::nullopt;
  Tensor q(DType::kInt32, {channels});
  const float xs = x.scale_t->data<float>()[0];
  for (int64_t m = 0; m < channels; ++m) {
    const float scale = xs * w.scale_t->data<float>()[w.scale_t->numel() == 1 ? 0 : m];
    if (!(scale > 0) || !std::isfinite(scale)) return std::nullopt;
    const double r = std::nearbyint(static_cast<double>(b->data<float>()[m]) / static_cast<double>(scale));
    if (!(r >= -2147483648.0 && r <= 2147483647.0)) return std::nullopt;
    q.data<int32_t>()[m] = static_cast<int32_t>(r);
  }
  return q;
}

// A zero point operand: the existing one, or a zero constant of `dtype` (QLinear ops require it).
int zero_point_operand(Graph& g, const Dequant& d, DType dtype, const std::string& name) {
  if (d.zero_point >= 0) return d.zero_point;
  Tensor z(dtype, {});
  std::memset(z.raw(), 0, z.nbytes());
  return add_constant(g, name, std::move(z));
}

// The cube op's output path: [Relu ->] QuantizeLinear, each the sole reader of its input.
struct Requantize {
  int quantize = -1, relu = -1;
};

std::optional<Requantize> match_requantize(const Graph& g, const std::vector<std::vector<int>>& consumers, int y) {
  Requantize r;
  int reader = sole_consumer(g, consumers, y);
  if (reader >= 0 && is_op(g.nodes[static_cast<size_t>(reader)], "Relu") &&
      g.nodes[static_cast<size_t>(reader)].domain != kFusedDomain) {
    r.relu = reader;
    reader = sole_consumer(g, consumers, g.nodes[static_cast<size_t>(reader)].outputs[0]);
  }
  if (reader < 0) return std::nullopt;
  const Node& q = g.nodes[static_cast<size_t>(reader)];
  if (!is_op(q, "QuantizeLinear") || q.domain == kFusedDomain || q.inputs.size() < 3 || q.outputs.empty())
    return std::nullopt;
  const Tensor* s = constant_of(g, q.inputs[1]);
  const Tensor* z = constant_of(g, q.inputs[2]);
  if (!s || !z || s->numel() != 1 || z->numel() != 1 || s->dtype() != DType::kFloat32 || !is_int8_type(z->dtype()))
    return std::nullopt;
  if (r.relu >= 0 && z->scalar_as_int() != (z->dtype() == DType::kUInt8 ? 0 : -128)) return std::nullopt;
  r.quantize = reader;
  return r;
}

// The Add after a convolution's float output `y` whose other operand is DequantizeLinear(r_q):
// per tensor, r_q of an int8 type and of y's shape (no broadcasting).
struct ResidualAdd {
  int add = -1;
  Dequant r;
};

std::optional<ResidualAdd> match_residual_add(const Graph& g, const std::vector<std::vector<int>>& consumers, int y) {
  const int reader = sole_consumer(g, consumers, y);
  if (reader < 0) return std::nullopt;
  const Node& add = g.nodes[static_cast<size_t>(reader)];
  if (!is_op(add, "Add") || add.domain == kFusedDomain || add.inputs.size() != 2 || add.outputs.size() != 1)
    return std::nullopt;
  const int other = add.inputs[0] == y ? add.inputs[1] : add.inputs[0];
  if (other == y || other < 0) return std::nullopt;
  const auto r = match_dequant(g, other);
  if (!r || !per_tensor(*r) || (r->zero_point_t && r->zero_point_t->numel() != 1)) return std::nullopt;
  const Value& rv = g.values[static_cast<size_t>(r->q)];
  const Value& yv = g.values[static_cast<size_t>(y)];
  if (!is_int8_type(rv.dtype) || !has_static_shape(rv) || !has_static_shape(yv) || *rv.shape != *yv.shape)
    return std::nullopt;
  return ResidualAdd{reader, *r};
}

// W [N, K] -> [K, N] (Gemm's transB).
Tensor transposed(const Tensor& w) {
  const int64_t n = w.dim(0), k = w.dim(1);
  Tensor t(w.dtype(), {k, n});
  const char* s = static_cast<const char*>(w.raw());
  char* d = static_cast<char*>(t.raw());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) d[j * n + i] = s[i * k + j];
  return t;
}

// Tries to rewrite node `ni`; true when it did.
bool rewrite(Graph& g, const std::vector<std::vector<int>>& consumers, std::vector<bool>& dead, size_t ni,
             PassResult& result) {
  const Node& n = g.nodes[ni];
  const bool conv = is_op(n, "Conv"), gemm = is_op(n, "Gemm");
  if ((!conv && !gemm && !is_op(n, "MatMul")) || n.domain == kFusedDomain || n.inputs.size() < 2 || n.outputs.empty())
    return false;
  const auto x = match_dequant(g, n.inputs[0]);
  const auto w = match_dequant(g, n.inputs[1]);
  if (!x || !w) return false;
  auto req = match_requantize(g, consumers, n.outputs[0]);
  std::optional<ResidualAdd> residual;
  if (!req && conv) {
    residual = match_residual_add(g, consumers, n.outputs[0]);
    if (residual) req = match_requantize(g, consumers, g.nodes[static_cast<size_t>(residual->add)].outputs[0]);
  }
  if (!req) return false;
  ++result.matched;
  const Tensor* wq = constant_of(g, w->q);
  const Value& xv = g.values[static_cast<size_t>(x->q)];
  if (!wq || !is_int8_type(wq->dtype()) || !is_int8_type(xv.dtype) || !per_tensor(*x) ||
      (x->zero_point_t && x->zero_point_t->numel() != 1))
    return false;
  const bool trans_b = gemm && n.attrs.get_int("transB", 0) != 0;
  if (gemm && (n.attrs.get_int("transA", 0) != 0 || n.attrs.get_float("alpha", 1.0f) != 1.0f ||
               (n.inputs.size() > 2 && n.inputs[2] >= 0) || wq->rank() != 2))
    return false;
  if (!conv && !gemm && wq->rank() != 2) return false;
  // The output-channel axis of the weights as stored.
  const int64_t channel_axis = conv || trans_b ? 0 : 1;
  const int64_t channels = wq->dim(channel_axis);
  if (!per_tensor(*w)) {
    const auto axis = normalize_axis(w->axis, wq->rank());
    if (!axis || *axis != channel_axis || w->scale_t->numel() != channels) return false;
  }
  // Everything read from the graph's values is read before the first constant is added (adding
  // one may move them).
  int bias = -1;
  std::optional<Tensor> float_bias;
  if (conv && n.inputs.size() > 2 && n.inputs[2] >= 0) {
    bias = exact_int32_bias(g, n.inputs[2], *x, *w, channels);
    if (bias < 0) float_bias = quantized_float_bias(g, n.inputs[2], *x, *w, channels);
    if (bias < 0 && !float_bias) return false;
  }
  const std::string base = n.name.empty() ? "quantized" : n.name;
  const DType x_dtype = xv.dtype, w_dtype = wq->dtype();
  std::optional<Tensor> weight_kn;
  if (trans_b) weight_kn = transposed(*wq);
  const int y_scale = g.nodes[static_cast<size_t>(req->quantize)].inputs[1];
  const int y_zero_point = g.nodes[static_cast<size_t>(req->quantize)].inputs[2];
  const int y = g.nodes[static_cast<size_t>(req->quantize)].outputs[0];
  if (float_bias) bias = add_constant(g, base + "_bias_int32", std::move(*float_bias));
  const int x_zp = zero_point_operand(g, *x, x_dtype, base + "_x_zero_point");
  const int w_zp = zero_point_operand(g, *w, w_dtype, base + "_w_zero_point");
  const int w_in = weight_kn ? add_constant(g, base + "_weight_kn", std::move(*weight_kn)) : w->q;
  std::vector<int> inputs{x->q, x->scale, x_zp, w_in, w->scale, w_zp, y_scale, y_zero_point};
  if (bias >= 0 || residual) inputs.push_back(bias);
  if (residual) {
    const DType r_dtype = g.values[static_cast<size_t>(residual->r.q)].dtype;
    inputs.push_back(residual->r.q);
    inputs.push_back(residual->r.scale);
    inputs.push_back(zero_point_operand(g, residual->r, r_dtype, base + "_r_zero_point"));
  }
  const int quantize = req->quantize, relu = req->relu;
  Node& node = g.nodes[ni];
  node.op_type = residual ? "QLinearConvAdd" : conv ? "QLinearConv" : "QLinearMatMul";
  node.domain = residual ? kFusedDomain : "";
  if (!conv) node.attrs = Attributes{};
  if (residual) set_int_attr(node, "relu", relu >= 0 ? 1 : 0);
  node.inputs = std::move(inputs);
  set_output(g, static_cast<int>(ni), 0, y);
  if (residual) absorb_node(g, static_cast<int>(ni), residual->add, dead);
  if (relu >= 0) absorb_node(g, static_cast<int>(ni), relu, dead);
  absorb_node(g, static_cast<int>(ni), quantize, dead);
  ++result.applied;
  return true;
}

// Whether the QuantizeLinear `q` quantizes with the scale, zero point and type of `d`, per tensor.
bool same_quantization(const Graph& g, const Node& q, const Dequant& d) {
  if (!is_op(q, "QuantizeLinear") || q.domain == kFusedDomain || q.inputs.size() < 3 || q.outputs.size() != 1)
    return false;
  const Tensor* s = constant_of(g, q.inputs[1]);
  const Tensor* z = constant_of(g, q.inputs[2]);
  if (!s || !z || !d.zero_point_t || !per_tensor(d) || s->numel() != 1 || z->numel() != 1 ||
      d.zero_point_t->numel() != 1 || s->dtype() != DType::kFloat32 || z->dtype() != d.zero_point_t->dtype())
    return false;
  const float scale = d.scale_t->data<float>()[0];
  return scale > 0 && std::isfinite(scale) && s->data<float>()[0] == scale &&
         z->scalar_as_int() == d.zero_point_t->scalar_as_int();
}

// DQ -> MaxPool -> Q of one quantization: MaxPool on x_q. `ni` is the MaxPool.
bool fold_max_pool(Graph& g, const std::vector<std::vector<int>>& consumers, std::vector<bool>& dead, size_t ni,
                   PassResult& result) {
  const Node& n = g.nodes[ni];
  if (!is_op(n, "MaxPool") || n.domain == kFusedDomain || n.inputs.size() != 1 || n.outputs.size() != 1) return false;
  const auto d = match_dequant(g, n.inputs[0]);
  if (!d || !is_int8_type(g.values[static_cast<size_t>(d->q)].dtype)) return false;
  const int dq = g.values[static_cast<size_t>(n.inputs[0])].producer;
  const int q = sole_consumer(g, consumers, n.outputs[0]);
  if (q < 0 || sole_consumer(g, consumers, n.inputs[0]) != static_cast<int>(ni) ||
      !same_quantization(g, g.nodes[static_cast<size_t>(q)], *d))
    return false;
  ++result.matched;
  const int y = g.nodes[static_cast<size_t>(q)].outputs[0];
  g.nodes[ni].inputs[0] = d->q;
  set_output(g, static_cast<int>(ni), 0, y);
  absorb_node(g, static_cast<int>(ni), dq, dead);
  absorb_node(g, static_cast<int>(ni), q, dead);
  ++result.applied;
  return true;
}

// Q(DQ(x_q)) of one quantization: its readers read x_q. `ni` is the DequantizeLinear.
bool fold_requantize(Graph& g, const std::vector<std::vector<int>>& consumers, std::vector<bool>& dead, size_t ni,
                     PassResult& result) {
  const Node& n = g.nodes[ni];
  if (!is_op(n, "DequantizeLinear") || n.outputs.size() != 1) return false;
  const auto d = match_dequant(g, n.outputs[0]);
  const int q = sole_consumer(g, consumers, n.outputs[0]);
  if (!d || q < 0 || !same_quantization(g, g.nodes[static_cast<size_t>(q)], *d)) return false;
  const int y = g.nodes[static_cast<size_t>(q)].outputs[0];
  if (is_graph_output(g, y)) return false;
  ++result.matched;
  replace_uses(g, y, d->q);
  dead[ni] = true;
  dead[static_cast<size_t>(q)] = true;
  ++result.applied;
  return true;
}

Result<PassResult> run(Graph& g, const PassContext&) {
  PassResult result;
  const auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t ni = 0; ni < g.nodes.size(); ++ni)
    if (!dead[ni] && !fold_max_pool(g, consumers, dead, ni, result) && !fold_requantize(g, consumers, dead, ni, result))
      rewrite(g, consumers, dead, ni, result);
  erase_nodes(g, dead);
  return result;
}

}  // namespace

const Pass kRequantFusionPass{"RequantFusionPass", "graph", run};

}  // namespace openge::passes
