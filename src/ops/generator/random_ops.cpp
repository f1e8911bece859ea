// Random ops: RandomUniform RandomNormal (shape attribute), RandomUniformLike RandomNormalLike
// (input's shape), Bernoulli (one draw per probability) and Multinomial (samples per row of
// unnormalised log-probabilities).
//
// The generator is counter-based: the k-th 64-bit draw of a node is SplitMix64's k-th output
// for the state seed_key, i.e. mix64(seed_key + (k + 1) * 0x9E3779B97F4A7C15) with mix64 the
// SplitMix64 finaliser (Steele, Lea, Flood 2014; the seeding generator of xoshiro). Element i
// of an output always uses draw i (Box-Muller pairs use draws 2*(i/2) and 2*(i/2)+1), so the
// result depends only on the seed and the element's index: the same for any thread count and
// for every run. seed_key = mix64 of the `seed` attribute's double bits. ONNX leaves unseeded
// ops to the runtime: they take a fresh key per run from std::random_device.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "base/parallel.h"
#include "ops/elementwise/elementwise_common.h"
#include "ops/generated_size.h"

namespace openge {
namespace {

using elementwise::convert_value;
using elementwise::dtype_bit;
using elementwise::kAllTypes;
using elementwise::kFloatTypes;
using elementwise::visit_dtype_in;

// ---- The generator ----------------------------------------------------------------------

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class CounterRng {
 public:
  explicit CounterRng(uint64_t key) : key_(key) {}
  uint64_t bits(uint64_t k) const { return mix64(key_ + (k + 1) * kGolden); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform(uint64_t k) const { return static_cast<double>(bits(k) >> 11) * 0x1.0p-53; }
  // Standard normal by Box-Muller: element k is the cosine (even k) or sine (odd k) branch of
  // the pair drawn from uniforms 2*(k/2) and 2*(k/2)+1.
  double normal(uint64_t k) const {
    const uint64_t pair = k & ~uint64_t{1};
    const double u1 = 1.0 - uniform(pair);  // (0, 1]: log never sees 0
    const double u2 = uniform(pair + 1);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    return (k & 1) ? r * std::sin(angle) : r * std::cos(angle);
  }

 private:
  uint64_t key_;
};

CounterRng make_rng(const Attributes& attrs) {
  if (const Attribute* seed = attrs.find("seed"))
    return CounterRng(mix64(std::bit_cast<uint64_t>(static_cast<double>(seed->f))));
  static std::atomic<uint64_t> fresh{std::random_device{}() * kGolden};
  return CounterRng(mix64(fresh.fetch_add(kGolden) ^ std::random_device{}()));
}

// ---- dtype attribute ----------------------------------------------------------------------

// The `dtype` attribute if present (checked against `allowed`), else `fallback`.
Result<DType> dtype_attr(const Attributes& attrs, DType fallback, elementwise::DTypeSet allowed) {
  const DType t = attrs.find("dtype") ? static_cast<DType>(attrs.get_int("dtype", 0)) : fallback;
  const int64_t n = static_cast<int64_t>(t);
  if (n < 0 || n > 31 || (allowed & dtype_bit(t)) == 0)
    return invalid_model("dtype " + std::to_string(n) + " is not allowed here (takes " +
                         elementwise::dtype_set_names(allowed) + ")");
  return t;
}

// ---- RandomUniform / RandomNormal (+Like) ------------------------------------------------

// The parameters of a distribution, read from the attributes.
struct Distribution {
  bool normal = false;
  double a = 0, b = 1;  // uniform: low, high; normal: mean, scale
  static Distribution of(const Node& node) {
    Distribution d;
    d.normal = node.op_type.rfind("RandomNormal", 0) == 0;
    d.a = d.normal ? node.attrs.get_float("mean", 0.0f) : node.attrs.get_float("low", 0.0f);
    d.b = d.normal ? node.attrs.get_float("scale", 1.0f) : node.attrs.get_float("high", 1.0f);
    return d;
  }
  double draw(const CounterRng& rng, uint64_t k) const {
    return normal ? a + b * rng.normal(k) : a + (b - a) * rng.uniform(k);
  }
};

bool is_like_op(const Node& node) { return node.op_type.size() > 4 && node.op_type.ends_with("Like"); }

Status random_infer(InferContext& ctx) {
  const bool like = is_like_op(ctx.node());
  if (like) OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kAllTypes));
  const DType fallback = like ? ctx.input_dtype(0) : DType::kFloat32;
  Result<DType> dt = dtype_attr(ctx.attrs(), fallback, kFloatTypes);
  if (!dt.ok()) return ctx.error(dt.status().message());
  const Distribution d = Distribution::of(ctx.node());
  if (!std::isfinite(d.a) || !std::isfinite(d.b) || (!d.normal && d.a > d.b))
    return ctx.error(d.normal ? "mean and scale must be finite" : "low and high must be finite with low <= high");
  if (like) {
    elementwise::infer_like_input0(ctx, 0, *dt);
    return Status::Ok();
  }
  if (!ctx.attrs().find("shape")) return ctx.error("attribute 'shape' is required");
  const Shape shape = ctx.attrs().get_ints("shape");
  if (auto err = generated_size_error(shape, *dt)) return ctx.error("output " + *err);
  ctx.set_output(0, *dt, shape);
  return Status::Ok();
}

Status random_kernel(KernelContext& ctx) {
  Tensor& y = ctx.output(0);
  const Distribution d = Distribution::of(ctx.node());
  const CounterRng rng = make_rng(ctx.attrs());
  const bool ok = visit_dtype_in<kFloatTypes>(y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* py = y.data<T>();
    parallel_for(y.numel(), 40, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) py[i] = convert_value<T>(d.draw(rng, static_cast<uint64_t>(i)));
    });
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported output dtype ") + dtype_name(y.dtype()));
}

// ---- Bernoulli --------------------------------------------------------------------------

// Output element i is 1 when draw i < p_i (so p = 0 never and p = 1 always gives 1; NaN gives
// 0), in the `dtype` attribute's type (default: the input's).
Status bernoulli_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kFloatTypes));
  Result<DType> dt = dtype_attr(ctx.attrs(), ctx.input_dtype(0), kAllTypes);
  if (!dt.ok()) return ctx.error(dt.status().message());
  elementwise::infer_like_input0(ctx, 0, *dt);
  return Status::Ok();
}

Status bernoulli_kernel(KernelContext& ctx) {
  const Tensor& p = ctx.input(0);
  Tensor& y = ctx.output(0);
  const CounterRng rng = make_rng(ctx.attrs());
  bool ok_out = false;
  const bool ok_in = visit_dtype_in<kFloatTypes>(p.dtype(), [&](auto in_tag) {
    using P = typename decltype(in_tag)::type;
    const P* pp = p.data<P>();
    ok_out = visit_dtype_in<kAllTypes>(y.dtype(), [&](auto out_tag) {
      using T = typename decltype(out_tag)::type;
      T* py = y.data<T>();
      parallel_for(p.numel(), 16, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          py[i] = convert_value<T>(rng.uniform(static_cast<uint64_t>(i)) < static_cast<double>(pp[i]) ? 1 : 0);
      });
    });
  });
  if (!ok_in || !ok_out)
    return ctx.error(std::string("unsupported dtypes ") + dtype_name(p.dtype()) + " -> " + dtype_name(y.dtype()));
  return Status::Ok();
}

// ---- Multinomial ------------------------------------------------------------------------

// Multinomial(input [batch, classes] of unnormalised log-probabilities) -> [batch,
// sample_size] class indices (int32 by default, or int64). Sample s of row b uses draw
// b * sample_size + s and inverts the row's cumulative distribution.
constexpr elementwise::DTypeSet kIndexTypes = dtype_bit(DType::kInt32) | dtype_bit(DType::kInt64);

Status multinomial_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kFloatTypes));
  Result<DType> dt = dtype_attr(ctx.attrs(), DType::kInt32, kIndexTypes);
  if (!dt.ok()) return ctx.error(dt.status().message());
  const int64_t samples = ctx.attrs().get_int("sample_size", 1);
  if (samples < 0) return ctx.error("sample_size must not be negative, got " + std::to_string(samples));
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, *dt);
    return Status::Ok();
  }
  const Shape& in = ctx.input_shape(0);
  if (in.size() != 2) return ctx.error("input must be 2-D [batch_size, class_size], got shape " + shape_to_string(in));
  const Shape out = {in[0], samples};
  if (in[0] >= 0) {
    if (auto err = generated_size_error(out, *dt)) return ctx.error("output " + *err);
  }
  ctx.set_output(0, *dt, out);
  return Status::Ok();
}

Status multinomial_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (x.rank() != 2)
    return ctx.error("input must be 2-D [batch_size, class_size], got shape " + shape_to_string(x.shape()));
  const int64_t batch = x.dim(0), classes = x.dim(1), samples = y.rank() == 2 ? y.dim(1) : 0;
  if (samples > 0 && classes == 0) return ctx.error("cannot sample from zero classes");
  const CounterRng rng = make_rng(ctx.attrs());
  bool ok_out = false;
  const bool ok_in = visit_dtype_in<kFloatTypes>(x.dtype(), [&](auto in_tag) {
    using X = typename decltype(in_tag)::type;
    ok_out = visit_dtype_in<kIndexTypes>(y.dtype(), [&](auto out_tag) {
      using T = typename decltype(out_tag)::type;
      parallel_for(batch, classes * 20 + samples * 8, [&](int64_t begin, int64_t end) {
        std::vector<double> cdf(static_cast<size_t>(classes));
        for (int64_t b = begin; b < end; ++b) {
          const X* row = x.data<X>() + b * classes;
          double m = -INFINITY;
          for (int64_t c = 0; c < classes; ++c) m = std::max(m, static_cast<double>(row[c]));
          double total = 0;
          for (int64_t c = 0; c < classes; ++c) {
            const double v = static_cast<double>(row[c]);
            total += std::isfinite(m) && v == v ? std::exp(v - m) : 0.0;  // NaN / all -inf rows: no mass
            cdf[static_cast<size_t>(c)] = total;
          }
          T* out = y.data<T>() + b * samples;
          for (int64_t s = 0; s < samples; ++s) {
            const double u = rng.uniform(static_cast<uint64_t>(b * samples + s)) * total;
            // First class whose cumulative mass exceeds u; a row without mass gives the last class.
            const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
            out[s] = static_cast<T>(std::min<int64_t>(it - cdf.begin(), classes - 1));
          }
        }
      });
    });
  });
  if (!ok_in || !ok_out)
    return ctx.error(std::string("unsupported dtypes ") + dtype_name(x.dtype()) + " -> " + dtype_name(y.dtype()));
  return Status::Ok();
}

}  // namespace

void register_random_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"RandomUniform", 0, 0, 1, 1, &random_infer, &random_kernel, false, true});
  table.push_back(OpSchema{"RandomNormal", 0, 0, 1, 1, &random_infer, &random_kernel, false, true});
  table.push_back(OpSchema{"RandomUniformLike", 1, 1, 1, 1, &random_infer, &random_kernel, false, true});
  table.push_back(OpSchema{"RandomNormalLike", 1, 1, 1, 1, &random_infer, &random_kernel, false, true});
  table.push_back(OpSchema{"Bernoulli", 1, 1, 1, 1, &bernoulli_infer, &bernoulli_kernel, false, true});
  table.push_back(OpSchema{"Multinomial", 1, 1, 1, 1, &multinomial_infer, &multinomial_kernel, false, true});
}

}  // namespace openge
