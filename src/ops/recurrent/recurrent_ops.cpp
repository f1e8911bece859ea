// RNN, GRU and LSTM: the ONNX recurrent ops on the reference engine.
//
// The three ops share one driver (run_direction): it projects every time step's input through W
// in one GEMM, then walks the time steps, multiplying the previous hidden state by R with the
// shared GEMM helper, and leaves only the gate arithmetic of one step to each op's cell
// function. Directions (forward, reverse, bidirectional), per-batch sequence_lens, initial
// states, clip, activation lists with alpha/beta and both layouts (opset 14) are handled once.
// fp16/bf16 compute in float and round once on store; double computes in double.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/elementwise/elementwise_common.h"
#include "ops/math/math_gemm.h"

namespace openge {
namespace {

using elementwise::kFloatTypes;

// ---------------------------------------------------------------------------------------------
// The ops, as a table: gate count, activation count and defaults, input/output arity.

enum class RecurrentOp { kRnn, kGru, kLstm };

struct RecurrentKind {
  RecurrentOp op;
  int gates;                                 // rows of W/R per direction, in units of hidden_size
  int activations;                           // activation functions per direction
  std::array<std::string_view, 3> defaults;  // their default names
  int max_inputs;
  int max_outputs;
};

constexpr RecurrentKind kRnnKind{RecurrentOp::kRnn, 1, 1, {"Tanh", "", ""}, 6, 2};
constexpr RecurrentKind kGruKind{RecurrentOp::kGru, 3, 2, {"Sigmoid", "Tanh", ""}, 6, 2};
constexpr RecurrentKind kLstmKind{RecurrentOp::kLstm, 4, 3, {"Sigmoid", "Tanh", "Tanh"}, 8, 3};

// Input positions (ONNX order; LSTM adds initial_c and P).
constexpr size_t kX = 0, kW = 1, kR = 2, kB = 3, kSeqLens = 4, kInitH = 5, kInitC = 6, kP = 7;

// ---------------------------------------------------------------------------------------------
// Activation functions (the list ONNX allows in `activations`), with their alpha/beta.

enum class ActFn {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus
};

struct ActInfo {
  std::string_view name;
  ActFn fn;
  int params;         // how many of activation_alpha / activation_beta it consumes (0, 1: alpha, 2: both)
  float alpha, beta;  // defaults, as the corresponding ONNX ops define them
};

constexpr std::array<ActInfo, 11> kActivations{{
    {"Relu", ActFn::kRelu, 0, 0.f, 0.f},
    {"Tanh", ActFn::kTanh, 0, 0.f, 0.f},
    {"Sigmoid", ActFn::kSigmoid, 0, 0.f, 0.f},
    {"Affine", ActFn::kAffine, 2, 1.f, 0.f},
    {"LeakyRelu", ActFn::kLeakyRelu, 1, 0.01f, 0.f},
    {"ThresholdedRelu", ActFn::kThresholdedRelu, 1, 1.f, 0.f},
    {"ScaledTanh", ActFn::kScaledTanh, 2, 1.f, 1.f},
    {"HardSigmoid", ActFn::kHardSigmoid, 2, 0.2f, 0.5f},
    {"Elu", ActFn::kElu, 1, 1.f, 0.f},
    {"Softsign", ActFn::kSoftsign, 0, 0.f, 0.f},
    {"Softplus", ActFn::kSoftplus, 0, 0.f, 0.f},
}};

struct Activation {
  ActFn fn = ActFn::kTanh;
  double alpha = 0, beta = 0;

  template <class Acc>
  Acc operator()(Acc x) const {
    const Acc a = static_cast<Acc>(alpha), b = static_cast<Acc>(beta);
    switch (fn) {
      case ActFn::kRelu:
        return x > Acc(0) ? x : Acc(0);
      case ActFn::kTanh:
        return std::tanh(x);
      case ActFn::kSigmoid:
        return Acc(1) / (Acc(1) + std::exp(-x));
      case ActFn::kAffine:
        return a * x + b;
      case ActFn::kLeakyRelu:
        return x >= Acc(0) ? x : a * x;
      case ActFn::kThresholdedRelu:
        return x > a ? x : Acc(0);
      case ActFn::kScaledTanh:
        return a * std::tanh(b * x);
      case ActFn::kHardSigmoid:
        return std::max(Acc(0), std::min(Acc(1), a * x + b));
      case ActFn::kElu:
        return x >= Acc(0) ? x : a * (std::exp(x) - Acc(1));
      case ActFn::kSoftsign:
        return x / (Acc(1) + std::fabs(x));
      case ActFn::kSoftplus:
        return x > Acc(20) ? x : std::log1p(std::exp(x));
    }
    return x;
  }
};

bool same_name_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The activations of every direction, [direction][k]. A list given for one direction only is
// used for both (as ONNX Runtime does); alpha/beta are consumed in order by the functions that
// take them, and the ONNX op's defaults apply when the lists run out.
template <class Ctx>
Status parse_activations(const Ctx& ctx, const RecurrentKind& kind, int64_t directions,
                         std::vector<std::vector<Activation>>& out) {
  std::vector<std::string> names;
  if (const Attribute* a = ctx.attrs().find("activations")) names = a->strings;
  const size_t per_dir = static_cast<size_t>(kind.activations);
  if (names.empty())
    for (int64_t d = 0; d < directions; ++d)
      for (size_t k = 0; k < per_dir; ++k) names.emplace_back(kind.defaults[k]);
  else if (names.size() == per_dir && directions == 2)
    names.insert(names.end(), names.begin(), names.end());
  if (names.size() != per_dir * static_cast<size_t>(directions))
    return ctx.error("activations must list " + std::to_string(per_dir) + " function(s) per direction (" +
                     std::to_string(per_dir * static_cast<size_t>(directions)) + " in all), got " +
                     std::to_string(names.size()));
  const std::vector<float> alphas = ctx.attrs().get_floats("activation_alpha");
  const std::vector<float> betas = ctx.attrs().get_floats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  out.assign(static_cast<size_t>(directions), {});
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = std::find_if(kActivations.begin(), kActivations.end(),
                           [&](const ActInfo& info) { return same_name_ignoring_case(info.name, names[i]); });
    if (it == kActivations.end()) return ctx.error("unsupported activation function '" + names[i] + "'");
    Activation act{it->fn, it->alpha, it->beta};
    if (it->params >= 1 && next_alpha < alphas.size()) act.alpha = alphas[next_alpha++];
    if (it->params >= 2 && next_beta < betas.size()) act.beta = betas[next_beta++];
    out[i / per_dir].push_back(act);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Geometry: every shape check, shared by inference (compile and run time) and the kernel.

struct Geometry {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, directions = 1;
  bool batch_major = false;  // layout = 1: X is [batch, seq, input], states [batch, dir, hidden]
  bool reverse_only = false;

  Shape y_shape() const {
    return batch_major ? Shape{batch, seq, directions, hidden} : Shape{seq, directions, batch, hidden};
  }
  Shape state_shape() const {
    return batch_major ? Shape{batch, directions, hidden} : Shape{directions, batch, hidden};
  }
};

template <class Ctx>
Status read_direction(const Ctx& ctx, Geometry& g) {
  const std::string direction = ctx.attrs().get_string("direction", "forward");
  if (direction == "forward")
    g.directions = 1;
  else if (direction == "reverse")
    g.directions = 1, g.reverse_only = true;
  else if (direction == "bidirectional")
    g.directions = 2;
  else
    return ctx.error("direction must be forward, reverse or bidirectional, got '" + direction + "'");
  const int64_t layout = ctx.attrs().get_int("layout", 0);
  if (layout != 0 && layout != 1) return ctx.error("layout must be 0 or 1, got " + std::to_string(layout));
  g.batch_major = layout == 1;
  return Status::Ok();
}

// `shape_of(i)` gives input i's shape, or nullptr when the input is absent.
template <class Ctx, class ShapeOf>
Status resolve_geometry(const Ctx& ctx, const RecurrentKind& kind, ShapeOf&& shape_of, Geometry& g) {
  OPENGE_RETURN_IF_ERROR(read_direction(ctx, g));
  const Shape* x = shape_of(kX);
  const Shape* w = shape_of(kW);
  const Shape* r = shape_of(kR);
  if (x->size() != 3) return ctx.error("X must be rank 3, got " + shape_to_string(*x));
  if (w->size() != 3 || r->size() != 3)
    return ctx.error("W and R must be rank 3, got " + shape_to_string(*w) + " and " + shape_to_string(*r));
  g.seq = g.batch_major ? (*x)[1] : (*x)[0];
  g.batch = g.batch_major ? (*x)[0] : (*x)[1];
  g.input = (*x)[2];
  g.hidden = ctx.attrs().get_int("hidden_size", (*r)[2]);
  const int64_t gh = kind.gates * g.hidden;
  if (g.hidden <= 0 || (*r)[2] != g.hidden)
    return ctx.error("hidden_size " + std::to_string(g.hidden) + " does not match R " + shape_to_string(*r));
  if (*w != Shape{g.directions, gh, g.input})
    return ctx.error("W must be " + shape_to_string({g.directions, gh, g.input}) + ", got " + shape_to_string(*w));
  if (*r != Shape{g.directions, gh, g.hidden})
    return ctx.error("R must be " + shape_to_string({g.directions, gh, g.hidden}) + ", got " + shape_to_string(*r));
  if (const Shape* b = shape_of(kB); b && *b != Shape{g.directions, 2 * gh})
    return ctx.error("B must be " + shape_to_string({g.directions, 2 * gh}) + ", got " + shape_to_string(*b));
  if (const Shape* s = shape_of(kSeqLens); s && *s != Shape{g.batch})
    return ctx.error("sequence_lens must be " + shape_to_string({g.batch}) + ", got " + shape_to_string(*s));
  for (size_t i : {kInitH, kInitC})
    if (const Shape* h = shape_of(i); h && *h != g.state_shape())
      return ctx.error(std::string(i == kInitH ? "initial_h" : "initial_c") + " must be " +
                       shape_to_string(g.state_shape()) + ", got " + shape_to_string(*h));
  if (const Shape* p = shape_of(kP); p && *p != Shape{g.directions, 3 * g.hidden})
    return ctx.error("P must be " + shape_to_string({g.directions, 3 * g.hidden}) + ", got " + shape_to_string(*p));
  return Status::Ok();
}

template <const RecurrentKind& kKind>
Status recurrent_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, kX, kFloatTypes));
  for (size_t i : {kW, kR, kB, kInitH, kInitC, kP})
    if (i < ctx.num_inputs() && ctx.has_input(i)) OPENGE_RETURN_IF_ERROR(elementwise::check_same_dtype(ctx, kX, i));
  if (ctx.has_input(kSeqLens) && ctx.input_dtype(kSeqLens) != DType::kInt32)
    return ctx.error(std::string("sequence_lens must be int32, got ") + dtype_name(ctx.input_dtype(kSeqLens)));
  std::vector<std::vector<Activation>> acts;
  Geometry g;
  OPENGE_RETURN_IF_ERROR(read_direction(ctx, g));
  OPENGE_RETURN_IF_ERROR(parse_activations(ctx, kKind, g.directions, acts));
  const DType dt = ctx.input_dtype(kX);
  bool known = true;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i) && !ctx.input_shape_known(i)) known = false;
  if (known) {
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.has_input(i))
        for (int64_t d : ctx.input_shape(i))
          if (d < 0) known = false;
  }
  if (!known) {
    for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output_dtype(i, dt);
    return Status::Ok();
  }
  OPENGE_RETURN_IF_ERROR(resolve_geometry(
      ctx, kKind, [&](size_t i) { return ctx.has_input(i) ? &ctx.input_shape(i) : nullptr; }, g));
  ctx.set_output(0, dt, g.y_shape());
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output(i, dt, g.state_shape());
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// One direction of one op, in the compute type Acc (float or double).

template <class Acc>
struct DirectionData {
  const Acc* w;   // [G*H, input]
  const Acc* r;   // [G*H, hidden]
  const Acc* wb;  // [G*H]
  const Acc* rb;  // [G*H]
  const Acc* p;   // [3*H] peepholes (i, o, f), zeros when absent
  const std::vector<Activation>* acts;
};

struct CellOptions {
  std::optional<double> clip;
  bool linear_before_reset = false;  // GRU
  bool input_forget = false;         // LSTM
};

template <class Acc>
Acc clipped(Acc v, const CellOptions& o) {
  if (!o.clip) return v;
  const Acc c = static_cast<Acc>(*o.clip);
  return std::max(-c, std::min(c, v));
}

// What one time step sees: per batch row, the input projection of its current time step
// (X·Wᵀ + Wb, nullptr when the row's sequence has ended), the recurrent projection
// H·Rᵀ + Rb of the whole batch, and the states to update in place.
template <class Acc>
struct StepIO {
  int64_t batch, hidden;
  const std::vector<const Acc*>& xw;
  const Acc* hr;  // [batch, G*H]
  Acc* h;         // [batch, H]
  Acc* c;         // [batch, H] (LSTM)
  const DirectionData<Acc>& dir;
  const CellOptions& opt;
};

// Ht = f(Xt·Wᵀ + Ht-1·Rᵀ + Wb + Rb)
template <class Acc>
void rnn_cell(StepIO<Acc>& s) {
  const Activation& f = (*s.dir.acts)[0];
  for (int64_t b = 0; b < s.batch; ++b) {
    if (!s.xw[b]) continue;
    for (int64_t j = 0; j < s.hidden; ++j)
      s.h[b * s.hidden + j] = f(clipped(s.xw[b][j] + s.hr[b * s.hidden + j], s.opt));
  }
}

// Gates z, r, h. With linear_before_reset = 0 the candidate multiplies R_h by (rt ⊙ Ht-1),
// a second GEMM that needs rt first; with 1 it is rt ⊙ (Ht-1·R_hᵀ + Rb_h).
template <class Acc>
void gru_cell(StepIO<Acc>& s) {
  const Activation& f = (*s.dir.acts)[0];
  const Activation& g = (*s.dir.acts)[1];
  const int64_t H = s.hidden, gh = 3 * H;
  std::vector<Acc> z(static_cast<size_t>(s.batch * H)), r(z.size()), rh;
  for (int64_t b = 0; b < s.batch; ++b) {
    if (!s.xw[b]) continue;
    for (int64_t j = 0; j < H; ++j) {
      z[b * H + j] = f(clipped(s.xw[b][j] + s.hr[b * gh + j], s.opt));
      r[b * H + j] = f(clipped(s.xw[b][H + j] + s.hr[b * gh + H + j], s.opt));
    }
  }
  if (!s.opt.linear_before_reset) {
    std::vector<Acc> reset_h(z.size());
    for (size_t i = 0; i < reset_h.size(); ++i) reset_h[i] = r[i] * s.h[i];
    rh.resize(z.size());
    const int64_t zero = 0;
    batched_gemm<Acc>(1, s.batch, H, H, reset_h.data(), &zero, H, s.dir.r + 2 * H * H, &zero, H, true, rh.data());
  }
  for (int64_t b = 0; b < s.batch; ++b) {
    if (!s.xw[b]) continue;
    for (int64_t j = 0; j < H; ++j) {
      const Acc recurrent =
          s.opt.linear_before_reset ? r[b * H + j] * s.hr[b * gh + 2 * H + j] : rh[b * H + j] + s.dir.rb[2 * H + j];
      const Acc cand = g(clipped(s.xw[b][2 * H + j] + recurrent, s.opt));
      const Acc zt = z[b * H + j];
      Acc& ht = s.h[b * H + j];
      ht = (Acc(1) - zt) * cand + zt * ht;
    }
  }
}

// Gates i, o, f, c; peepholes P = (Pi, Po, Pf); input_forget couples f = 1 - i.
template <class Acc>
void lstm_cell(StepIO<Acc>& s) {
  const Activation& f = (*s.dir.acts)[0];
  const Activation& g = (*s.dir.acts)[1];
  const Activation& h = (*s.dir.acts)[2];
  const int64_t H = s.hidden, gh = 4 * H;
  const Acc* pi = s.dir.p;
  const Acc* po = s.dir.p + H;
  const Acc* pf = s.dir.p + 2 * H;
  for (int64_t b = 0; b < s.batch; ++b) {
    if (!s.xw[b]) continue;
    const Acc* xw = s.xw[b];
    const Acc* hr = s.hr + b * gh;
    for (int64_t j = 0; j < H; ++j) {
      Acc& ct = s.c[b * H + j];
      const Acc it = f(clipped(xw[j] + hr[j] + pi[j] * ct, s.opt));
      const Acc ft = s.opt.input_forget ? Acc(1) - it : f(clipped(xw[2 * H + j] + hr[2 * H + j] + pf[j] * ct, s.opt));
      const Acc cand = g(clipped(xw[3 * H + j] + hr[3 * H + j], s.opt));
      ct = ft * ct + it * cand;
      const Acc ot = f(clipped(xw[H + j] + hr[H + j] + po[j] * ct, s.opt));
      s.h[b * H + j] = ot * h(ct);
    }
  }
}

// Runs one direction over the sequence. x is [seq, batch, input] (time-major), h/c hold the
// initial states and end as the final ones (a row keeps its state after its sequence ends),
// y_dir(t, b) points at Y's hidden row for that step (nullptr when Y is not wanted).
template <class Acc, class YRow>
void run_direction(const RecurrentKind& kind, const Geometry& g, bool reverse, const std::vector<Acc>& x,
                   const std::vector<int32_t>& lens, const DirectionData<Acc>& dir, const CellOptions& opt,
                   std::vector<Acc>& h, std::vector<Acc>& c, YRow&& y_row) {
  const int64_t gh = kind.gates * g.hidden;
  const int64_t zero = 0;
  // Input projection of every step at once: [seq*batch, G*H] = X · Wᵀ + Wb.
  std::vector<Acc> xw(static_cast<size_t>(g.seq * g.batch * gh));
  batched_gemm<Acc>(1, g.seq * g.batch, gh, g.input, x.data(), &zero, g.input, dir.w, &zero, g.input, true, xw.data());
  for (int64_t row = 0; row < g.seq * g.batch; ++row)
    for (int64_t j = 0; j < gh; ++j) xw[row * gh + j] += dir.wb[j];

  std::vector<Acc> hr(static_cast<size_t>(g.batch * gh));
  std::vector<const Acc*> step_xw(static_cast<size_t>(g.batch));
  std::vector<int64_t> step_t(static_cast<size_t>(g.batch));
  const int64_t steps = lens.empty() ? g.seq : *std::max_element(lens.begin(), lens.end());
  for (int64_t s = 0; s < steps; ++s) {
    for (int64_t b = 0; b < g.batch; ++b) {
      const int64_t len = lens.empty() ? g.seq : lens[b];
      step_t[b] = reverse ? len - 1 - s : s;
      step_xw[b] = s < len ? xw.data() + (step_t[b] * g.batch + b) * gh : nullptr;
    }
    batched_gemm<Acc>(1, g.batch, gh, g.hidden, h.data(), &zero, g.hidden, dir.r, &zero, g.hidden, true, hr.data());
    for (int64_t b = 0; b < g.batch; ++b)
      for (int64_t j = 0; j < gh; ++j) hr[b * gh + j] += dir.rb[j];
    StepIO<Acc> io{g.batch, g.hidden, step_xw, hr.data(), h.data(), c.data(), dir, opt};
    switch (kind.op) {
      case RecurrentOp::kRnn:
        rnn_cell(io);
        break;
      case RecurrentOp::kGru:
        gru_cell(io);
        break;
      case RecurrentOp::kLstm:
        lstm_cell(io);
        break;
    }
    for (int64_t b = 0; b < g.batch; ++b)
      if (step_xw[b]) y_row(step_t[b], b, h.data() + b * g.hidden);
  }
}

template <class Acc, class T>
std::vector<Acc> to_compute(const Tensor* t, int64_t count) {
  std::vector<Acc> v(static_cast<size_t>(count), Acc(0));
  if (!t) return v;
  const T* p = t->data<T>();
  for (int64_t i = 0; i < count; ++i) v[i] = static_cast<Acc>(static_cast<float_or_self_t<T>>(p[i]));
  return v;
}

template <class T>
Status recurrent_compute(KernelContext& ctx, const RecurrentKind& kind, const Geometry& g,
                         const std::vector<std::vector<Activation>>& acts) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  auto in = [&](size_t i) { return ctx.has_input(i) ? &ctx.input(i) : nullptr; };
  const int64_t D = g.directions, B = g.batch, H = g.hidden, S = g.seq, I = g.input, gh = kind.gates * H;

  std::vector<int32_t> lens;
  if (const Tensor* t = in(kSeqLens)) {
    lens.assign(t->data<int32_t>(), t->data<int32_t>() + B);
    for (int32_t l : lens)
      if (l < 0 || l > S)
        return ctx.error("sequence_lens values must be in [0, " + std::to_string(S) + "], got " + std::to_string(l));
  }
  CellOptions opt;
  if (ctx.attrs().has("clip")) opt.clip = ctx.attrs().get_float("clip", 0.f);
  opt.linear_before_reset = ctx.attrs().get_int("linear_before_reset", 0) != 0;
  opt.input_forget = ctx.attrs().get_int("input_forget", 0) != 0;

  // X time-major, [seq, batch, input].
  std::vector<Acc> x = to_compute<Acc, T>(&ctx.input(kX), S * B * I);
  if (g.batch_major) {
    std::vector<Acc> tm(x.size());
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t < S; ++t) std::copy_n(x.data() + (b * S + t) * I, I, tm.data() + (t * B + b) * I);
    x.swap(tm);
  }
  const std::vector<Acc> w = to_compute<Acc, T>(in(kW), D * gh * I);
  const std::vector<Acc> r = to_compute<Acc, T>(in(kR), D * gh * H);
  const std::vector<Acc> bias = to_compute<Acc, T>(in(kB), D * 2 * gh);
  const std::vector<Acc> peep = to_compute<Acc, T>(kind.op == RecurrentOp::kLstm ? in(kP) : nullptr, D * 3 * H);
  const std::vector<Acc> h0 = to_compute<Acc, T>(in(kInitH), D * B * H);
  const std::vector<Acc> c0 = to_compute<Acc, T>(kind.op == RecurrentOp::kLstm ? in(kInitC) : nullptr, D * B * H);
  // State index of (direction, batch row) in the layout of initial_h / Y_h.
  auto state_at = [&](int64_t d, int64_t b) { return g.batch_major ? (b * D + d) * H : (d * B + b) * H; };

  T* y = ctx.has_output(0) ? ctx.output(0).data<T>() : nullptr;
  if (y) std::fill_n(y, S * D * B * H, elementwise::to_storage<T>(Acc(0)));  // steps past a sequence's end
  for (int64_t d = 0; d < D; ++d) {
    DirectionData<Acc> dir{w.data() + d * gh * I,         r.data() + d * gh * H,   bias.data() + d * 2 * gh,
                           bias.data() + d * 2 * gh + gh, peep.data() + d * 3 * H, &acts[static_cast<size_t>(d)]};
    std::vector<Acc> h(static_cast<size_t>(B * H)), c(h.size());
    for (int64_t b = 0; b < B; ++b) {
      std::copy_n(h0.data() + state_at(d, b), H, h.data() + b * H);
      std::copy_n(c0.data() + state_at(d, b), H, c.data() + b * H);
    }
    const bool reverse = g.reverse_only || d == 1;
    run_direction<Acc>(kind, g, reverse, x, lens, dir, opt, h, c, [&](int64_t t, int64_t b, const Acc* row) {
      if (!y) return;
      T* dst = y + (g.batch_major ? ((b * S + t) * D + d) * H : ((t * D + d) * B + b) * H);
      for (int64_t j = 0; j < H; ++j) dst[j] = elementwise::to_storage<T>(row[j]);
    });
    for (size_t o = 1; o < ctx.num_outputs(); ++o) {
      if (!ctx.has_output(o)) continue;
      const std::vector<Acc>& state = o == 1 ? h : c;
      T* dst = ctx.output(o).data<T>();
      for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) dst[state_at(d, b) + j] = elementwise::to_storage<T>(state[b * H + j]);
    }
  }
  return Status::Ok();
}

template <const RecurrentKind& kKind>
Status recurrent_kernel(KernelContext& ctx) {
  Geometry g;
  OPENGE_RETURN_IF_ERROR(resolve_geometry(
      ctx, kKind, [&](size_t i) { return ctx.has_input(i) ? &ctx.input(i).shape() : nullptr; }, g));
  std::vector<std::vector<Activation>> acts;
  OPENGE_RETURN_IF_ERROR(parse_activations(ctx, kKind, g.directions, acts));
  if (ctx.has_input(kSeqLens) && ctx.input(kSeqLens).dtype() != DType::kInt32)
    return ctx.error("sequence_lens must be int32");
  Status status = Status::Ok();
  const DType dt = ctx.input(kX).dtype();
  const bool ok = elementwise::visit_dtype_in<kFloatTypes>(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    status = recurrent_compute<T>(ctx, kKind, g, acts);
  });
  if (!ok) return ctx.error(std::string("unsupported dtype ") + dtype_name(dt));
  return status;
}

}  // namespace

void register_recurrent_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"RNN", 3, kRnnKind.max_inputs, 0, kRnnKind.max_outputs, &recurrent_infer<kRnnKind>,
                           &recurrent_kernel<kRnnKind>, false});
  table.push_back(OpSchema{"GRU", 3, kGruKind.max_inputs, 0, kGruKind.max_outputs, &recurrent_infer<kGruKind>,
                           &recurrent_kernel<kGruKind>, false});
  table.push_back(OpSchema{"LSTM", 3, kLstmKind.max_inputs, 0, kLstmKind.max_outputs, &recurrent_infer<kLstmKind>,
                           &recurrent_kernel<kLstmKind>, false});
}

}  // namespace openge
