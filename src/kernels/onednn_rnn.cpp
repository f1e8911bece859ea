#include "kernels/onednn_rnn.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "kernels/onednn_common.h"

namespace openge::onednn {
namespace {

using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;
constexpr auto f32 = dnnl::memory::data_type::f32;

std::unique_ptr<CompiledKernel> none() { return nullptr; }

// ONNX input / output positions of RNN, GRU and LSTM.
constexpr size_t kX = 0, kW = 1, kR = 2, kB = 3, kSeqLens = 4, kInitH = 5, kInitC = 6, kP = 7;

// One row per op: ONNX gate count, the default activations (the only ones oneDNN's cells
// compute), and where each oneDNN gate's rows are in ONNX's W/R/B (oneDNN order: RNN h;
// GRU u(=z), r, o(=h); LSTM i, f, c, o — ONNX has LSTM gates as i, o, f, c).
struct RnnRow {
  std::string_view op;
  int gates;
  std::array<std::string_view, 3> activations;
  std::array<int, 4> onnx_gate;
};
constexpr RnnRow kRows[] = {
    {"RNN", 1, {"Tanh", "", ""}, {0, 0, 0, 0}},
    {"GRU", 3, {"Sigmoid", "Tanh", ""}, {0, 1, 2, 0}},
    {"LSTM", 4, {"Sigmoid", "Tanh", "Tanh"}, {0, 2, 3, 1}},
};

bool present(const std::vector<ValueInfo>& infos, size_t i) {
  return i < infos.size() && infos[i].dtype != DType::kUndefined;
}

// The attributes name only what oneDNN's cells compute: default activations, no clip …
bool default_cell(const Attributes& attrs, const RnnRow& row) {
  if (attrs.has("clip") || attrs.has("activation_alpha") || attrs.has("activation_beta") ||
      attrs.get_int("input_forget", 0) != 0 || attrs.get_int("layout", 0) != 0)
    return false;
  if (const Attribute* a = attrs.find("activations")) {
    for (size_t i = 0; i < a->strings.size(); ++i)
      if (i >= row.activations.size() || a->strings[i] != row.activations[i]) return false;
  }
  return true;
}

class RnnKernel final : public OneDnnKernel {
 public:
  dnnl::primitive prim;
  dnnl::memory::desc src_layer_md, src_iter_md, src_iter_c_md, dst_layer_md, dst_iter_md, dst_iter_c_md, scratchpad_md;
  dnnl::memory weights_layer, weights_iter, bias;
  std::optional<dnnl::memory> weights_peephole;
  bool has_y = false;
  // Bidirectional: oneDNN concatenates the two directions' hidden states per step ([T, N, 2H]),
  // ONNX stacks them ([T, 2, N, H]); Y is then gathered from a scratch buffer after the run.
  bool bidirectional = false;
  int64_t steps = 0, batch = 0, hidden = 0;

  Status run(KernelContext& ctx) const override {
    const bool gather_y = has_y && bidirectional;
    void* y = has_y && !gather_y ? ctx.output(0).raw() : thread_buffer(1, dst_layer_md.get_size());
    std::unique_ptr<KernelState> temp;
    PrimitiveArgs& args = state_for_run<PrimitiveArgs>(*this, ctx, temp);
    args.set(DNNL_ARG_SRC_LAYER, ctx.input(kX).raw());
    args.set(DNNL_ARG_DST_LAYER, y);
    if (!src_iter_md.is_zero()) args.set(DNNL_ARG_SRC_ITER, ctx.input(kInitH).raw());
    if (!src_iter_c_md.is_zero()) args.set(DNNL_ARG_SRC_ITER_C, ctx.input(kInitC).raw());
    if (!dst_iter_md.is_zero()) args.set(DNNL_ARG_DST_ITER, ctx.output(1).raw());
    if (!dst_iter_c_md.is_zero()) args.set(DNNL_ARG_DST_ITER_C, ctx.output(2).raw());
    OPENGE_RETURN_IF_ERROR(args.execute(prim, ctx));
    if (gather_y) {
      const float* src = static_cast<const float*>(y);
      float* dst = ctx.output(0).data<float>();
      for (int64_t t = 0; t < steps; ++t)
        for (int64_t d = 0; d < 2; ++d)
          for (int64_t n = 0; n < batch; ++n)
            std::copy_n(src + ((t * batch + n) * 2 + d) * hidden, hidden, dst + ((t * 2 + d) * batch + n) * hidden);
    }
    return Status::Ok();
  }
  std::unique_ptr<KernelState> make_state(KernelContext&) const override {
    auto args = std::make_unique<PrimitiveArgs>(scratchpad_md);
    args->add(DNNL_ARG_SRC_LAYER, src_layer_md);
    args->add_fixed(DNNL_ARG_WEIGHTS_LAYER, weights_layer);
    args->add_fixed(DNNL_ARG_WEIGHTS_ITER, weights_iter);
    args->add_fixed(DNNL_ARG_BIAS, bias);
    args->add(DNNL_ARG_DST_LAYER, dst_layer_md);
    if (weights_peephole) args->add_fixed(DNNL_ARG_WEIGHTS_PEEPHOLE, *weights_peephole);
    if (!src_iter_md.is_zero()) args->add(DNNL_ARG_SRC_ITER, src_iter_md);
    if (!src_iter_c_md.is_zero()) args->add(DNNL_ARG_SRC_ITER_C, src_iter_c_md);
    if (!dst_iter_md.is_zero()) args->add(DNNL_ARG_DST_ITER, dst_iter_md);
    if (!dst_iter_c_md.is_zero()) args->add(DNNL_ARG_DST_ITER_C, dst_iter_c_md);
    return args;
  }
  size_t scratchpad_bytes() const override { return scratchpad_md.get_size(); }
};

// ONNX's [D, gates*H, K] matrices (one per direction) as oneDNN's ldigo [1, D, K, gates, H].
Tensor to_ldigo(const Tensor& m, const RnnRow& row, int64_t hidden) {
  const int64_t dirs = m.dim(0), k = m.dim(2);
  Tensor out(DType::kFloat32, {1, dirs, k, row.gates, hidden});
  for (int64_t d = 0; d < dirs; ++d) {
    const float* src = m.data<float>() + d * row.gates * hidden * k;
    float* dst = out.data<float>() + d * k * row.gates * hidden;
    for (int64_t i = 0; i < k; ++i)
      for (int g = 0; g < row.gates; ++g)
        for (int64_t o = 0; o < hidden; ++o)
          dst[(i * row.gates + g) * hidden + o] = src[(row.onnx_gate[static_cast<size_t>(g)] * hidden + o) * k + i];
  }
  return out;
}

// oneDNN's bias [1, D, gates(+1), H] from ONNX's B = [Wb, Rb] per direction: Wb + Rb per gate;
// for GRU with linear_before_reset, the candidate gate keeps Wb_h and a fourth gate holds Rb_h
// (added inside the reset product, as ONNX defines it).
Tensor to_bias(const Tensor* b, const RnnRow& row, int64_t hidden, bool lbr, int64_t dirs) {
  const int64_t gates = row.gates + (lbr ? 1 : 0);
  Tensor out(DType::kFloat32, {1, dirs, gates, hidden});
  for (int64_t d = 0; d < dirs; ++d) {
    float* dst = out.data<float>() + d * gates * hidden;
    const float* wb = b ? b->data<float>() + d * 2 * row.gates * hidden : nullptr;
    const float* rb = b ? wb + row.gates * hidden : nullptr;
    for (int g = 0; g < row.gates; ++g)
      for (int64_t o = 0; o < hidden; ++o) {
        const int64_t at = row.onnx_gate[static_cast<size_t>(g)] * hidden + o;
        const bool candidate_lbr = lbr && g == 2;
        dst[g * hidden + o] = b ? wb[at] + (candidate_lbr ? 0.0f : rb[at]) : 0.0f;
      }
    if (lbr)
      for (int64_t o = 0; o < hidden; ++o) dst[3 * hidden + o] = b ? rb[2 * hidden + o] : 0.0f;
  }
  return out;
}

// ONNX's peepholes P = [Pi, Po, Pf] per direction as oneDNN's [1, D, 3, H] in its order i, f, o.
Tensor to_peephole(const Tensor& p, int64_t hidden, int64_t dirs) {
  Tensor out(DType::kFloat32, {1, dirs, 3, hidden});
  constexpr int kOnnx[3] = {0, 2, 1};
  for (int64_t d = 0; d < dirs; ++d) {
    const float* src = p.data<float>() + d * 3 * hidden;
    float* dst = out.data<float>() + d * 3 * hidden;
    for (int g = 0; g < 3; ++g)
      for (int64_t o = 0; o < hidden; ++o) dst[g * hidden + o] = src[kOnnx[g] * hidden + o];
  }
  return out;
}

template <class Pd>
void finish(RnnKernel& k, const Pd& pd, const Tensor& wl, const Tensor& wi, const Tensor& b) {
  k.scratchpad_md = pd.scratchpad_desc();
  auto plain = [](const Tensor& t, tag format) { return dnnl::memory::desc(to_dims(t.shape()), f32, format); };
  k.weights_layer = reorder_constant(plain(wl, tag::ldigo), wl.raw(), pd.weights_layer_desc());
  k.weights_iter = reorder_constant(plain(wi, tag::ldigo), wi.raw(), pd.weights_iter_desc());
  k.bias = reorder_constant(plain(b, tag::ldgo), b.raw(), pd.bias_desc());
}

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_rnn_kernel(const KernelRequest& request) {
  const RnnRow* row = nullptr;
  for (const RnnRow& r : kRows)
    if (r.op == request.node.op_type) row = &r;
  const auto& in = request.inputs;
  const auto& out = request.outputs;
  if (!row || in.size() < 3 || !default_cell(request.node.attrs, *row) || present(in, kSeqLens)) return none();
  const std::string direction = request.node.attrs.get_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") return none();
  const int64_t D = direction == "bidirectional" ? 2 : 1;
  const auto x = static_shape(in[kX]);
  const Tensor* w = in[kW].value;
  const Tensor* r = in[kR].value;
  const Tensor* b = present(in, kB) ? in[kB].value : nullptr;
  const bool lstm = row->op == "LSTM";
  const Tensor* p = lstm && present(in, kP) ? in[kP].value : nullptr;
  if (!x || x->size() != 3 || !w || !r || (present(in, kB) && !b) || (lstm && present(in, kP) && !p)) return none();
  for (size_t i = 0; i < in.size(); ++i)
    if (i != kSeqLens && present(in, i) && in[i].dtype != DType::kFloat32) return none();
  const int64_t T = (*x)[0], N = (*x)[1], C = (*x)[2];
  const int64_t H = r->dim(2);
  if (w->rank() != 3 || r->rank() != 3 || w->dim(0) != D || r->dim(0) != D || w->dim(1) != row->gates * H ||
      w->dim(2) != C || r->dim(1) != row->gates * H || (b && b->numel() != D * 2 * row->gates * H) ||
      (p && p->numel() != D * 3 * H) || T == 0 || N == 0)
    return none();
  // LSTM's initial states: both or neither (oneDNN takes zeros for an absent pair).
  if (lstm && present(in, kInitH) != present(in, kInitC)) return none();
  const bool lbr = row->op == "GRU" && request.node.attrs.get_int("linear_before_reset", 0) != 0;

  auto k = std::make_unique<RnnKernel>();
  k->has_y = !out.empty() && out[0].dtype != DType::kUndefined;
  k->bidirectional = D == 2;
  k->steps = T;
  k->batch = N;
  k->hidden = H;
  const dims state{1, D, N, H};
  k->src_layer_md = dnnl::memory::desc({T, N, C}, f32, tag::tnc);
  k->dst_layer_md = dnnl::memory::desc({T, N, D * H}, f32, tag::tnc);
  if (present(in, kInitH)) k->src_iter_md = dnnl::memory::desc(state, f32, tag::ldnc);
  if (lstm && present(in, kInitC)) k->src_iter_c_md = dnnl::memory::desc(state, f32, tag::ldnc);
  if (out.size() > 1 && out[1].dtype != DType::kUndefined) k->dst_iter_md = dnnl::memory::desc(state, f32, tag::ldnc);
  if (lstm && out.size() > 2 && out[2].dtype != DType::kUndefined)
    k->dst_iter_c_md = dnnl::memory::desc(state, f32, tag::ldnc);

  const Tensor wl = to_ldigo(*w, *row, H), wi = to_ldigo(*r, *row, H), bias = to_bias(b, *row, H, lbr, D);
  const auto any = [](const Tensor& t) { return dnnl::memory::desc(to_dims(t.shape()), f32, tag::any); };
  const dnnl::memory::desc bias_md(to_dims(bias.shape()), f32, tag::ldgo);
  const auto dir = D == 2                   ? dnnl::rnn_direction::bidirectional_concat
                   : direction == "forward" ? dnnl::rnn_direction::unidirectional_left2right
                                            : dnnl::rnn_direction::unidirectional_right2left;
  const auto prop = dnnl::prop_kind::forward_inference;
  const dnnl::primitive_attr attr = make_attr(dnnl::post_ops());
  const auto& s = *k;
  bool made = false;
  if (row->op == "RNN") {
    auto pd = try_create([&] {
      dnnl::vanilla_rnn_forward::desc d(prop, dnnl::algorithm::eltwise_tanh, dir, s.src_layer_md, s.src_iter_md,
                                        any(wl), any(wi), bias_md, s.dst_layer_md, s.dst_iter_md);
      return dnnl::vanilla_rnn_forward::primitive_desc(d, attr, cpu_engine());
    });
    if (pd) {
      k->prim = dnnl::vanilla_rnn_forward(*pd);
      finish(*k, *pd, wl, wi, bias);
      made = true;
    }
  } else if (lbr) {
    auto pd = try_create([&] {
      dnnl::lbr_gru_forward::desc d(prop, dir, s.src_layer_md, s.src_iter_md, any(wl), any(wi), bias_md, s.dst_layer_md,
                                    s.dst_iter_md);
      return dnnl::lbr_gru_forward::primitive_desc(d, attr, cpu_engine());
    });
    if (pd) {
      k->prim = dnnl::lbr_gru_forward(*pd);
      finish(*k, *pd, wl, wi, bias);
      made = true;
    }
  } else if (row->op == "GRU") {
    auto pd = try_create([&] {
      dnnl::gru_forward::desc d(prop, dir, s.src_layer_md, s.src_iter_md, any(wl), any(wi), bias_md, s.dst_layer_md,
                                s.dst_iter_md);
      return dnnl::gru_forward::primitive_desc(d, attr, cpu_engine());
    });
    if (pd) {
      k->prim = dnnl::gru_forward(*pd);
      finish(*k, *pd, wl, wi, bias);
      made = true;
    }
  } else {
    const Tensor peep = p ? to_peephole(*p, H, D) : Tensor();
    const dnnl::memory::desc peep_md = p ? dnnl::memory::desc({1, D, 3, H}, f32, tag::ldgo) : dnnl::memory::desc();
    auto pd = try_create([&] {
      dnnl::lstm_forward::desc d(prop, dir, s.src_layer_md, s.src_iter_md, s.src_iter_c_md, any(wl), any(wi), peep_md,
                                 bias_md, s.dst_layer_md, s.dst_iter_md, s.dst_iter_c_md);
      return dnnl::lstm_forward::primitive_desc(d, attr, cpu_engine());
    });
    if (pd) {
      k->prim = dnnl::lstm_forward(*pd);
      finish(*k, *pd, wl, wi, bias);
      if (p) k->weights_peephole = reorder_constant(peep_md, peep.raw(), pd->weights_peephole_desc());
      made = true;
    }
  }
  if (!made) return none();
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

}  // namespace openge::onednn
