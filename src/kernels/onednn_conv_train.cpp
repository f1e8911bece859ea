// Convolutions of training graphs on oneDNN: the forward primitive for weights that are an input
// (they change every step, so nothing is packed at compile time) and ConvGrad on the backward-data
// and backward-weights primitives. Tensors arrive and leave in ONNX's plain layouts (NCHW, OIHW);
// each primitive runs on the layouts oneDNN prefers (format `any`), with reorders around it into
// buffers each run state owns.
#include "kernels/onednn_conv_train.h"

#include <functional>
#include <optional>
#include <unordered_map>

#include "kernels/onednn_common.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/nn_window.h"

namespace openge::onednn {
namespace {

using tag = dnnl::memory::format_tag;

// The geometry both kernels are built from: plain descriptors and the window.
struct ConvSetup {
  dnnl::memory::desc x_plain, w_plain, y_plain, bias_plain;
  dnnl::memory::desc x_any, w_any, y_any;
  dnnl::memory::dims strides, dilations, pad_l, pad_r;
};

std::optional<ConvSetup> conv_setup(const Node& node, const Shape& x, const Shape& w, const Shape& y) {
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) return std::nullopt;
  const int64_t group = node.attrs.get_int("group", 1);
  if (group < 1 || x[1] % group != 0 || w[0] % group != 0 || w[1] * group != x[1] || y[1] != w[0]) return std::nullopt;
  const std::vector<int64_t> kernel{w[2], w[3]};
  auto params = read_window_params(node.attrs, 2, &kernel, false);
  if (!params.ok()) return std::nullopt;
  auto geom = resolve_window(*params, {x[2], x[3]});
  if (!geom.ok() || geom->output != std::vector<int64_t>{y[2], y[3]}) return std::nullopt;
  const auto f32 = dnnl::memory::data_type::f32;
  const dnnl::memory::dims w_dims = group > 1 ? dnnl::memory::dims{group, w[0] / group, w[1], w[2], w[3]} : to_dims(w);
  ConvSetup s;
  s.x_plain = dnnl::memory::desc(to_dims(x), f32, tag::nchw);
  s.y_plain = dnnl::memory::desc(to_dims(y), f32, tag::nchw);
  s.w_plain = dnnl::memory::desc(w_dims, f32, group > 1 ? tag::goihw : tag::oihw);
  s.bias_plain = dnnl::memory::desc({w[0]}, f32, tag::x);
  s.x_any = dnnl::memory::desc(to_dims(x), f32, tag::any);
  s.y_any = dnnl::memory::desc(to_dims(y), f32, tag::any);
  s.w_any = dnnl::memory::desc(w_dims, f32, tag::any);
  s.strides = {geom->strides[0], geom->strides[1]};
  s.dilations = {geom->dilations[0] - 1, geom->dilations[1] - 1};
  s.pad_l = {geom->pad_begin[0], geom->pad_begin[1]};
  s.pad_r = {geom->pad_end[0], geom->pad_end[1]};
  return s;
}

dnnl::convolution_forward::primitive_desc forward_pd(const ConvSetup& s, bool bias) {
  auto desc =
      bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                             s.x_any, s.w_any, s.bias_plain, s.y_any, s.strides, s.dilations, s.pad_l,
                                             s.pad_r)
           : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                             s.x_any, s.w_any, s.y_any, s.strides, s.dilations, s.pad_l, s.pad_r);
  return dnnl::convolution_forward::primitive_desc(desc, make_attr(dnnl::post_ops()), cpu_engine());
}

// One tensor between its plain layout and a primitive's: a reorder (and a buffer per run state)
// only where the two differ.
struct Staged {
  dnnl::memory::desc plain, chosen;
  std::optional<dnnl::reorder> to_chosen, to_plain;

  static Staged make(const dnnl::memory::desc& plain, const dnnl::memory::desc& chosen, bool in, bool out) {
    Staged s{plain, chosen, std::nullopt, std::nullopt};
    if (plain == chosen) return s;
    if (in) s.to_chosen = dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), plain, cpu_engine(), chosen));
    if (out) s.to_plain = dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), chosen, cpu_engine(), plain));
    return s;
  }
  bool staged() const { return plain != chosen; }
};

// Per run state: the chosen-layout buffer of each staged tensor (by slot).
struct TrainConvState : KernelState {
  std::vector<std::optional<dnnl::memory>> buffers;
};

// The memory a primitive reads or writes for tensor `data` (plain) through slot `slot`: the
// tensor itself, or the state's buffer (filled from the tensor first when `read`).
dnnl::memory bind(const Staged& s, TrainConvState& state, size_t slot, const void* data, bool read,
                  dnnl::stream& stream) {
  dnnl::memory plain = wrap(s.plain, data);
  if (!s.staged()) return plain;
  if (!state.buffers[slot]) state.buffers[slot] = dnnl::memory(s.chosen, cpu_engine());
  if (read) s.to_chosen->execute(stream, plain, *state.buffers[slot]);
  return *state.buffers[slot];
}

void unstage(const Staged& s, TrainConvState& state, size_t slot, void* data, dnnl::stream& stream) {
  if (!s.staged()) return;
  dnnl::memory plain = wrap(s.plain, data);
  s.to_plain->execute(stream, *state.buffers[slot], plain);
}

dnnl::memory scratchpad(const dnnl::memory::desc& md) { return wrap(md, thread_scratchpad(md.get_size())); }

Status guarded(const KernelContext& ctx, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const dnnl::error& e) {
    return ctx.error(std::string("oneDNN: ") + e.what());
  }
  return Status::Ok();
}

class RuntimeWeightConvKernel final : public OneDnnKernel {
 public:
  dnnl::convolution_forward prim;
  dnnl::memory::desc scratchpad_md, bias_md;
  Staged x, w, y;
  bool has_bias = false;

  Status run(KernelContext& ctx) const override {
    std::unique_ptr<KernelState> temp;
    TrainConvState& st = state_for_run<TrainConvState>(*this, ctx, temp);
    return guarded(ctx, [&] {
      dnnl::stream& stream = thread_stream();
      std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, bind(x, st, 0, ctx.input(0).raw(), true, stream)},
                                                 {DNNL_ARG_WEIGHTS, bind(w, st, 1, ctx.input(1).raw(), true, stream)},
                                                 {DNNL_ARG_DST, bind(y, st, 2, ctx.output(0).raw(), false, stream)},
                                                 {DNNL_ARG_SCRATCHPAD, scratchpad(scratchpad_md)}};
      if (has_bias) args.emplace(DNNL_ARG_BIAS, wrap(bias_md, ctx.input(2).raw()));
      prim.execute(stream, args);
      unstage(y, st, 2, ctx.output(0).raw(), stream);
      stream.wait();
    });
  }
  std::unique_ptr<KernelState> make_state(KernelContext&) const override {
    auto st = std::make_unique<TrainConvState>();
    st->buffers.resize(3);
    return st;
  }
  size_t scratchpad_bytes() const override { return scratchpad_md.get_size(); }
};

class ConvGradKernel final : public OneDnnKernel {
 public:
  std::optional<dnnl::convolution_backward_data> data_prim;
  std::optional<dnnl::convolution_backward_weights> weights_prim;
  dnnl::memory::desc data_scratch_md, weights_scratch_md, bias_md;
  // Slots: 0 dY for backward data, 1 W, 2 dX, 3 dY for backward weights, 4 X, 5 dW.
  Staged dy_data, w, dx, dy_weights, x, dw;
  bool want_dx = false, want_dw = false, want_db = false;

  Status run(KernelContext& ctx) const override {
    std::unique_ptr<KernelState> temp;
    TrainConvState& st = state_for_run<TrainConvState>(*this, ctx, temp);
    return guarded(ctx, [&] {
      dnnl::stream& stream = thread_stream();
      const void* dy = ctx.input(0).raw();
      if (want_dx) {
        data_prim->execute(stream, {{DNNL_ARG_DIFF_DST, bind(dy_data, st, 0, dy, true, stream)},
                                    {DNNL_ARG_WEIGHTS, bind(w, st, 1, ctx.input(2).raw(), true, stream)},
                                    {DNNL_ARG_DIFF_SRC, bind(dx, st, 2, ctx.output(0).raw(), false, stream)},
                                    {DNNL_ARG_SCRATCHPAD, scratchpad(data_scratch_md)}});
        unstage(dx, st, 2, ctx.output(0).raw(), stream);
      }
      if (want_dw || want_db) {
        std::vector<float> unused_bias;
        void* db = want_db ? ctx.output(2).raw() : nullptr;
        if (!db) {
          unused_bias.resize(bias_md.get_size() / sizeof(float));
          db = unused_bias.data();
        }
        std::vector<float> unused_weights;
        void* dw_data = want_dw ? ctx.output(1).raw() : nullptr;
        if (!dw_data) {
          unused_weights.resize(dw.plain.get_size() / sizeof(float));
          dw_data = unused_weights.data();
        }
        weights_prim->execute(stream, {{DNNL_ARG_DIFF_DST, bind(dy_weights, st, 3, dy, true, stream)},
                                       {DNNL_ARG_SRC, bind(x, st, 4, ctx.input(1).raw(), true, stream)},
                                       {DNNL_ARG_DIFF_WEIGHTS, bind(dw, st, 5, dw_data, false, stream)},
                                       {DNNL_ARG_DIFF_BIAS, wrap(bias_md, db)},
                                       {DNNL_ARG_SCRATCHPAD, scratchpad(weights_scratch_md)}});
        unstage(dw, st, 5, dw_data, stream);
      }
      stream.wait();
    });
  }
  std::unique_ptr<KernelState> make_state(KernelContext&) const override {
    auto st = std::make_unique<TrainConvState>();
    st->buffers.resize(6);
    return st;
  }
  size_t scratchpad_bytes() const override {
    return std::max(data_scratch_md.get_size(), weights_scratch_md.get_size());
  }
};

bool all_f32(const std::vector<ValueInfo>& infos) {
  for (const ValueInfo& v : infos)
    if (v.dtype != DType::kUndefined && v.dtype != DType::kFloat32) return false;
  return true;
}

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_runtime_weight_conv_kernel(const KernelRequest& request) {
  const auto& in = request.inputs;
  if (in.size() < 2 || request.outputs.empty() || !all_f32(in) || !all_f32(request.outputs))
    return std::unique_ptr<CompiledKernel>();
  const auto x = static_shape(in[0]), w = static_shape(in[1]), y = static_shape(request.outputs[0]);
  if (!x || !w || !y) return std::unique_ptr<CompiledKernel>();
  auto setup = conv_setup(request.node, *x, *w, *y);
  if (!setup) return std::unique_ptr<CompiledKernel>();
  auto k = std::make_unique<RuntimeWeightConvKernel>();
  k->has_bias = in.size() > 2 && in[2].dtype != DType::kUndefined;
  auto pd = try_create([&] { return forward_pd(*setup, k->has_bias); });
  if (!pd) return std::unique_ptr<CompiledKernel>();
  k->prim = dnnl::convolution_forward(*pd);
  k->scratchpad_md = pd->scratchpad_desc();
  k->bias_md = setup->bias_plain;
  k->x = Staged::make(setup->x_plain, pd->src_desc(), true, false);
  k->w = Staged::make(setup->w_plain, pd->weights_desc(), true, false);
  k->y = Staged::make(setup->y_plain, pd->dst_desc(), false, true);
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

Result<std::unique_ptr<CompiledKernel>> make_conv_grad_kernel(const KernelRequest& request) {
  const auto& in = request.inputs;
  const auto& out = request.outputs;
  if (in.size() != 3 || out.size() != 3 || !all_f32(in) || !all_f32(out)) return std::unique_ptr<CompiledKernel>();
  const auto dy = static_shape(in[0]), x = static_shape(in[1]), w = static_shape(in[2]);
  if (!dy || !x || !w) return std::unique_ptr<CompiledKernel>();
  auto setup = conv_setup(request.node, *x, *w, *dy);
  if (!setup) return std::unique_ptr<CompiledKernel>();
  auto k = std::make_unique<ConvGradKernel>();
  k->want_dx = request.node.outputs[0] >= 0;
  k->want_dw = request.node.outputs[1] >= 0;
  k->want_db = request.node.outputs[2] >= 0;
  k->bias_md = setup->bias_plain;
  auto hint = try_create([&] { return forward_pd(*setup, true); });
  if (!hint) return std::unique_ptr<CompiledKernel>();
  if (k->want_dx) {
    auto pd = try_create([&] {
      dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, setup->x_any, setup->w_any,
                                              setup->y_any, setup->strides, setup->dilations, setup->pad_l,
                                              setup->pad_r);
      return dnnl::convolution_backward_data::primitive_desc(d, make_attr(dnnl::post_ops()), cpu_engine(), *hint);
    });
    if (!pd) return std::unique_ptr<CompiledKernel>();
    k->data_prim = dnnl::convolution_backward_data(*pd);
    k->data_scratch_md = pd->scratchpad_desc();
    k->dy_data = Staged::make(setup->y_plain, pd->diff_dst_desc(), true, false);
    k->w = Staged::make(setup->w_plain, pd->weights_desc(), true, false);
    k->dx = Staged::make(setup->x_plain, pd->diff_src_desc(), false, true);
  }
  if (k->want_dw || k->want_db) {
    auto pd = try_create([&] {
      dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, setup->x_any, setup->w_any,
                                                 setup->bias_plain, setup->y_any, setup->strides, setup->dilations,
                                                 setup->pad_l, setup->pad_r);
      return dnnl::convolution_backward_weights::primitive_desc(d, make_attr(dnnl::post_ops()), cpu_engine(), *hint);
    });
    if (!pd) return std::unique_ptr<CompiledKernel>();
    k->weights_prim = dnnl::convolution_backward_weights(*pd);
    k->weights_scratch_md = pd->scratchpad_desc();
    k->dy_weights = Staged::make(setup->y_plain, pd->diff_dst_desc(), true, false);
    k->x = Staged::make(setup->x_plain, pd->src_desc(), true, false);
    k->dw = Staged::make(setup->w_plain, pd->diff_weights_desc(), false, true);
  }
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

}  // namespace openge::onednn
