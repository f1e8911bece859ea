#include "kernels/bilinear_resize_kernel.h"

#include <algorithm>
#include <vector>

#include "base/parallel.h"
#include "kernels/onednn_common.h"
#include "ops/nn/resize_plan.h"
#include "ops/shape/shape_util.h"

namespace openge {
namespace {

// One resized dim: per output index, the two input indices (times the elements of one step along
// the dim) and their weights.
struct Taps {
  std::vector<int64_t> at0, at1;
  std::vector<float> w0, w1;
};

Taps taps_of(const AxisTable& t, int64_t step) {
  Taps taps;
  for (size_t o = 0; o < t.i0.size(); ++o) {
    taps.at0.push_back(t.i0[o] * step);
    taps.at1.push_back(t.i1[o] * step);
    taps.w0.push_back(static_cast<float>(1.0 - t.w1[o]));
    taps.w1.push_back(static_cast<float>(t.w1[o]));
  }
  return taps;
}

bool is_identity(const AxisTable& t, int64_t in, int64_t out) {
  if (in != out) return false;
  for (size_t o = 0; o < t.i0.size(); ++o)
    if (t.i0[o] != static_cast<int64_t>(o) || t.w1[o] != 0.0) return false;
  return true;
}

class BilinearResizeKernel final : public CompiledKernel {
 public:
  // X viewed as [outer, in_h, in_w, inner], Y as [outer, out_h, out_w, inner].
  int64_t outer = 1, in_h = 0, in_w = 0, out_h = 0, out_w = 0, inner = 1;
  Taps rows;  // along H, in input rows
  Taps cols;  // along W, in elements (input column x inner)

  Engine engine() const override { return Engine::kAiCore; }

  Status run(KernelContext& ctx) const override {
    const float* x = ctx.input(0).data<float>();
    float* y = ctx.output(0).data<float>();
    const int64_t row_len = out_w * inner;
    const int64_t plane = in_h * in_w * inner;
    parallel_for(outer * out_h, 3 * row_len, [&](int64_t begin, int64_t end) {
      // This kernel runs no oneDNN primitive, so the thread's scratchpad is free while it runs.
      float* buffer = static_cast<float*>(onednn::thread_scratchpad(2 * static_cast<size_t>(row_len) * sizeof(float)));
      float* slot[2] = {buffer, buffer + row_len};
      int64_t held[2] = {-1, -1};  // the input row (outer index x in_h + row) each slot holds
      // Input row `key` interpolated along W, computed into the slot that does not hold `keep`.
      auto row = [&](int64_t key, int64_t keep) -> const float* {
        for (int s = 0; s < 2; ++s)
          if (held[s] == key) return slot[s];
        const int s = held[0] == keep ? 1 : 0;
        interpolate_columns(x + (key / in_h) * plane + (key % in_h) * in_w * inner, slot[s]);
        held[s] = key;
        return slot[s];
      };
      for (int64_t i = begin; i < end; ++i) {
        const int64_t o = i / out_h, oy = i % out_h;
        const int64_t key0 = o * in_h + rows.at0[static_cast<size_t>(oy)];
        const int64_t key1 = o * in_h + rows.at1[static_cast<size_t>(oy)];
        const float w0 = rows.w0[static_cast<size_t>(oy)], w1 = rows.w1[static_cast<size_t>(oy)];
        const float* a = row(key0, key1);
        float* out = y + i * row_len;
        if (w1 == 0.0f) {
          std::copy_n(a, row_len, out);
          continue;
        }
        const float* b = row(key1, key0);
        for (int64_t k = 0; k < row_len; ++k) out[k] = a[k] * w0 + b[k] * w1;
      }
    });
    return Status::Ok();
  }

 private:
  void interpolate_columns(const float* src, float* dst) const {
    if (inner == 1) {
      for (int64_t ox = 0; ox < out_w; ++ox) {
        const size_t u = static_cast<size_t>(ox);
        dst[ox] = src[cols.at0[u]] * cols.w0[u] + src[cols.at1[u]] * cols.w1[u];
      }
      return;
    }
    for (int64_t ox = 0; ox < out_w; ++ox) {
      const size_t u = static_cast<size_t>(ox);
      const float* p = src + cols.at0[u];
      const float* q = src + cols.at1[u];
      const float w0 = cols.w0[u], w1 = cols.w1[u];
      float* d = dst + ox * inner;
      for (int64_t c = 0; c < inner; ++c) d[c] = p[c] * w0 + q[c] * w1;
    }
  }
};

std::unique_ptr<CompiledKernel> none() { return nullptr; }

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_bilinear_resize_kernel(const KernelRequest& request) {
  const auto& in = request.inputs;
  const auto& out = request.outputs;
  const Attributes& attrs = request.node.attrs;
  if (in.empty() || out.size() != 1 || in[0].dtype != DType::kFloat32 || out[0].dtype != DType::kFloat32) return none();
  // Opset 18's axes and aspect-ratio policy are not forms the shared plan reads.
  if (attrs.has("axes") || attrs.get_string("keep_aspect_ratio_policy", "stretch") != "stretch") return none();
  const auto x = onednn::static_shape(in[0]);
  const auto y = onednn::static_shape(out[0]);
  if (!x || !y || x->size() < 2) return none();
  // Every other input is a constant (scales, sizes, roi), or absent.
  bool constants = true;
  auto value = [&](int i) -> const Tensor* {
    const size_t u = static_cast<size_t>(i);
    if (u >= in.size() || in[u].dtype == DType::kUndefined) return nullptr;
    if (!in[u].value) constants = false;
    return in[u].value;
  };
  ResizePlan plan;
  if (!make_resize_plan(request.node, request.opset, *x, value, &plan).ok() || !constants || plan.output != *y)
    return none();
  if (plan.mode != ResizeMode::kLinear || plan.coord == CoordMode::kTfCropAndResize || shape_numel(*y) == 0)
    return none();
  // The dims that change: at most two, adjacent (H, W); one alone is paired with a neighbour.
  const size_t rank = x->size();
  std::vector<AxisTable> tables;
  std::vector<size_t> changed;
  for (size_t d = 0; d < rank; ++d) {
    tables.push_back(axis_table(plan, d, (*x)[d], (*y)[d]));
    if (!is_identity(tables.back(), (*x)[d], (*y)[d])) changed.push_back(d);
  }
  if (changed.empty() || changed.size() > 2 || (changed.size() == 2 && changed[1] != changed[0] + 1)) return none();
  const size_t h = std::min(changed[0], rank - 2);
  auto k = std::make_unique<BilinearResizeKernel>();
  for (size_t d = 0; d < h; ++d) k->outer *= (*x)[d];
  for (size_t d = h + 2; d < rank; ++d) k->inner *= (*x)[d];
  k->in_h = (*x)[h];
  k->in_w = (*x)[h + 1];
  k->out_h = (*y)[h];
  k->out_w = (*y)[h + 1];
  k->rows = taps_of(tables[h], 1);
  k->cols = taps_of(tables[h + 1], k->inner);
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

}  // namespace openge
