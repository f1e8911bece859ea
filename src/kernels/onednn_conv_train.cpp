// Convolutions of training graphs on oneDNN: the forward primitive for weights that are an input
// (they change every step, so nothing is packed at compile time) and ConvGrad on the backward-data
// and backward-weights primitives. Tensors arrive and leave in ONNX's plain layouts (NCHW, OIHW);
// each primitive runs on the layouts oneDNN prefers (format `any`), with reorders around it into
// buffers each run state owns. Weights held in a primitive's layout between steps
// (kWeightFormatAttr, variable_format_optimize) arrive and leave in that layout instead.
#include "kernels/onednn_conv_train.h"

#include <oneapi/dnnl/dnnl_debug.h>

#include <atomic>
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
  // w_plain: the weights as the graph holds them (OIHW, or the node's kWeightFormatAttr layout).
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
  const int64_t held = node.attrs.get_int(kWeightFormatAttr, -1);
  if (held >= 0) {
    dnnl::memory::desc in_format(w_dims, f32, static_cast<tag>(held), true);
    if (in_format.get_size() != s.w_plain.get_size()) return std::nullopt;
    s.w_plain = in_format;
  }
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

std::atomic<int64_t> g_weight_reorders{0};

void count_weight_reorder(const Staged& s) {
  if (s.staged()) g_weight_reorders.fetch_add(1, std::memory_order_relaxed);
}

// The chosen-layout copies live in the calling thread's buffers (thread_buffer's training staging
// slots), shared by every training convolution that runs on the thread (one at a time): the
// process holds the largest copy of each slot, not one copy per node (a ResNet-18 step has 40
// convolution kernels). Slot 0 holds X or dY, slot 1 W or X, slot 2 Y, dX or dW.
void* staging_buffer(size_t slot, size_t bytes) { return thread_buffer(kTrainingStagingSlot + slot, bytes); }

// The memory a primitive reads or writes for tensor `data` (plain) through slot `slot`: the
// tensor itself, or the slot's buffer (filled from the tensor first when `read`).
dnnl::memory bind(const Staged& s, size_t slot, const void* data, bool read, dnnl::stream& stream) {
  dnnl::memory plain = wrap(s.plain, data);
  if (!s.staged()) return plain;
  dnnl::memory chosen = wrap(s.chosen, staging_buffer(slot, s.chosen.get_size()));
  if (read) s.to_chosen->execute(stream, plain, chosen);
  return chosen;
}

void unstage(const Staged& s, dnnl::memory chosen, void* data, dnnl::stream& stream) {
  if (!s.staged()) return;
  dnnl::memory plain = wrap(s.plain, data);
  s.to_plain->execute(stream, chosen, plain);
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
    return guarded(ctx, [&] {
      dnnl::stream& stream = thread_stream();
      const dnnl::memory dst = bind(y, 2, ctx.output(0).raw(), false, stream);
      std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, bind(x, 0, ctx.input(0).raw(), true, stream)},
                                                 {DNNL_ARG_WEIGHTS, bind(w, 1, ctx.input(1).raw(), true, stream)},
                                                 {DNNL_ARG_DST, dst},
                                                 {DNNL_ARG_SCRATCHPAD, scratchpad(scratchpad_md)}};
      if (has_bias) args.emplace(DNNL_ARG_BIAS, wrap(bias_md, ctx.input(2).raw()));
      count_weight_reorder(w);
      prim.execute(stream, args);
      unstage(y, dst, ctx.output(0).raw(), stream);
      stream.wait();
    });
  }
  size_t scratchpad_bytes() const override { return scratchpad_md.get_size(); }
};

class ConvGradKernel final : public OneDnnKernel {
 public:
  std::optional<dnnl::convolution_backward_data> data_prim;
  std::optional<dnnl::convolution_backward_weights> weights_prim;
  dnnl::memory::desc data_scratch_md, weights_scratch_md, bias_md;
  // Staging slots: backward data 0 dY, 1 W, 2 dX; backward weights 0 dY, 1 X, 2 dW.
  Staged dy_data, w, dx, dy_weights, x, dw;
  bool want_dx = false, want_dw = false, want_db = false;

  Status run(KernelContext& ctx) const override {
    return guarded(ctx, [&] {
      dnnl::stream& stream = thread_stream();
      const void* dy = ctx.input(0).raw();
      // dY staged for backward data stays in slot 0 for backward weights when both want its layout.
      bool dy_staged = false;
      if (want_dx) {
        const dnnl::memory diff_src = bind(dx, 2, ctx.output(0).raw(), false, stream);
        data_prim->execute(stream, {{DNNL_ARG_DIFF_DST, bind(dy_data, 0, dy, true, stream)},
                                    {DNNL_ARG_WEIGHTS, bind(w, 1, ctx.input(2).raw(), true, stream)},
                                    {DNNL_ARG_DIFF_SRC, diff_src},
                                    {DNNL_ARG_SCRATCHPAD, scratchpad(data_scratch_md)}});
        unstage(dx, diff_src, ctx.output(0).raw(), stream);
        count_weight_reorder(w);
        dy_staged = dy_data.staged();
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
        const bool reuse_dy = dy_staged && dy_weights.staged() && dy_weights.chosen == dy_data.chosen;
        const dnnl::memory diff_weights = bind(dw, 2, dw_data, false, stream);
        weights_prim->execute(stream, {{DNNL_ARG_DIFF_DST, bind(dy_weights, 0, dy, !reuse_dy, stream)},
                                       {DNNL_ARG_SRC, bind(x, 1, ctx.input(1).raw(), true, stream)},
                                       {DNNL_ARG_DIFF_WEIGHTS, diff_weights},
                                       {DNNL_ARG_DIFF_BIAS, wrap(bias_md, db)},
                                       {DNNL_ARG_SCRATCHPAD, scratchpad(weights_scratch_md)}});
        unstage(dw, diff_weights, dw_data, stream);
        if (want_dw) count_weight_reorder(dw);
      }
      stream.wait();
    });
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

std::optional<int64_t> preferred_runtime_weight_format(const Node& node, const Shape& x, const Shape& w,
                                                       const Shape& y) {
  if (node.attrs.has(kWeightFormatAttr)) return std::nullopt;
  auto setup = conv_setup(node, x, w, y);
  if (!setup) return std::nullopt;
  auto pd = try_create([&] { return forward_pd(*setup, node.inputs.size() > 2 && node.inputs[2] >= 0); });
  if (!pd) return std::nullopt;
  const dnnl::memory::desc chosen = pd->weights_desc();
  if (chosen == setup->w_plain || chosen.get_size() != setup->w_plain.get_size()) return std::nullopt;
  // The tag that describes `chosen`: oneDNN's descriptors hold strides, not tags.
  for (int t = 1; t < static_cast<int>(dnnl_format_tag_last); ++t) {
    dnnl::memory::desc candidate(chosen.dims(), chosen.data_type(), static_cast<tag>(t), true);
    if (candidate == chosen) return t;
  }
  return std::nullopt;
}

Status convert_weight_layout(const Node& node, const Shape& w, int64_t format, const void* src, void* dst,
                             bool to_plain) {
  const int64_t group = node.attrs.get_int("group", 1);
  if (w.size() != 4 || group < 1 || w[0] % group != 0)
    return invalid_argument("convolution weights " + shape_to_string(w) + " of node '" + node.name +
                            "' have no kernel layout");
  const auto f32 = dnnl::memory::data_type::f32;
  const dnnl::memory::dims dims = group > 1 ? dnnl::memory::dims{group, w[0] / group, w[1], w[2], w[3]} : to_dims(w);
  const dnnl::memory::desc plain(dims, f32, group > 1 ? tag::goihw : tag::oihw);
  const dnnl::memory::desc held(dims, f32, static_cast<tag>(format), true);
  if (held.get_size() != plain.get_size())
    return invalid_argument("weight format " + weight_format_name(format) + " does not hold the weights " +
                            shape_to_string(w) + " of node '" + node.name + "' without padding");
  try {
    const dnnl::memory::desc& from = to_plain ? held : plain;
    const dnnl::memory::desc& to = to_plain ? plain : held;
    dnnl::stream& stream = thread_stream();
    dnnl::memory in = wrap(from, src), out = wrap(to, dst);
    dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), from, cpu_engine(), to)).execute(stream, in, out);
    stream.wait();
  } catch (const dnnl::error& e) {
    return internal_error(std::string("oneDNN: reordering the weights of '") + node.name + "': " + e.what());
  }
  return Status::Ok();
}

std::string weight_format_name(int64_t format) {
  const char* name = dnnl_fmt_tag2str(static_cast<dnnl_format_tag_t>(format));
  return name ? name : std::to_string(format);
}

int64_t weight_reorders_run() { return g_weight_reorders.load(std::memory_order_relaxed); }

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
