#include "kernels/small_batch_rnn_kernel.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>
#include <vector>

#include "base/parallel.h"
#include "kernels/onednn_common.h"
#include "kernels/onednn_rnn.h"
#include "ops/elementwise/elementwise_fastmath.h"

namespace openge {
namespace {

using elementwise::fast_sigmoid;
using elementwise::fast_tanh;

enum class Cell { kRnn, kGru, kLstm };

// ONNX input positions of RNN, GRU and LSTM.
constexpr size_t kX = 0, kW = 1, kR = 2, kB = 3, kSeqLens = 4, kInitH = 5, kInitC = 6, kP = 7;

// One row per op: gates (units of hidden_size in W, R and half of B, in ONNX's order: GRU z, r,
// h; LSTM i, o, f, c) and the default activations of one direction, the only ones computed here.
struct CellRow {
  std::string_view op;
  Cell cell;
  int gates;
  std::array<std::string_view, 3> activations;
  size_t activation_count;
};
constexpr CellRow kCells[] = {
    {"RNN", Cell::kRnn, 1, {"Tanh", "", ""}, 1},
    {"GRU", Cell::kGru, 3, {"Sigmoid", "Tanh", ""}, 2},
    {"LSTM", Cell::kLstm, 4, {"Sigmoid", "Tanh", "Tanh"}, 3},
};

// 16 floats: one AVX-512 register (two AVX2 ones); GCC's vector extension keeps this portable.
using Vec = float __attribute__((vector_size(64)));
constexpr int64_t kLanes = 16;
inline Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, const Vec& v) { std::memcpy(p, &v, sizeof v); }

// A matrix [K, cols] (R transposed: K = hidden, one column per gate unit) stored as panels of
// kPanel columns (then panels of 16, then single columns), each panel's K rows contiguous, so
// that a product streams memory in order: R of a large LSTM does not fit in L1, and a row-major
// walk fetched it as many interleaved strided streams.
constexpr int64_t kPanel = 8 * kLanes;

// Panel widths of a matrix of `cols` columns, left to right.
template <class Fn>
void for_each_panel(int64_t cols, Fn&& fn) {
  int64_t j = 0;
  for (; j + kPanel <= cols; j += kPanel) fn(j, kPanel);
  for (; j + kLanes <= cols; j += kLanes) fn(j, kLanes);
  for (; j < cols; ++j) fn(j, int64_t{1});
}

// m: [K, cols] row-major -> panels.
std::vector<float> to_panels(const float* m, int64_t k_count, int64_t cols) {
  std::vector<float> packed(static_cast<size_t>(k_count * cols));
  for_each_panel(cols, [&](int64_t j, int64_t width) {
    float* dst = packed.data() + j * k_count;
    for (int64_t k = 0; k < k_count; ++k)
      for (int64_t c = 0; c < width; ++c) dst[k * width + c] = m[k * cols + j + c];
  });
  return packed;
}

// out[c] = sum_k v[k] * panel[k * kVecs * 16 + c]: the accumulators stay in registers.
template <int kVecs>
void gemv_panel(const float* v, int64_t k_count, const float* panel, float* out) {
  Vec acc[kVecs] = {};
  for (int64_t k = 0; k < k_count; ++k, panel += kVecs * kLanes) {
    const float s = v[k];
    for (int i = 0; i < kVecs; ++i) acc[i] += s * load(panel + i * kLanes);
  }
  for (int i = 0; i < kVecs; ++i) store(out + i * kLanes, acc[i]);
}

// out[j] = sum_k v[k] * m[k, j] for the `cols` columns of a panel-packed m.
void gemv(const float* v, int64_t k_count, const float* packed, int64_t cols, float* out) {
  for_each_panel(cols, [&](int64_t j, int64_t width) {
    const float* panel = packed + j * k_count;
    if (width == kPanel) {
      gemv_panel<8>(v, k_count, panel, out + j);
    } else if (width == kLanes) {
      gemv_panel<1>(v, k_count, panel, out + j);
    } else {
      float a = 0;
      for (int64_t k = 0; k < k_count; ++k) a += v[k] * panel[k];
      out[j] = a;
    }
  });
}

// The gate arithmetic as loops over one array or two, each of which the compiler vectorises
// (a loop reading five arrays and writing two was left scalar: too many possible overlaps).
// pre[j] += x[j] + bias[j]: a gate's input projection and bias joined to its recurrent product.
void add_input(float* __restrict pre, const float* __restrict x, const float* __restrict bias, int64_t n) {
  for (int64_t j = 0; j < n; ++j) pre[j] += x[j] + bias[j];
}
void sigmoid_in_place(float* __restrict v, int64_t n) {
  for (int64_t j = 0; j < n; ++j) v[j] = fast_sigmoid(v[j]);
}
void tanh_in_place(float* __restrict v, int64_t n) {
  for (int64_t j = 0; j < n; ++j) v[j] = fast_tanh(v[j]);
}
// GRU: h = (1 - z) * candidate + z * h.
void gru_update(float* __restrict h, const float* __restrict z, const float* __restrict candidate, int64_t n) {
  for (int64_t j = 0; j < n; ++j) h[j] = (1.0f - z[j]) * candidate[j] + z[j] * h[j];
}

// One direction's weights, prepared at compile.
struct Direction {
  std::vector<float> w_t;  // [C, G*H]: W transposed, so that X·W is one row-major sgemm
  // R transposed ([H, G*H]) as panels (to_panels); GRU without linear_before_reset packs its h
  // gate's columns apart (r_h), since their product waits for r.
  std::vector<float> r_t, r_h;
  std::vector<float> bias;  // [G*H]: Wb + Rb (GRU with linear_before_reset: Wb alone on the h gate)
  std::vector<float> rb_h;  // [H]: GRU with linear_before_reset: Rb of the h gate, inside r ⊙ (...)
};

// m: [rows, cols] row-major -> [cols, rows].
std::vector<float> transposed(const float* m, int64_t rows, int64_t cols) {
  std::vector<float> t(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t[static_cast<size_t>(c * rows + r)] = m[r * cols + c];
  return t;
}

class SmallBatchRnnKernel final : public CompiledKernel {
 public:
  Cell cell = Cell::kLstm;
  int64_t steps = 0, batch = 0, input = 0, hidden = 0, gates = 0;
  bool reverse = false;  // direction "reverse" (a bidirectional node's second direction always is)
  bool lbr = false;      // GRU linear_before_reset
  bool has_h0 = false, has_c0 = false, has_y = false, has_yh = false, has_yc = false;
  std::vector<Direction> dirs;

  Engine engine() const override { return Engine::kAiCore; }
  bool reads_input_at_run_time(size_t i) const override { return i != kW && i != kR && i != kB; }

  Status run(KernelContext& ctx) const override {
    const int64_t gh = gates * hidden;
    const int64_t dirs_n = static_cast<int64_t>(dirs.size());
    parallel_for(dirs_n, steps * gh * (input + hidden) / 16, [&](int64_t begin, int64_t end) {
      for (int64_t d = begin; d < end; ++d) run_direction(ctx, d);
    });
    return Status::Ok();
  }

 private:
  void run_direction(KernelContext& ctx, int64_t d) const {
    const Direction& dir = dirs[static_cast<size_t>(d)];
    const int64_t gh = gates * hidden, nh = batch * hidden, d_count = static_cast<int64_t>(dirs.size());
    // Scratch (this kernel runs no oneDNN primitive, so the thread's scratchpad is free): every
    // step's X·W, one step's gates, the hidden and cell states, one more row of H.
    const size_t floats = static_cast<size_t>(steps * batch * gh + gh + 2 * nh + hidden);
    float* xw = static_cast<float*>(onednn::thread_scratchpad(floats * sizeof(float)));
    float* rec = xw + steps * batch * gh;
    float* h = rec + gh;
    float* c = h + nh;
    float* tmp = c + nh;
    dnnl_sgemm('N', 'N', steps * batch, gh, input, 1.0f, ctx.input(kX).data<float>(), input, dir.w_t.data(), gh, 0.0f,
               xw, gh);
    if (has_h0)
      std::copy_n(ctx.input(kInitH).data<float>() + d * nh, nh, h);
    else
      std::fill_n(h, nh, 0.0f);
    if (has_c0)
      std::copy_n(ctx.input(kInitC).data<float>() + d * nh, nh, c);
    else
      std::fill_n(c, nh, 0.0f);
    const bool backwards = reverse || d == 1;
    float* y = has_y ? ctx.output(0).data<float>() : nullptr;
    const float* b = dir.bias.data();
    const int64_t H = hidden;
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t t = backwards ? steps - 1 - s : s;
      for (int64_t n = 0; n < batch; ++n) {
        const float* g = xw + (t * batch + n) * gh;
        float* hn = h + n * H;
        float* cn = c + n * H;
        // rec: the gates' pre-activations, then their values, in ONNX's gate order.
        switch (cell) {
          case Cell::kLstm: {  // i, o, f, c
            gemv(hn, H, dir.r_t.data(), gh, rec);
            add_input(rec, g, b, gh);
            sigmoid_in_place(rec, 3 * H);
            tanh_in_place(rec + 3 * H, H);
            const float *i = rec, *o = rec + H, *f = rec + 2 * H, *cc = rec + 3 * H;
            for (int64_t u = 0; u < H; ++u) cn[u] = f[u] * cn[u] + i[u] * cc[u];
            std::copy_n(cn, H, tmp);
            tanh_in_place(tmp, H);
            for (int64_t u = 0; u < H; ++u) hn[u] = o[u] * tmp[u];
            break;
          }
          case Cell::kGru:  // z, r, h
            if (lbr) {
              gemv(hn, H, dir.r_t.data(), gh, rec);
              add_input(rec, g, b, 2 * H);
              sigmoid_in_place(rec, 2 * H);
              const float *r = rec + H, *rh_b = dir.rb_h.data();
              for (int64_t u = 0; u < H; ++u) tmp[u] = g[2 * H + u] + b[2 * H + u] + r[u] * (rec[2 * H + u] + rh_b[u]);
              tanh_in_place(tmp, H);
            } else {
              // The h gate multiplies r ⊙ h by R_h: its product waits for r.
              gemv(hn, H, dir.r_t.data(), 2 * H, rec);
              add_input(rec, g, b, 2 * H);
              sigmoid_in_place(rec, 2 * H);
              for (int64_t u = 0; u < H; ++u) tmp[u] = rec[H + u] * hn[u];
              gemv(tmp, H, dir.r_h.data(), H, rec + 2 * H);
              add_input(rec + 2 * H, g + 2 * H, b + 2 * H, H);
              std::copy_n(rec + 2 * H, H, tmp);
              tanh_in_place(tmp, H);
            }
            gru_update(hn, rec, tmp, H);
            break;
          case Cell::kRnn:
            gemv(hn, H, dir.r_t.data(), gh, rec);
            add_input(rec, g, b, gh);
            tanh_in_place(rec, H);
            std::copy_n(rec, H, hn);
            break;
        }
        if (y) std::copy_n(hn, H, y + ((t * d_count + d) * batch + n) * H);
      }
    }
    if (has_yh) std::copy_n(h, nh, ctx.output(1).data<float>() + d * nh);
    if (has_yc) std::copy_n(c, nh, ctx.output(2).data<float>() + d * nh);
  }
};

bool present(const std::vector<ValueInfo>& infos, size_t i) {
  return i < infos.size() && infos[i].dtype != DType::kUndefined;
}

// The attributes ask for nothing but the default cell of one row, layout 0.
bool default_cell(const Attributes& attrs, const CellRow& row) {
  for (const char* name : {"clip", "activation_alpha", "activation_beta"})
    if (attrs.has(name)) return false;
  if (attrs.get_int("input_forget", 0) != 0 || attrs.get_int("layout", 0) != 0) return false;
  const Attribute* a = attrs.find("activations");
  if (!a) return true;
  for (size_t i = 0; i < a->strings.size(); ++i)
    if (a->strings[i] != row.activations[i % row.activation_count]) return false;
  return true;
}

std::unique_ptr<CompiledKernel> make_small_batch_kernel(const KernelRequest& request, const CellRow& row) {
  const auto& in = request.inputs;
  const auto& out = request.outputs;
  if (in.size() < 3 || !default_cell(request.node.attrs, row) || present(in, kSeqLens) || present(in, kP))
    return nullptr;
  for (size_t i = 0; i < in.size(); ++i)
    if (present(in, i) && in[i].dtype != DType::kFloat32) return nullptr;
  for (const ValueInfo& o : out)
    if (o.dtype != DType::kUndefined && o.dtype != DType::kFloat32) return nullptr;
  const std::string direction = request.node.attrs.get_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") return nullptr;
  const int64_t D = direction == "bidirectional" ? 2 : 1;
  const auto x = onednn::static_shape(in[kX]);
  const Tensor* w = in[kW].value;
  const Tensor* r = in[kR].value;
  const Tensor* b = present(in, kB) ? in[kB].value : nullptr;
  if (!x || x->size() != 3 || !w || !r || (present(in, kB) && !b)) return nullptr;
  const int64_t T = (*x)[0], N = (*x)[1], C = (*x)[2];
  const int64_t G = row.gates;
  if (w->rank() != 3 || r->rank() != 3) return nullptr;
  const int64_t H = r->dim(2);
  if (T == 0 || N == 0 || N > kSmallBatch || H == 0 || w->dim(0) != D || r->dim(0) != D || w->dim(1) != G * H ||
      w->dim(2) != C || r->dim(1) != G * H || (b && b->numel() != D * 2 * G * H))
    return nullptr;
  auto k = std::make_unique<SmallBatchRnnKernel>();
  k->cell = row.cell;
  k->steps = T;
  k->batch = N;
  k->input = C;
  k->hidden = H;
  k->gates = G;
  k->reverse = direction == "reverse";
  k->lbr = row.cell == Cell::kGru && request.node.attrs.get_int("linear_before_reset", 0) != 0;
  k->has_h0 = present(in, kInitH);
  k->has_c0 = row.cell == Cell::kLstm && present(in, kInitC);
  k->has_y = !out.empty() && out[0].dtype != DType::kUndefined;
  k->has_yh = out.size() > 1 && out[1].dtype != DType::kUndefined;
  k->has_yc = row.cell == Cell::kLstm && out.size() > 2 && out[2].dtype != DType::kUndefined;
  const int64_t gh = G * H;
  for (int64_t d = 0; d < D; ++d) {
    Direction dir;
    dir.w_t = transposed(w->data<float>() + d * gh * C, gh, C);
    const std::vector<float> r_t = transposed(r->data<float>() + d * gh * H, gh, H);
    if (row.cell == Cell::kGru && !k->lbr) {
      std::vector<float> zr(static_cast<size_t>(H * 2 * H)), h_gate(static_cast<size_t>(H * H));
      for (int64_t i = 0; i < H; ++i) {
        std::copy_n(r_t.data() + i * gh, 2 * H, zr.data() + i * 2 * H);
        std::copy_n(r_t.data() + i * gh + 2 * H, H, h_gate.data() + i * H);
      }
      dir.r_t = to_panels(zr.data(), H, 2 * H);
      dir.r_h = to_panels(h_gate.data(), H, H);
    } else {
      dir.r_t = to_panels(r_t.data(), H, gh);
    }
    dir.bias.assign(static_cast<size_t>(gh), 0.0f);
    if (k->lbr) dir.rb_h.assign(static_cast<size_t>(H), 0.0f);
    if (b) {
      const float* wb = b->data<float>() + d * 2 * gh;
      const float* rb = wb + gh;
      for (int64_t j = 0; j < gh; ++j) {
        const bool inside_reset = k->lbr && j >= 2 * H;
        dir.bias[static_cast<size_t>(j)] = wb[j] + (inside_reset ? 0.0f : rb[j]);
        if (inside_reset) dir.rb_h[static_cast<size_t>(j - 2 * H)] = rb[j];
      }
    }
    k->dirs.push_back(std::move(dir));
  }
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

}  // namespace

std::unique_ptr<CompiledKernel> make_small_batch_rnn_kernel(const KernelRequest& request) {
  for (const CellRow& row : kCells)
    if (row.op == request.node.op_type) return make_small_batch_kernel(request, row);
  return nullptr;
}

Result<std::unique_ptr<CompiledKernel>> make_recurrent_kernel(const KernelRequest& request) {
  if (auto k = make_small_batch_rnn_kernel(request)) return std::unique_ptr<CompiledKernel>(std::move(k));
  return onednn::make_rnn_kernel(request);
}

}  // namespace openge
