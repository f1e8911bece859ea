#include "kernels/fused_attention_kernel.h"

#include <algorithm>
#include <vector>

#include "base/parallel.h"
#include "kernels/onednn_common.h"
#include "ops/fused/fused_attention.h"
#include "ops/math/math_exp.h"
#include "ops/shape/shape_util.h"

namespace openge::onednn {
namespace {

// One slice's scores, per thread, grown to the largest slice. Not a thread_buffer() slot: under a
// fp16/bf16 mode this kernel runs inside WidenedKernel, whose float32 operands occupy that
// thread's kWidenedSlot while the scores are written.
float* scores_buffer(size_t floats) {
  thread_local std::vector<float> scores;
  if (scores.size() < floats) scores.resize(floats);
  return scores.data();
}

class FusedAttentionKernel final : public OneDnnKernel {
 public:
  int64_t slices = 1, lq = 0, d = 0, lk = 0, dv = 0;
  float scale = 1.0f;
  bool has_mask = false;
  Shape lead;                         // the leading (batch, head) dims
  std::vector<int64_t> mask_strides;  // per scores axis (ops/fused/fused_attention.h)

  Status run(KernelContext& ctx) const override {
    const float* q = ctx.input(0).data<float>();
    const float* kt = ctx.input(1).data<float>();
    const float* v = ctx.input(2).data<float>();
    const float* mask = has_mask ? ctx.input(3).data<float>() : nullptr;
    float* y = ctx.output(0).data<float>();
    const size_t r = lead.size() + 2;
    parallel_for(slices, 2 * lq * lk * (d + dv), [&](int64_t begin, int64_t end) {
      float* s = scores_buffer(static_cast<size_t>(lq * lk));
      for (int64_t b = begin; b < end; ++b) {
        dnnl_sgemm('N', 'N', lq, lk, d, scale, q + b * lq * d, d, kt + b * d * lk, lk, 0.0f, s, lk);
        int64_t moff = 0;
        for (int64_t rest = b, a = static_cast<int64_t>(lead.size()) - 1; a >= 0; --a) {
          moff += (rest % lead[static_cast<size_t>(a)]) * mask_strides[static_cast<size_t>(a)];
          rest /= lead[static_cast<size_t>(a)];
        }
        for (int64_t i = 0; i < lq; ++i) {
          float* row = s + i * lk;
          if (mask) {
            const float* mrow = mask + moff + i * mask_strides[r - 2];
            const int64_t step = mask_strides[r - 1];
            for (int64_t j = 0; j < lk; ++j) row[j] += mrow[j * step];
          }
          float m = row[0];
          for (int64_t j = 1; j < lk; ++j) m = std::max(m, row[j]);
          exp_shifted_row(row, row, lk, m);
          float sum = 0;
          for (int64_t j = 0; j < lk; ++j) sum += row[j];
          const float inv = 1.0f / sum;
          for (int64_t j = 0; j < lk; ++j) row[j] *= inv;
        }
        dnnl_sgemm('N', 'N', lq, dv, lk, 1.0f, s, lk, v + b * lk * dv, dv, 0.0f, y + b * lq * dv, dv);
      }
    });
    return Status::Ok();
  }
};

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_fused_attention_kernel(const KernelRequest& request) {
  if (request.inputs.size() < 3 || request.outputs.empty()) return std::unique_ptr<CompiledKernel>();
  const bool has_mask = request.inputs.size() > 3 && request.inputs[3].dtype != DType::kUndefined;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < (has_mask ? 4u : 3u); ++i) {
    const auto s = static_shape(request.inputs[i]);
    if (!s || request.inputs[i].dtype != DType::kFloat32) return std::unique_ptr<CompiledKernel>();
    shapes.push_back(*s);
  }
  const Shape& q = shapes[0];
  const size_t r = q.size();
  if (r < 2 || shapes[1].size() != r || shapes[2].size() != r) return std::unique_ptr<CompiledKernel>();
  auto k = std::make_unique<FusedAttentionKernel>();
  k->lead.assign(q.begin(), q.end() - 2);
  for (int64_t dim : k->lead) k->slices *= dim;
  k->lq = q[r - 2];
  k->d = q[r - 1];
  k->lk = shapes[1][r - 1];
  k->dv = shapes[2][r - 1];
  // Empty operands are the reference kernel's business.
  if (k->slices == 0 || k->lq == 0 || k->d == 0 || k->lk == 0 || k->dv == 0) return std::unique_ptr<CompiledKernel>();
  k->scale = request.node.attrs.get_float("scale", 1.0f);
  Shape scores = q;
  scores[r - 1] = k->lk;
  k->mask_strides.assign(r, 0);
  if (has_mask) {
    if (!mask_fits(shapes[3], scores)) return std::unique_ptr<CompiledKernel>();
    k->mask_strides = broadcast_strides(shapes[3], scores);
    k->has_mask = true;
  }
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

}  // namespace openge::onednn
