// Signal processing (opset 17): HannWindow HammingWindow BlackmanWindow, MelWeightMatrix, DFT
// and STFT. Complex tensors are real tensors with a trailing dim of 2 (real, imaginary), as
// ONNX defines them. Sizes come from data (window size, mel bins, DFT length), so every output
// shape goes through generated_size_error before anything is allocated.
//
// The DFT is computed directly (O(n^2) per transformed line) in double, with twiddle factors
// taken from a table indexed by (j * k) mod n so that large products do not lose precision.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ops/elementwise/elementwise_common.h"
#include "ops/generated_size.h"
#include "ops/shape/shape_util.h"

namespace openge {
namespace {

using elementwise::convert_value;
using elementwise::dtype_bit;
using elementwise::kFloatTypes;
using elementwise::kIntTypes;
using elementwise::kNumericTypes;
using elementwise::visit_dtype_in;

constexpr double kPi = std::numbers::pi;

// The output_datatype attribute (default float32), which must be a numeric type.
Result<DType> output_datatype(const Attributes& attrs) {
  const int64_t n = attrs.get_int("output_datatype", static_cast<int64_t>(DType::kFloat32));
  const DType t = static_cast<DType>(n);
  if (n < 0 || n > 31 || (kNumericTypes & dtype_bit(t)) == 0)
    return invalid_model("output_datatype " + std::to_string(n) + " is not a numeric type");
  return t;
}

// A scalar (or one-element) integer input's value.
Result<int64_t> scalar_int(const Tensor& t, const char* what) {
  if (t.numel() != 1 || !dtype_is_integer(t.dtype()))
    return invalid_argument(std::string(what) + " must be an integer scalar, got " + dtype_name(t.dtype()) + " " +
                            shape_to_string(t.shape()));
  return t.scalar_as_int(0);
}

// Fills `out` (any numeric dtype) with f(i) for i in [0, n).
template <class F>
bool fill_numeric(Tensor& out, F f) {
  return visit_dtype_in<kNumericTypes>(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) p[i] = convert_value<T>(f(i));
  });
}

// ---- Windows -----------------------------------------------------------------------------

// A generalised cosine window: w[n] = sum_k (-1)^k a_k cos(2 pi k n / N), N = size when
// periodic (the default), size - 1 when symmetric.
struct CosineWindow {
  const char* op;
  double a0, a1, a2;
};
constexpr CosineWindow kWindows[] = {
    {"HannWindow", 0.5, 0.5, 0.0},
    {"HammingWindow", 25.0 / 46.0, 21.0 / 46.0, 0.0},
    {"BlackmanWindow", 0.42, 0.5, 0.08},
};
const CosineWindow* window_of(const std::string& op) {
  for (const CosineWindow& w : kWindows)
    if (op == w.op) return &w;
  return nullptr;
}

Status window_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, dtype_bit(DType::kInt32) | dtype_bit(DType::kInt64)));
  Result<DType> dt = output_datatype(ctx.attrs());
  if (!dt.ok()) return ctx.error(dt.status().message());
  const Tensor* size = ctx.input_value(0);
  if (!size) {
    ctx.set_output_dtype(0, *dt);
    return Status::Ok();
  }
  Result<int64_t> n = scalar_int(*size, "size");
  if (!n.ok()) return ctx.error(n.status().message());
  if (*n < 0) return ctx.error("size must not be negative, got " + std::to_string(*n));
  if (auto err = generated_size_error({*n}, *dt)) return ctx.error("output " + *err);
  ctx.set_output(0, *dt, {*n});
  return Status::Ok();
}

Status window_kernel(KernelContext& ctx) {
  const CosineWindow* w = window_of(ctx.node().op_type);
  Tensor& y = ctx.output(0);
  if (!w) return ctx.error("not a window op");
  const bool periodic = ctx.attrs().get_int("periodic", 1) != 0;
  const int64_t size = y.numel();
  const double n_div = static_cast<double>(periodic ? size : size - 1);
  const bool ok = fill_numeric(y, [&](int64_t i) {
    if (n_div <= 0) return 1.0;  // a symmetric window of one point
    const double x = 2.0 * kPi * static_cast<double>(i) / n_div;
    return w->a0 - w->a1 * std::cos(x) + w->a2 * std::cos(2.0 * x);
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported output dtype ") + dtype_name(y.dtype()));
}

// ---- MelWeightMatrix ---------------------------------------------------------------------

// Inputs num_mel_bins, dft_length, sample_rate (integers), lower_edge_hertz,
// upper_edge_hertz (floats); output [dft_length / 2 + 1, num_mel_bins] of triangular filters.
// The band edges follow ONNX's reference (and ONNX Runtime): num_mel_bins + 2 points spaced by
// (high_mel - low_mel) / (num_mel_bins + 2) on the mel scale, each mapped to the spectrogram
// bin floor((dft_length + 1) * hz / sample_rate).
struct MelParams {
  int64_t bins = 0, dft_length = 0, sample_rate = 0;
  double lower = 0, upper = 0;
};

Result<MelParams> mel_params(const Tensor* const in[5]) {
  MelParams p;
  Result<int64_t> bins = scalar_int(*in[0], "num_mel_bins");
  Result<int64_t> dft = scalar_int(*in[1], "dft_length");
  Result<int64_t> rate = scalar_int(*in[2], "sample_rate");
  for (const auto* r : {&bins, &dft, &rate})
    if (!r->ok()) return r->status();
  p.bins = *bins;
  p.dft_length = *dft;
  p.sample_rate = *rate;
  if (in[3]->numel() != 1 || in[4]->numel() != 1)
    return invalid_argument("lower_edge_hertz and upper_edge_hertz must be scalars");
  p.lower = in[3]->scalar_as_double(0);
  p.upper = in[4]->scalar_as_double(0);
  if (p.bins <= 0 || p.dft_length <= 0 || p.sample_rate <= 0)
    return invalid_argument("num_mel_bins, dft_length and sample_rate must be positive");
  if (!(p.lower >= 0 && p.lower <= p.upper && std::isfinite(p.upper)))
    return invalid_argument("need 0 <= lower_edge_hertz <= upper_edge_hertz (finite)");
  return p;
}

Status mel_infer(InferContext& ctx) {
  for (size_t i = 0; i < 3; ++i) OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, i, kIntTypes));
  for (size_t i = 3; i < 5; ++i) OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, i, kFloatTypes));
  Result<DType> dt = output_datatype(ctx.attrs());
  if (!dt.ok()) return ctx.error(dt.status().message());
  const Tensor* in[5];
  for (size_t i = 0; i < 5; ++i) {
    in[i] = ctx.input_value(i);
    if (!in[i]) {
      ctx.set_output_dtype(0, *dt);
      return Status::Ok();
    }
  }
  Result<MelParams> p = mel_params(in);
  if (!p.ok()) return ctx.error(p.status().message());
  const Shape out = {p->dft_length / 2 + 1, p->bins};
  if (auto err = generated_size_error(out, *dt)) return ctx.error("output " + *err);
  ctx.set_output(0, *dt, out);
  return Status::Ok();
}

Status mel_kernel(KernelContext& ctx) {
  const Tensor* in[5];
  for (size_t i = 0; i < 5; ++i) in[i] = &ctx.input(i);
  Result<MelParams> pr = mel_params(in);
  if (!pr.ok()) return ctx.error(pr.status().message());
  const MelParams& p = *pr;
  const int64_t spectrogram_bins = p.dft_length / 2 + 1;
  Tensor& y = ctx.output(0);
  if (y.numel() != spectrogram_bins * p.bins) return ctx.error("output shape does not match the inputs");
  auto hz_to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double low_mel = hz_to_mel(p.lower), high_mel = hz_to_mel(p.upper);
  const double step = (high_mel - low_mel) / static_cast<double>(p.bins + 2);
  std::vector<int64_t> edge(static_cast<size_t>(p.bins + 2));
  for (size_t i = 0; i < edge.size(); ++i) {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + low_mel) / 2595.0) - 1.0);
    edge[i] = static_cast<int64_t>(
        std::floor(static_cast<double>(p.dft_length + 1) * hz / static_cast<double>(p.sample_rate)));
  }
  std::vector<double> w(static_cast<size_t>(y.numel()), 0.0);
  // Bins outside the spectrogram (an upper edge above Nyquist) are dropped, never written.
  auto set = [&](int64_t row, int64_t col, double v) {
    if (row >= 0 && row < spectrogram_bins) w[static_cast<size_t>(row * p.bins + col)] = v;
  };
  for (int64_t i = 0; i < p.bins; ++i) {
    const int64_t left = edge[static_cast<size_t>(i)], center = edge[static_cast<size_t>(i + 1)],
                  right = edge[static_cast<size_t>(i + 2)];
    if (center == left)
      set(center, i, 1.0);
    else
      for (int64_t j = left; j <= center; ++j)
        set(j, i, static_cast<double>(j - left) / static_cast<double>(center - left));
    if (right > center)
      for (int64_t j = center; j < right; ++j)
        set(j, i, static_cast<double>(right - j) / static_cast<double>(right - center));
  }
  const bool ok = fill_numeric(y, [&](int64_t i) { return w[static_cast<size_t>(i)]; });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported output dtype ") + dtype_name(y.dtype()));
}

// ---- DFT core ------------------------------------------------------------------------------

// One transform of length n over `in_len` complex input points (zero-padded or truncated to
// n); writes out_len output points. inverse scales by 1/n.
class Dft {
 public:
  Dft(int64_t n, bool inverse) : n_(n), inverse_(inverse), cos_(static_cast<size_t>(n)), sin_(static_cast<size_t>(n)) {
    for (int64_t k = 0; k < n; ++k) {
      const double a = 2.0 * kPi * static_cast<double>(k) / static_cast<double>(n);
      cos_[static_cast<size_t>(k)] = std::cos(a);
      sin_[static_cast<size_t>(k)] = (inverse ? 1.0 : -1.0) * std::sin(a);
    }
  }
  // in: in_len points (re, im) with stride in_stride points; out: out_len points, out_stride.
  void run(const double* re, const double* im, int64_t in_len, int64_t in_stride, double* out_re, double* out_im,
           int64_t out_len, int64_t out_stride) const {
    const int64_t len = std::min(in_len, n_);
    const double scale = inverse_ ? 1.0 / static_cast<double>(n_) : 1.0;
    for (int64_t k = 0; k < out_len; ++k) {
      double sr = 0, si = 0;
      int64_t idx = 0;  // (j * k) mod n, advanced by k each step
      for (int64_t j = 0; j < len; ++j) {
        const double c = cos_[static_cast<size_t>(idx)], s = sin_[static_cast<size_t>(idx)];
        const double xr = re[j * in_stride], xi = im ? im[j * in_stride] : 0.0;
        sr += xr * c - xi * s;
        si += xr * s + xi * c;
        idx += k % n_;
        if (idx >= n_) idx -= n_;
      }
      out_re[k * out_stride] = sr * scale;
      out_im[k * out_stride] = si * scale;
    }
  }

 private:
  int64_t n_;
  bool inverse_;
  std::vector<double> cos_, sin_;
};

// ---- DFT -----------------------------------------------------------------------------------

// DFT(input [batch, ..., n, ..., 1|2], dft_length?) along `axis` (default 1; never the last,
// complex dim). onesided keeps n/2+1 outputs (real input only); inverse scales by 1/n.
struct DftPlan {
  int64_t axis = 1, n = 0, out_len = 0;
  bool inverse = false, onesided = false;
  Shape out;
};

Result<DftPlan> dft_plan(const Node& node, const Shape& in, const Tensor* length) {
  DftPlan p;
  const int64_t rank = static_cast<int64_t>(in.size());
  if (rank < 2 || (in.back() != 1 && in.back() != 2))
    return invalid_argument("input must be [batch, ..., 1 or 2], got " + shape_to_string(in));
  const std::optional<int64_t> axis = normalize_axis(node.attrs.get_int("axis", 1), rank);
  if (!axis || *axis == rank - 1)
    return invalid_argument("axis " + std::to_string(node.attrs.get_int("axis", 1)) + " must name a signal dim of " +
                            shape_to_string(in));
  p.axis = *axis;
  p.inverse = node.attrs.get_int("inverse", 0) != 0;
  p.onesided = node.attrs.get_int("onesided", 0) != 0;
  if (p.onesided && in.back() == 2) return invalid_argument("onesided needs a real input (last dim 1)");
  p.n = in[static_cast<size_t>(p.axis)];
  if (length) {
    Result<int64_t> n = scalar_int(*length, "dft_length");
    if (!n.ok()) return n.status();
    p.n = *n;
  }
  if (p.n <= 0) return invalid_argument("the DFT length must be positive, got " + std::to_string(p.n));
  p.out_len = p.onesided ? p.n / 2 + 1 : p.n;
  p.out = in;
  p.out[static_cast<size_t>(p.axis)] = p.out_len;
  p.out.back() = 2;
  return p;
}

Status dft_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kFloatTypes));
  if (ctx.has_input(1))
    OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 1, dtype_bit(DType::kInt32) | dtype_bit(DType::kInt64)));
  const DType dt = ctx.input_dtype(0);
  if (!ctx.input_shape_known(0) || (ctx.has_input(1) && !ctx.input_value(1))) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  for (int64_t d : ctx.input_shape(0))
    if (d < 0) {
      ctx.set_output_dtype(0, dt);
      return Status::Ok();
    }
  Result<DftPlan> p = dft_plan(ctx.node(), ctx.input_shape(0), ctx.has_input(1) ? ctx.input_value(1) : nullptr);
  if (!p.ok()) return ctx.error(p.status().message());
  if (auto err = generated_size_error(p->out, dt)) return ctx.error("output " + *err);
  ctx.set_output(0, dt, p->out);
  return Status::Ok();
}

// Converts a float tensor of any float type to double (re/im interleaved as stored).
std::vector<double> to_double(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  visit_dtype_in<kFloatTypes>(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(t.data<T>()[i]);
  });
  return v;
}

bool store_double(Tensor& t, const std::vector<double>& v) {
  return visit_dtype_in<kFloatTypes>(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < v.size(); ++i) t.data<T>()[i] = convert_value<T>(v[i]);
  });
}

Status dft_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  Result<DftPlan> pr = dft_plan(ctx.node(), x.shape(), ctx.has_input(1) ? &ctx.input(1) : nullptr);
  if (!pr.ok()) return ctx.error(pr.status().message());
  const DftPlan& p = *pr;
  if (y.shape() != p.out)
    return ctx.error("output shape " + shape_to_string(y.shape()) + " does not match " + shape_to_string(p.out));
  const std::vector<double> in = to_double(x);
  std::vector<double> out(static_cast<size_t>(y.numel()));
  const int64_t comps = x.shape().back();
  // [outer, axis, inner, comps] views of input and output.
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < x.rank() - 1; ++i)
    if (i < p.axis)
      outer *= x.dim(i);
    else if (i > p.axis)
      inner *= x.dim(i);
  const int64_t in_axis = x.dim(p.axis);
  const Dft dft(p.n, p.inverse);
  parallel_for(outer * inner, p.n * p.out_len * 4, [&](int64_t begin, int64_t end) {
    for (int64_t line = begin; line < end; ++line) {
      const int64_t o = line / inner, i = line % inner;
      const double* src = in.data() + (o * in_axis * inner + i) * comps;
      double* dst = out.data() + (o * p.out_len * inner + i) * 2;
      dft.run(src, comps == 2 ? src + 1 : nullptr, in_axis, inner * comps, dst, dst + 1, p.out_len, inner * 2);
    }
  });
  return store_double(y, out) ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(y.dtype()));
}

// ---- STFT ----------------------------------------------------------------------------------

// STFT(signal [batch, length, 1|2], frame_step, window? [frame_length], frame_length?) ->
// [batch, frames, bins, 2]; frames = 1 + (length - frame_length) / frame_step, bins =
// frame_length / 2 + 1 when onesided (the default; real signals only) else frame_length.
struct StftPlan {
  int64_t step = 0, frame = 0, frames = 0, bins = 0;
  Shape out;
};

Result<StftPlan> stft_plan(const Node& node, const Shape& signal, const Tensor& step, const Shape* window,
                           const Tensor* frame_length) {
  StftPlan p;
  if (signal.size() != 3 || (signal[2] != 1 && signal[2] != 2))
    return invalid_argument("signal must be [batch, length, 1 or 2], got " + shape_to_string(signal));
  Result<int64_t> s = scalar_int(step, "frame_step");
  if (!s.ok()) return s.status();
  p.step = *s;
  if (window) {
    if (window->size() != 1) return invalid_argument("window must be 1-D, got " + shape_to_string(*window));
    p.frame = (*window)[0];
  }
  if (frame_length) {
    Result<int64_t> f = scalar_int(*frame_length, "frame_length");
    if (!f.ok()) return f.status();
    if (window && *f != p.frame)
      return invalid_argument("frame_length " + std::to_string(*f) + " differs from the window's length " +
                              std::to_string(p.frame));
    p.frame = *f;
  }
  if (!window && !frame_length) return invalid_argument("needs a window or a frame_length");
  if (p.step <= 0 || p.frame <= 0 || p.frame > signal[1])
    return invalid_argument("need frame_step > 0 and 0 < frame_length <= signal length " + std::to_string(signal[1]));
  const bool onesided = node.attrs.get_int("onesided", 1) != 0;
  if (onesided && signal[2] == 2) return invalid_argument("onesided needs a real signal (last dim 1)");
  p.frames = 1 + (signal[1] - p.frame) / p.step;
  p.bins = onesided ? p.frame / 2 + 1 : p.frame;
  p.out = {signal[0], p.frames, p.bins, 2};
  return p;
}

Status stft_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kFloatTypes));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 1, dtype_bit(DType::kInt32) | dtype_bit(DType::kInt64)));
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 2, kFloatTypes));
  const DType dt = ctx.input_dtype(0);
  const bool window_ok = !ctx.has_input(2) || ctx.input_shape_known(2);
  const bool length_ok = !ctx.has_input(3) || ctx.input_value(3);
  bool signal_ok = ctx.input_shape_known(0);
  if (signal_ok)
    for (int64_t d : ctx.input_shape(0)) signal_ok = signal_ok && d >= 0;
  if (!signal_ok || !ctx.input_value(1) || !window_ok || !length_ok) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  Result<StftPlan> p =
      stft_plan(ctx.node(), ctx.input_shape(0), *ctx.input_value(1), ctx.has_input(2) ? &ctx.input_shape(2) : nullptr,
                ctx.has_input(3) ? ctx.input_value(3) : nullptr);
  if (!p.ok()) return ctx.error(p.status().message());
  if (auto err = generated_size_error(p->out, dt)) return ctx.error("output " + *err);
  ctx.set_output(0, dt, p->out);
  return Status::Ok();
}

Status stft_kernel(KernelContext& ctx) {
  const Tensor& signal = ctx.input(0);
  const Tensor* window = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  Tensor& y = ctx.output(0);
  Result<StftPlan> pr = stft_plan(ctx.node(), signal.shape(), ctx.input(1), window ? &window->shape() : nullptr,
                                  ctx.has_input(3) ? &ctx.input(3) : nullptr);
  if (!pr.ok()) return ctx.error(pr.status().message());
  const StftPlan& p = *pr;
  if (y.shape() != p.out)
    return ctx.error("output shape " + shape_to_string(y.shape()) + " does not match " + shape_to_string(p.out));
  const std::vector<double> in = to_double(signal);
  const std::vector<double> win = window ? to_double(*window) : std::vector<double>(static_cast<size_t>(p.frame), 1.0);
  const int64_t comps = signal.dim(2), length = signal.dim(1);
  std::vector<double> out(static_cast<size_t>(y.numel()));
  const Dft dft(p.frame, false);
  parallel_for(signal.dim(0) * p.frames, p.frame * p.bins * 4, [&](int64_t begin, int64_t end) {
    std::vector<double> re(static_cast<size_t>(p.frame)), im(static_cast<size_t>(p.frame));
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / p.frames, f = t % p.frames;
      const double* src = in.data() + (b * length + f * p.step) * comps;
      for (int64_t j = 0; j < p.frame; ++j) {
        re[static_cast<size_t>(j)] = src[j * comps] * win[static_cast<size_t>(j)];
        im[static_cast<size_t>(j)] = comps == 2 ? src[j * comps + 1] * win[static_cast<size_t>(j)] : 0.0;
      }
      double* dst = out.data() + t * p.bins * 2;
      dft.run(re.data(), im.data(), p.frame, 1, dst, dst + 1, p.bins, 2);
    }
  });
  return store_double(y, out) ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(y.dtype()));
}

}  // namespace

void register_signal_ops(std::vector<OpSchema>& table) {
  for (const CosineWindow& w : kWindows)
    table.push_back(OpSchema{w.op, 1, 1, 1, 1, &window_infer, &window_kernel, false});
  table.push_back(OpSchema{"MelWeightMatrix", 5, 5, 1, 1, &mel_infer, &mel_kernel, false});
  table.push_back(OpSchema{"DFT", 1, 2, 1, 1, &dft_infer, &dft_kernel, false});
  table.push_back(OpSchema{"STFT", 2, 4, 1, 1, &stft_infer, &stft_kernel, false});
}

}  // namespace openge
