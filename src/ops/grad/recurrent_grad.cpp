// LSTMGrad, GRUGrad and RNNGrad: backpropagation through time for the ONNX LSTM, GRU and RNN in the form the
// gradient rules accept (recurrent_gradients.cpp: default activations, no clip, no peepholes, no
// sequence_lens, layout 0; forward, reverse or bidirectional; GRU with either
// linear_before_reset). The kernel recomputes the forward pass from the saved inputs, keeping
// each step's gates and states, then walks the steps backwards. The forward node's attributes
// come along, so direction and linear_before_reset read as the forward read them.
//   LSTMGrad(X, W, R, B, initial_h, initial_c, dY, dY_h, dY_c) -> dX, dW, dR, dB, dInitial_h, dInitial_c
//   GRUGrad(X, W, R, B, initial_h, dY, dY_h)                   -> dX, dW, dR, dB, dInitial_h
//   RNNGrad(X, W, R, B, initial_h, dY, dY_h)                   -> dX, dW, dR, dB, dInitial_h
// Output o has input o's shape. Absent inputs: B and the initial states are zeros, an absent
// output gradient means nothing flows from that output. Computed in the forward kernels'
// compute type (float; double for float64) with plain loops, one batch row after another.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ir/dispatch.h"
#include "ops/grad/grad_ops.h"
#include "ops/nn/nn_common.h"

namespace openge {
namespace {

constexpr size_t kX = 0, kW = 1, kR = 2, kB = 3, kInitH = 4, kInitC = 5;

struct RecurrentGradKind {
  bool lstm;
  int64_t gates;    // rows of W and R per direction, in units of hidden_size
  size_t dy;        // input position of dY; dY_h follows, then dY_c (LSTM)
  size_t state_io;  // initial states (and their gradients): 1 (GRU) or 2 (LSTM)
};

constexpr RecurrentGradKind kLstmGrad{true, 4, 6, 2};
constexpr RecurrentGradKind kGruGrad{false, 3, 5, 1};
constexpr RecurrentGradKind kRnnGrad{false, 1, 5, 1};

template <const RecurrentGradKind& kKind>
Status infer_recurrent_grad(InferContext& ctx) {
  const char* names[] = {"X", "W", "R", "B", "initial_h", "initial_c", "dY", "dY_h", "dY_c"};
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const size_t name = kKind.lstm || i < kInitC ? i : i + 1;  // GRU has no initial_c
    OPENGE_RETURN_IF_ERROR(check_float_input(ctx, i, names[name]));
  }
  for (size_t o = 0; o < ctx.num_outputs(); ++o) {
    if (ctx.node().outputs[o] < 0) continue;
    if (!ctx.has_input(o)) return ctx.error(std::string("the gradient of ") + names[o] + " needs " + names[o]);
    if (ctx.input_shape_known(o))
      ctx.set_output(o, ctx.input_dtype(0), ctx.input_shape(o));
    else
      ctx.set_output_dtype(o, ctx.input_dtype(0));
  }
  return Status::Ok();
}

template <class Acc>
Acc sigmoid(Acc x) {
  return Acc(1) / (Acc(1) + std::exp(-x));
}

// out[b, j] += sum_m in[b, m] * mat[j, m]   (in: rows x m, mat: n x m)
template <class Acc>
void add_times_transposed(Acc* out, const Acc* in, const Acc* mat, int64_t rows, int64_t n, int64_t m) {
  for (int64_t b = 0; b < rows; ++b)
    for (int64_t j = 0; j < n; ++j) {
      Acc s = 0;
      for (int64_t k = 0; k < m; ++k) s += in[b * m + k] * mat[j * m + k];
      out[b * n + j] += s;
    }
}

// out[b, m] += sum_j in[b, j] * mat[j, m]   (in: rows x n, mat: n x m)
template <class Acc>
void add_times(Acc* out, const Acc* in, const Acc* mat, int64_t rows, int64_t n, int64_t m) {
  for (int64_t b = 0; b < rows; ++b)
    for (int64_t j = 0; j < n; ++j) {
      const Acc v = in[b * n + j];
      for (int64_t k = 0; k < m; ++k) out[b * m + k] += v * mat[j * m + k];
    }
}

// grad[j, m] += sum_b in[b, j] * act[b, m]   (a weight's gradient: in rows x n, act rows x m)
template <class Acc>
void add_outer(Acc* grad, const Acc* in, const Acc* act, int64_t rows, int64_t n, int64_t m) {
  for (int64_t b = 0; b < rows; ++b)
    for (int64_t j = 0; j < n; ++j) {
      const Acc v = in[b * n + j];
      if (v == Acc(0)) continue;
      for (int64_t k = 0; k < m; ++k) grad[j * m + k] += v * act[b * m + k];
    }
}

struct Dims {
  int64_t seq, batch, input, hidden, directions, gates;
  int64_t gh() const { return gates * hidden; }
};

// One direction: recompute the forward, then backpropagate through time. Accumulates into the
// gradient buffers of this direction (dx is shared by both directions).
template <class Acc>
struct DirectionPass {
  const Dims& d;
  bool lstm, rnn, reverse, linear_before_reset;
  const Acc *x, *w, *r, *wb, *rb, *h0, *c0;  // this direction's slices; h0/c0 of [batch, hidden]
  const Acc* dy;                             // [seq, directions, batch, hidden] or nullptr
  int64_t dir;
  const Acc *dyh, *dyc;  // [batch, hidden] or nullptr
  Acc *dx, *dw, *dr, *dwb, *drb, *dh0, *dc0;

  void run() {
    const int64_t S = d.seq, B = d.batch, H = d.hidden, I = d.input, GH = d.gh();
    const int64_t BH = B * H;
    // States after each step k (index k + 1; index 0: the initial ones) and the gates of each
    // step (after their activations): LSTM i, o, f, g; GRU z, r, n and q = h·R_hᵀ + Rb_h.
    constexpr int64_t slots = 4;
    std::vector<Acc> hs(static_cast<size_t>((S + 1) * BH)), cs(lstm ? hs.size() : 0);
    std::vector<Acc> gates(static_cast<size_t>(S * B * slots * H));
    std::copy_n(h0, BH, hs.data());
    if (lstm) std::copy_n(c0, BH, cs.data());
    std::vector<Acc> xa(static_cast<size_t>(B * GH)), ha(xa.size()), scratch(static_cast<size_t>(BH));
    auto time_of = [&](int64_t k) { return reverse ? S - 1 - k : k; };

    for (int64_t k = 0; k < S; ++k) {
      const Acc* xt = x + time_of(k) * B * I;
      const Acc* hp = hs.data() + k * BH;
      Acc* hn = hs.data() + (k + 1) * BH;
      Acc* gk = gates.data() + k * B * slots * H;
      for (int64_t b = 0; b < B; ++b) std::copy_n(wb, GH, xa.data() + b * GH);
      for (int64_t b = 0; b < B; ++b) std::copy_n(rb, GH, ha.data() + b * GH);
      add_times_transposed(xa.data(), xt, w, B, GH, I);
      add_times_transposed(ha.data(), hp, r, B, GH, H);
      if (rnn) {
        for (int64_t i = 0; i < BH; ++i) hn[i] = std::tanh(xa[i] + ha[i]);
      } else if (lstm) {
        const Acc* cp = cs.data() + k * BH;
        Acc* cn = cs.data() + (k + 1) * BH;
        for (int64_t b = 0; b < B; ++b)
          for (int64_t j = 0; j < H; ++j) {
            const Acc* a = xa.data() + b * GH;
            const Acc* e = ha.data() + b * GH;
            Acc* g = gk + b * 4 * H;
            const Acc it = sigmoid(a[j] + e[j]), ot = sigmoid(a[H + j] + e[H + j]);
            const Acc ft = sigmoid(a[2 * H + j] + e[2 * H + j]), ct = std::tanh(a[3 * H + j] + e[3 * H + j]);
            g[j] = it, g[H + j] = ot, g[2 * H + j] = ft, g[3 * H + j] = ct;
            cn[b * H + j] = ft * cp[b * H + j] + it * ct;
            hn[b * H + j] = ot * std::tanh(cn[b * H + j]);
          }
      } else {
        // z and r first: with linear_before_reset = 0 the candidate multiplies R_h by r ⊙ h.
        for (int64_t b = 0; b < B; ++b)
          for (int64_t j = 0; j < H; ++j) {
            Acc* g = gk + b * 4 * H;
            g[j] = sigmoid(xa[b * GH + j] + ha[b * GH + j]);
            g[H + j] = sigmoid(xa[b * GH + H + j] + ha[b * GH + H + j]);
            g[3 * H + j] = ha[b * GH + 2 * H + j];  // q
            scratch[b * H + j] = g[H + j] * hp[b * H + j];
          }
        std::vector<Acc> rh(static_cast<size_t>(BH));
        if (!linear_before_reset) {
          for (int64_t b = 0; b < B; ++b) std::copy_n(rb + 2 * H, H, rh.data() + b * H);
          add_times_transposed(rh.data(), scratch.data(), r + 2 * H * H, B, H, H);
        }
        for (int64_t b = 0; b < B; ++b)
          for (int64_t j = 0; j < H; ++j) {
            Acc* g = gk + b * 4 * H;
            const Acc rec = linear_before_reset ? g[H + j] * g[3 * H + j] : rh[b * H + j];
            g[2 * H + j] = std::tanh(xa[b * GH + 2 * H + j] + rec);
            const Acc z = g[j];
            hn[b * H + j] = (Acc(1) - z) * g[2 * H + j] + z * hp[b * H + j];
          }
      }
    }

    // Backwards through the steps: dh and dc carry the gradients of the state after step k.
    std::vector<Acc> dh(static_cast<size_t>(BH)), dc(static_cast<size_t>(BH));
    if (dyh) std::copy_n(dyh, BH, dh.data());
    if (dyc) std::copy_n(dyc, BH, dc.data());
    std::vector<Acc> dax(static_cast<size_t>(B * GH)), dah(dax.size()), dh_prev(static_cast<size_t>(BH));
    std::vector<Acc> reset_h(static_cast<size_t>(BH)), ds(static_cast<size_t>(BH));
    for (int64_t k = S; k-- > 0;) {
      const int64_t t = time_of(k);
      const Acc* xt = x + t * B * I;
      const Acc* hp = hs.data() + k * BH;
      const Acc* gk = gates.data() + k * B * slots * H;
      if (dy)
        for (int64_t i = 0; i < BH; ++i) dh[i] += dy[(t * d.directions + dir) * BH + i];
      std::fill(dh_prev.begin(), dh_prev.end(), Acc(0));
      if (rnn) {
        const Acc* hn = hs.data() + (k + 1) * BH;
        for (int64_t i = 0; i < BH; ++i) dax[i] = dah[i] = dh[i] * (Acc(1) - hn[i] * hn[i]);
        add_outer(dr, dah.data(), hp, B, GH, H);
      } else if (lstm) {
        const Acc* cp = cs.data() + k * BH;
        const Acc* cn = cs.data() + (k + 1) * BH;
        for (int64_t b = 0; b < B; ++b)
          for (int64_t j = 0; j < H; ++j) {
            const Acc* g = gk + b * 4 * H;
            const Acc it = g[j], ot = g[H + j], ft = g[2 * H + j], ct = g[3 * H + j];
            const Acc tc = std::tanh(cn[b * H + j]);
            const Acc dhv = dh[b * H + j];
            const Acc dcv = dc[b * H + j] + dhv * ot * (Acc(1) - tc * tc);
            Acc* da = dax.data() + b * GH;
            da[j] = dcv * ct * it * (Acc(1) - it);
            da[H + j] = dhv * tc * ot * (Acc(1) - ot);
            da[2 * H + j] = dcv * cp[b * H + j] * ft * (Acc(1) - ft);
            da[3 * H + j] = dcv * it * (Acc(1) - ct * ct);
            dc[b * H + j] = dcv * ft;  // now the gradient of the state before step k
          }
        std::copy(dax.begin(), dax.end(), dah.begin());
        add_outer(dr, dah.data(), hp, B, GH, H);
      } else {
        for (int64_t b = 0; b < B; ++b)
          for (int64_t j = 0; j < H; ++j) {
            const Acc* g = gk + b * 4 * H;
            const Acc z = g[j], n = g[2 * H + j];
            const Acc dhv = dh[b * H + j];
            Acc* da = dax.data() + b * GH;
            da[j] = dhv * (hp[b * H + j] - n) * z * (Acc(1) - z);
            da[2 * H + j] = dhv * (Acc(1) - z) * (Acc(1) - n * n);
            dh_prev[b * H + j] = dhv * z;
          }
        // The reset gate's gradient runs through the candidate's recurrent term.
        if (linear_before_reset) {
          for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < H; ++j) {
              const Acc* g = gk + b * 4 * H;
              const Acc dn = dax[b * GH + 2 * H + j];
              const Acc rr = g[H + j];
              dax[b * GH + H + j] = dn * g[3 * H + j] * rr * (Acc(1) - rr);
              dah[b * GH + 2 * H + j] = dn * rr;  // the gradient of q
            }
        } else {
          std::fill(ds.begin(), ds.end(), Acc(0));
          for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < H; ++j) {
              dah[b * GH + 2 * H + j] = dax[b * GH + 2 * H + j];
              reset_h[b * H + j] = gk[b * 4 * H + H + j] * hp[b * H + j];
            }
          for (int64_t b = 0; b < B; ++b)  // ds = dn · R_h
            add_times(ds.data() + b * H, dax.data() + b * GH + 2 * H, r + 2 * H * H, 1, H, H);
          for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < H; ++j) {
              const Acc rr = gk[b * 4 * H + H + j];
              dax[b * GH + H + j] = ds[b * H + j] * hp[b * H + j] * rr * (Acc(1) - rr);
              dh_prev[b * H + j] += ds[b * H + j] * rr;
            }
        }
        for (int64_t b = 0; b < B; ++b) std::copy_n(dax.data() + b * GH, 2 * H, dah.data() + b * GH);
        // dR: the z and r rows against h; the candidate's rows against h (linear_before_reset)
        // or r ⊙ h.
        for (int64_t b = 0; b < B; ++b)
          for (int64_t j = 0; j < 2 * H; ++j)
            for (int64_t m = 0; m < H; ++m) dr[j * H + m] += dah[b * GH + j] * hp[b * H + m];
        const Acc* cand_in = linear_before_reset ? hp : reset_h.data();
        for (int64_t b = 0; b < B; ++b)
          for (int64_t j = 2 * H; j < GH; ++j)
            for (int64_t m = 0; m < H; ++m) dr[j * H + m] += dah[b * GH + j] * cand_in[b * H + m];
      }
      // What every gate shares: W, the biases, X, and h through R (the GRU candidate row of R
      // reaches h only through q: linear_before_reset).
      add_outer(dw, dax.data(), xt, B, GH, I);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < GH; ++j) dwb[j] += dax[b * GH + j], drb[j] += dah[b * GH + j];
      if (dx) add_times(dx + t * B * I, dax.data(), w, B, GH, I);
      const int64_t through_r = lstm || rnn || linear_before_reset ? GH : 2 * H;
      for (int64_t b = 0; b < B; ++b) add_times(dh_prev.data() + b * H, dah.data() + b * GH, r, 1, through_r, H);
      dh.swap(dh_prev);
    }
    std::copy(dh.begin(), dh.end(), dh0);
    if (lstm) std::copy(dc.begin(), dc.end(), dc0);
  }
};

template <const RecurrentGradKind& kKind, class T>
Status recurrent_grad_typed(KernelContext& ctx) {
  using Acc = nn_acc_t<T>;
  const Shape& xs = ctx.input(kX).shape();
  const Shape& ws = ctx.input(kW).shape();
  const Shape& rs = ctx.input(kR).shape();
  if (xs.size() != 3 || ws.size() != 3 || rs.size() != 3) return ctx.error("X, W and R must be rank 3");
  Dims d{xs[0], xs[1], xs[2], rs[2], ws[0], kKind.gates};
  const std::string direction = ctx.attrs().get_string("direction", "forward");
  if (ws != Shape{d.directions, d.gh(), d.input} || rs != Shape{d.directions, d.gh(), d.hidden} ||
      d.directions != (direction == "bidirectional" ? 2 : 1))
    return ctx.error("W " + shape_to_string(ws) + " and R " + shape_to_string(rs) + " do not match X " +
                     shape_to_string(xs) + " and direction " + direction);
  const int64_t D = d.directions, BH = d.batch * d.hidden, GH = d.gh();
  auto view = [&](size_t i, int64_t count) {
    std::vector<Acc> v(static_cast<size_t>(count), Acc(0));
    if (ctx.has_input(i)) {
      if (ctx.input(i).numel() != count) return std::vector<Acc>{};
      const AccView<Acc> a(ctx.input(i));
      std::copy_n(a.data(), count, v.data());
    }
    return v;
  };
  const std::vector<Acc> x = view(kX, xs[0] * xs[1] * xs[2]), w = view(kW, D * GH * d.input),
                         r = view(kR, D * GH * d.hidden), bias = view(kB, D * 2 * GH), h0 = view(kInitH, D * BH),
                         c0 = kKind.lstm ? view(kInitC, D * BH) : std::vector<Acc>(static_cast<size_t>(D * BH));
  const bool has_dy = ctx.has_input(kKind.dy), has_dyh = ctx.has_input(kKind.dy + 1);
  const bool has_dyc = kKind.lstm && ctx.has_input(kKind.dy + 2);
  const std::vector<Acc> dy = view(kKind.dy, d.seq * D * BH), dyh = view(kKind.dy + 1, D * BH),
                         dyc = kKind.lstm ? view(kKind.dy + 2, D * BH) : std::vector<Acc>(static_cast<size_t>(D * BH));
  for (const std::vector<Acc>* v : {&bias, &h0, &c0, &dy, &dyh, &dyc})
    if (v->empty()) return ctx.error("an input's size does not match X, W and R");

  std::vector<Acc> dx(x.size()), dw(w.size()), dr(r.size()), db(bias.size()), dh0(h0.size()), dc0(c0.size());
  const bool lbr = ctx.attrs().get_int("linear_before_reset", 0) != 0;
  for (int64_t dir = 0; dir < D; ++dir) {
    DirectionPass<Acc> pass{d,
                            kKind.lstm,
                            kKind.gates == 1,
                            direction == "reverse" || dir == 1,
                            lbr,
                            x.data(),
                            w.data() + dir * GH * d.input,
                            r.data() + dir * GH * d.hidden,
                            bias.data() + dir * 2 * GH,
                            bias.data() + dir * 2 * GH + GH,
                            h0.data() + dir * BH,
                            c0.data() + dir * BH,
                            has_dy ? dy.data() : nullptr,
                            dir,
                            has_dyh ? dyh.data() + dir * BH : nullptr,
                            has_dyc ? dyc.data() + dir * BH : nullptr,
                            dx.data(),
                            dw.data() + dir * GH * d.input,
                            dr.data() + dir * GH * d.hidden,
                            db.data() + dir * 2 * GH,
                            db.data() + dir * 2 * GH + GH,
                            dh0.data() + dir * BH,
                            dc0.data() + dir * BH};
    pass.run();
  }
  const std::vector<Acc>* grads[] = {&dx, &dw, &dr, &db, &dh0, &dc0};
  for (size_t o = 0; o < ctx.num_outputs() && o < 6; ++o) {
    if (!ctx.has_output(o)) continue;
    Tensor& out = ctx.output(o);
    if (out.numel() != static_cast<int64_t>(grads[o]->size())) return ctx.error("an output's size is wrong");
    T* dst = out.data<T>();
    for (size_t i = 0; i < grads[o]->size(); ++i) dst[i] = nn_store<T>((*grads[o])[i]);
  }
  return Status::Ok();
}

template <const RecurrentGradKind& kKind>
Status recurrent_grad_kernel(KernelContext& ctx) {
  Status status = Status::Ok();
  if (!visit_float_dtype(ctx.input(kX).dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        status = recurrent_grad_typed<kKind, T>(ctx);
      }))
    return ctx.error("X must be a float tensor");
  return status;
}

}  // namespace

void register_recurrent_grad_ops(std::vector<OpSchema>& table) {
  table.push_back({"LSTMGrad", 3, 9, 1, 6, infer_recurrent_grad<kLstmGrad>, recurrent_grad_kernel<kLstmGrad>});
  table.push_back({"GRUGrad", 3, 7, 1, 5, infer_recurrent_grad<kGruGrad>, recurrent_grad_kernel<kGruGrad>});
  table.push_back({"RNNGrad", 3, 7, 1, 5, infer_recurrent_grad<kRnnGrad>, recurrent_grad_kernel<kRnnGrad>});
}

}  // namespace openge
