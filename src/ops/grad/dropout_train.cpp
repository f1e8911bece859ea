// Dropout in a training step (domain "openge"): what autodiff puts in place of an ONNX Dropout
// whose training_mode is on with a ratio above 0.
//   TrainingDropout(X, step_seed) -> Y, mask      attributes ratio, salt
//   DropoutGrad(dY, mask) -> dX                   attribute ratio
// step_seed is two int64: the step's seed and the index of X's first sample in the global batch.
// Element i is kept when a hash of (salt, seed, the element's index in the global batch) is at
// least ratio; Y = X / (1 - ratio) where kept, 0 elsewhere. The mask depends on nothing else: not
// on threads or chunking, so a deterministic run and a run resumed from a checkpoint draw the same
// masks as the uninterrupted one (the Trainer feeds the seed from its seed and step count; salt
// tells the nodes apart), and data-parallel ranks, each giving its shard's first sample, draw
// together the mask one process draws for the whole batch (X's first axis being the batch).
#include <cstdint>

#include "base/parallel.h"
#include "ir/dispatch.h"
#include "ops/grad/grad_ops.h"
#include "ops/nn/nn_common.h"

namespace openge {
namespace {

// splitmix64's finaliser: a counter hashed to 64 well-mixed bits.
inline uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Result<float> ratio_of(const Attributes& attrs, const std::string& node) {
  const float ratio = attrs.get_float("ratio", 0.5f);
  if (!(ratio >= 0.0f && ratio < 1.0f))
    return invalid_argument("node '" + node + "': dropout ratio must be in [0, 1), got " + std::to_string(ratio));
  return ratio;
}

Status infer_training_dropout(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "X"));
  if (ctx.input_dtype(1) != DType::kInt64) return ctx.error("step_seed must be two int64 values");
  if (auto r = ratio_of(ctx.attrs(), ctx.node().name); !r.ok()) return r.status();
  const Shape& x = ctx.input_shape(0);
  ctx.set_output(0, ctx.input_dtype(0), x);
  ctx.set_output(1, DType::kBool, x);
  return Status::Ok();
}

Status training_dropout_kernel(KernelContext& ctx) {
  auto ratio = ratio_of(ctx.attrs(), ctx.node().name);
  if (!ratio.ok()) return ratio.status();
  const Tensor& x = ctx.input(0);
  if (ctx.input(1).numel() != 2) return ctx.error("step_seed must be two int64 values: the seed and the first sample");
  const int64_t* seed = ctx.input(1).data<int64_t>();
  const uint64_t per_sample = x.rank() > 0 && x.dim(0) > 0 ? static_cast<uint64_t>(x.numel() / x.dim(0)) : 0;
  const uint64_t base = mix64(static_cast<uint64_t>(ctx.attrs().get_int("salt", 0)) * 0xD1B54A32D192ED03ull ^
                              static_cast<uint64_t>(seed[0])) +
                        static_cast<uint64_t>(seed[1]) * per_sample;
  // Kept when the hash's top 24 bits are at least ratio * 2^24.
  const uint64_t threshold = static_cast<uint64_t>(static_cast<double>(*ratio) * 16777216.0);
  bool* mask = ctx.output(1).data<bool>();
  Tensor& y = ctx.output(0);
  visit_float_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = nn_acc_t<T>;
    const Acc scale = Acc(1) / (Acc(1) - static_cast<Acc>(*ratio));
    const T* in = x.data<T>();
    T* out = y.data<T>();
    parallel_for(x.numel(), 4, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const bool keep = (mix64(base + static_cast<uint64_t>(i)) >> 40) >= threshold;
        mask[i] = keep;
        out[i] = nn_store<T>(keep ? static_cast<Acc>(static_cast<float_or_self_t<T>>(in[i])) * scale : Acc(0));
      }
    });
  });
  return Status::Ok();
}

Status infer_dropout_grad(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_float_input(ctx, 0, "dY"));
  if (ctx.input_dtype(1) != DType::kBool) return ctx.error("mask must be bool");
  if (auto r = ratio_of(ctx.attrs(), ctx.node().name); !r.ok()) return r.status();
  ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
  return Status::Ok();
}

Status dropout_grad_kernel(KernelContext& ctx) {
  auto ratio = ratio_of(ctx.attrs(), ctx.node().name);
  if (!ratio.ok()) return ratio.status();
  const Tensor& dy = ctx.input(0);
  if (ctx.input(1).numel() != dy.numel()) return ctx.error("mask and dY differ in size");
  const bool* mask = ctx.input(1).data<bool>();
  visit_float_dtype(dy.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = nn_acc_t<T>;
    const Acc scale = Acc(1) / (Acc(1) - static_cast<Acc>(*ratio));
    const T* in = dy.data<T>();
    T* out = ctx.output(0).data<T>();
    parallel_for(dy.numel(), 2, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        out[i] = nn_store<T>(mask[i] ? static_cast<Acc>(static_cast<float_or_self_t<T>>(in[i])) * scale : Acc(0));
    });
  });
  return Status::Ok();
}

}  // namespace

void register_dropout_train_ops(std::vector<OpSchema>& table) {
  table.push_back({"TrainingDropout", 2, 2, 2, 2, infer_training_dropout, training_dropout_kernel});
  table.push_back({"DropoutGrad", 2, 2, 1, 1, infer_dropout_grad, dropout_grad_kernel});
}

}  // namespace openge
