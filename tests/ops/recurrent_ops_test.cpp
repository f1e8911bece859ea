// RNN, GRU and LSTM against hand-computed single-unit sequences and an independent naive
// implementation of the ONNX equations (per-element dot products in double, written from the
// operator spec, no GEMM), over directions, sequence lengths, initial states, layouts,
// activation lists and dtypes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "op_test_util.h"
#include "openge/half.h"

namespace openge {
namespace {

using testing::make_node;
using testing::make_tensor;
using testing::run_node;
using testing::set_float;
using testing::set_int;
using testing::set_string;

void set_strings(Node& n, const std::string& name, std::vector<std::string> v) {
  Attribute a;
  a.kind = Attribute::Kind::kStrings;
  a.strings = std::move(v);
  n.attrs.set(name, a);
}
void set_floats(Node& n, const std::string& name, std::vector<float> v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloats;
  a.floats = std::move(v);
  n.attrs.set(name, a);
}

std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.scalar_as_double(i));
  return v;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
}

Tensor random_tensor(DType dt, Shape shape, uint32_t seed) {
  Tensor t(dt, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = dist(rng);
    if (dt == DType::kFloat64)
      t.data<double>()[i] = v;
    else if (dt == DType::kFloat16)
      t.data<Float16>()[i] = Float16(static_cast<float>(v));
    else
      t.data<float>()[i] = static_cast<float>(v);
  }
  return t;
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// ---------------------------------------------------------------------------------------------
// Hand-computed single-unit cases (hidden = input = 1).

TEST(OpRecurrent, RnnForwardScalarByHand) {
  Node n = make_node("RNN", 4, 2);
  set_int(n, "hidden_size", 1);
  Tensor x = make_tensor<float>(DType::kFloat32, {3, 1, 1}, {1, -1, 0.5f});
  Tensor w = make_tensor<float>(DType::kFloat32, {1, 1, 1}, {2});
  Tensor r = make_tensor<float>(DType::kFloat32, {1, 1, 1}, {0.5f});
  Tensor b = make_tensor<float>(DType::kFloat32, {1, 2}, {0.1f, 0.2f});
  auto out = run_node(n, {&x, &w, &r, &b});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const double h1 = std::tanh(2 * 1 + 0.3), h2 = std::tanh(-2 + 0.5 * h1 + 0.3), h3 = std::tanh(1 + 0.5 * h2 + 0.3);
  EXPECT_EQ((*out)[0].shape(), (Shape{3, 1, 1, 1}));
  expect_near_all(values_of((*out)[0]), {h1, h2, h3}, 1e-6);
  expect_near_all(values_of((*out)[1]), {h3}, 1e-6);
}

TEST(OpRecurrent, GruLinearBeforeResetScalarByHand) {
  // W = (Wz, Wr, Wh), R likewise, B = (Wb z r h, Rb z r h); one step from initial_h = 0.5.
  const double wz = 0.3, wr = -0.4, wh = 0.8, rz = 0.2, rr = 0.6, rh = -0.7, rbh = 0.25, x0 = 1.5, h0 = 0.5;
  Tensor x = make_tensor<float>(DType::kFloat32, {1, 1, 1}, {static_cast<float>(x0)});
  Tensor w = make_tensor<float>(DType::kFloat32, {1, 3, 1}, {float(wz), float(wr), float(wh)});
  Tensor r = make_tensor<float>(DType::kFloat32, {1, 3, 1}, {float(rz), float(rr), float(rh)});
  Tensor b = make_tensor<float>(DType::kFloat32, {1, 6}, {0, 0, 0, 0, 0, float(rbh)});
  Tensor h = make_tensor<float>(DType::kFloat32, {1, 1, 1}, {float(h0)});
  const double z = sigmoid(wz * x0 + rz * h0), rg = sigmoid(wr * x0 + rr * h0);
  for (int lbr : {0, 1}) {
    Node n = make_node("GRU", 6, 2);
    set_int(n, "hidden_size", 1);
    set_int(n, "linear_before_reset", lbr);
    auto out = run_node(n, {&x, &w, &r, &b, nullptr, &h});
    ASSERT_TRUE(out.ok()) << out.status().message();
    const double cand = lbr ? std::tanh(wh * x0 + rg * (rh * h0 + rbh)) : std::tanh(wh * x0 + rh * (rg * h0) + rbh);
    const double want = (1 - z) * cand + z * h0;
    expect_near_all(values_of((*out)[1]), {want}, 1e-6);
  }
}

TEST(OpRecurrent, LstmPeepholeAndInputForgetScalarByHand) {
  // Gates in ONNX order i, o, f, c; P = (Pi, Po, Pf).
  const double wi = 0.5, wo = -0.3, wf = 0.9, wc = 0.4, ri = 0.1, ro = 0.2, rf = -0.2, rc = 0.7;
  const double pi = 0.3, po = -0.6, pf = 0.8, x0 = 0.7, h0 = -0.4, c0 = 0.9;
  Tensor x = make_tensor<float>(DType::kFloat32, {1, 1, 1}, {float(x0)});
  Tensor w = make_tensor<float>(DType::kFloat32, {1, 4, 1}, {float(wi), float(wo), float(wf), float(wc)});
  Tensor r = make_tensor<float>(DType::kFloat32, {1, 4, 1}, {float(ri), float(ro), float(rf), float(rc)});
  Tensor h = make_tensor<float>(DType::kFloat32, {1, 1, 1}, {float(h0)});
  Tensor c = make_tensor<float>(DType::kFloat32, {1, 1, 1}, {float(c0)});
  Tensor p = make_tensor<float>(DType::kFloat32, {1, 3}, {float(pi), float(po), float(pf)});
  for (int input_forget : {0, 1}) {
    Node n = make_node("LSTM", 8, 3);
    set_int(n, "hidden_size", 1);
    set_int(n, "input_forget", input_forget);
    auto out = run_node(n, {&x, &w, &r, nullptr, nullptr, &h, &c, &p});
    ASSERT_TRUE(out.ok()) << out.status().message();
    const double i = sigmoid(wi * x0 + ri * h0 + pi * c0);
    const double f = input_forget ? 1 - i : sigmoid(wf * x0 + rf * h0 + pf * c0);
    const double ct = f * c0 + i * std::tanh(wc * x0 + rc * h0);
    const double o = sigmoid(wo * x0 + ro * h0 + po * ct);
    expect_near_all(values_of((*out)[1]), {o * std::tanh(ct)}, 1e-6);
    expect_near_all(values_of((*out)[2]), {ct}, 1e-6);
  }
}

TEST(OpRecurrent, ActivationListWithAlphaBetaAndClipByHand) {
  // RNN with ScaledTanh(alpha=2, beta=0.5) and clip 1: the pre-activation 3 is clipped to 1.
  Node n = make_node("RNN", 3, 2);
  set_int(n, "hidden_size", 1);
  set_strings(n, "activations", {"ScaledTanh"});
  set_floats(n, "activation_alpha", {2});
  set_floats(n, "activation_beta", {0.5f});
  set_float(n, "clip", 1);
  Tensor x = make_tensor<float>(DType::kFloat32, {1, 1, 1}, {3});
  Tensor w = make_tensor<float>(DType::kFloat32, {1, 1, 1}, {1});
  Tensor r = make_tensor<float>(DType::kFloat32, {1, 1, 1}, {1});
  auto out = run_node(n, {&x, &w, &r});
  ASSERT_TRUE(out.ok()) << out.status().message();
  expect_near_all(values_of((*out)[1]), {2 * std::tanh(0.5 * 1)}, 1e-6);
}

// ---------------------------------------------------------------------------------------------
// Independent naive implementation of the ONNX equations, time-major layout.

struct Config {
  std::string op;
  std::string direction = "forward";
  int64_t seq = 4, batch = 3, input = 5, hidden = 4;
  std::vector<int32_t> lens = {};  // empty: full length
  bool bias = true, initial = true, peephole = false;
  int64_t linear_before_reset = 0, input_forget = 0;
  std::vector<std::string> activations = {};  // names understood by naive_act
};

double naive_act(const std::string& name, double x) {
  if (name == "Sigmoid") return sigmoid(x);
  if (name == "Tanh") return std::tanh(x);
  if (name == "Relu") return x > 0 ? x : 0;
  if (name == "Softsign") return x / (1 + std::fabs(x));
  if (name == "HardSigmoid") return std::max(0.0, std::min(1.0, 0.2 * x + 0.5));  // ONNX defaults
  ADD_FAILURE() << "naive_act: " << name;
  return 0;
}

struct NaiveResult {
  std::vector<double> y, yh, yc;
};

// Inputs as doubles in ONNX layouts: w [D, G*H, I], r [D, G*H, H], b [D, 2*G*H], p [D, 3H],
// h0/c0 [D, B, H]; x [S, B, I].
NaiveResult naive_run(const Config& c, int gates, const std::vector<double>& x, const std::vector<double>& w,
                      const std::vector<double>& r, const std::vector<double>& b, const std::vector<double>& p,
                      const std::vector<double>& h0, const std::vector<double>& c0) {
  const int64_t D = c.direction == "bidirectional" ? 2 : 1, S = c.seq, B = c.batch, I = c.input, H = c.hidden;
  const int nact = c.op == "RNN" ? 1 : c.op == "GRU" ? 2 : 3;
  NaiveResult out;
  out.y.assign(static_cast<size_t>(S * D * B * H), 0.0);
  out.yh.assign(static_cast<size_t>(D * B * H), 0.0);
  out.yc = out.yh;
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = c.direction == "reverse" || d == 1;
    auto act = [&](int k, double v) { return naive_act(c.activations[static_cast<size_t>(d * nact + k)], v); };
    // Gate pre-activation parts for gate g, unit j.
    auto wx = [&](int64_t t, int64_t bb, int g, int64_t j) {
      double s = 0;
      for (int64_t k = 0; k < I; ++k) s += x[(t * B + bb) * I + k] * w[(d * gates * H + g * H + j) * I + k];
      return s + b[d * 2 * gates * H + g * H + j];
    };
    auto rh = [&](const std::vector<double>& hv, int g, int64_t j) {
      double s = 0;
      for (int64_t k = 0; k < H; ++k) s += hv[k] * r[(d * gates * H + g * H + j) * H + k];
      return s + b[d * 2 * gates * H + gates * H + g * H + j];
    };
    for (int64_t bb = 0; bb < B; ++bb) {
      std::vector<double> hv(h0.begin() + (d * B + bb) * H, h0.begin() + (d * B + bb + 1) * H);
      std::vector<double> cv(c0.begin() + (d * B + bb) * H, c0.begin() + (d * B + bb + 1) * H);
      const int64_t len = c.lens.empty() ? S : c.lens[static_cast<size_t>(bb)];
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        std::vector<double> nh(static_cast<size_t>(H)), nc(static_cast<size_t>(H));
        for (int64_t j = 0; j < H; ++j) {
          if (c.op == "RNN") {
            nh[j] = act(0, wx(t, bb, 0, j) + rh(hv, 0, j));
          } else if (c.op == "GRU") {
            const double z = act(0, wx(t, bb, 0, j) + rh(hv, 0, j));
            const double rg = act(0, wx(t, bb, 1, j) + rh(hv, 1, j));
            double cand;
            if (c.linear_before_reset) {
              cand = act(1, wx(t, bb, 2, j) + rg * rh(hv, 2, j));
            } else {
              std::vector<double> reset(static_cast<size_t>(H));
              for (int64_t k = 0; k < H; ++k)  // rt of unit k for the product with row j of R_h
                reset[k] = act(0, wx(t, bb, 1, k) + rh(hv, 1, k)) * hv[k];
              cand = act(1, wx(t, bb, 2, j) + rh(reset, 2, j));
            }
            nh[j] = (1 - z) * cand + z * hv[j];
          } else {
            const double* pp = p.data() + d * 3 * H;
            const double i = act(0, wx(t, bb, 0, j) + rh(hv, 0, j) + pp[j] * cv[j]);
            const double f = c.input_forget ? 1 - i : act(0, wx(t, bb, 2, j) + rh(hv, 2, j) + pp[2 * H + j] * cv[j]);
            nc[j] = f * cv[j] + i * act(1, wx(t, bb, 3, j) + rh(hv, 3, j));
            const double o = act(0, wx(t, bb, 1, j) + rh(hv, 1, j) + pp[H + j] * nc[j]);
            nh[j] = o * act(2, nc[j]);
          }
        }
        hv = nh;
        if (c.op == "LSTM") cv = nc;
        for (int64_t j = 0; j < H; ++j) out.y[((t * D + d) * B + bb) * H + j] = hv[j];
      }
      for (int64_t j = 0; j < H; ++j) {
        out.yh[(d * B + bb) * H + j] = hv[j];
        out.yc[(d * B + bb) * H + j] = cv[j];
      }
    }
  }
  return out;
}

// Runs the op (and the naive version) on seeded random inputs; layout 1 runs the op on
// transposed inputs and transposes its outputs back before comparing.
void check_against_naive(Config c, DType dt, double tol, int64_t layout = 0) {
  const int gates = c.op == "RNN" ? 1 : c.op == "GRU" ? 3 : 4;
  const int nact = c.op == "RNN" ? 1 : c.op == "GRU" ? 2 : 3;
  const int64_t D = c.direction == "bidirectional" ? 2 : 1, S = c.seq, B = c.batch, I = c.input, H = c.hidden;
  const std::vector<std::string> defaults = c.op == "RNN"   ? std::vector<std::string>{"Tanh"}
                                            : c.op == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                            : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  const bool given = !c.activations.empty();
  if (!given)
    for (int64_t d = 0; d < D; ++d) c.activations.insert(c.activations.end(), defaults.begin(), defaults.end());
  ASSERT_EQ(c.activations.size(), static_cast<size_t>(D * nact));

  Tensor x = random_tensor(dt, {S, B, I}, 1);
  Tensor w = random_tensor(dt, {D, gates * H, I}, 2);
  Tensor r = random_tensor(dt, {D, gates * H, H}, 3);
  Tensor b = random_tensor(dt, {D, 2 * gates * H}, 4);
  Tensor h0 = random_tensor(dt, {D, B, H}, 5);
  Tensor c0 = random_tensor(dt, {D, B, H}, 6);
  Tensor p = random_tensor(dt, {D, 3 * H}, 7);
  Tensor lens(DType::kInt32, {B});
  for (int64_t i = 0; i < B && !c.lens.empty(); ++i) lens.data<int32_t>()[i] = c.lens[static_cast<size_t>(i)];

  const std::vector<double> zeros_b(static_cast<size_t>(D * 2 * gates * H), 0.0);
  const std::vector<double> zeros_s(static_cast<size_t>(D * B * H), 0.0);
  const std::vector<double> zeros_p(static_cast<size_t>(D * 3 * H), 0.0);
  NaiveResult want = naive_run(c, gates, values_of(x), values_of(w), values_of(r), c.bias ? values_of(b) : zeros_b,
                               c.peephole ? values_of(p) : zeros_p, c.initial ? values_of(h0) : zeros_s,
                               c.initial ? values_of(c0) : zeros_s);

  // Layout 1: X [B, S, I], states [B, D, H], Y [B, S, D, H].
  auto transpose3 = [&](const Tensor& t, int64_t a0, int64_t a1, int64_t a2) {
    Tensor o(t.dtype(), {a1, a0, a2});
    const size_t es = dtype_size(t.dtype());
    for (int64_t i = 0; i < a0; ++i)
      for (int64_t j = 0; j < a1; ++j)
        std::memcpy(static_cast<char*>(o.raw()) + ((j * a0 + i) * a2) * es,
                    static_cast<const char*>(t.raw()) + ((i * a1 + j) * a2) * es, static_cast<size_t>(a2) * es);
    return o;
  };
  if (layout == 1) {
    x = transpose3(x, S, B, I);
    h0 = transpose3(h0, D, B, H);
    c0 = transpose3(c0, D, B, H);
  }

  const bool lstm = c.op == "LSTM";
  Node n = make_node(c.op, lstm ? 8 : 6, lstm ? 3 : 2);
  set_int(n, "hidden_size", H);
  set_string(n, "direction", c.direction);
  if (layout) set_int(n, "layout", layout);
  if (given) set_strings(n, "activations", c.activations);
  if (c.op == "GRU") set_int(n, "linear_before_reset", c.linear_before_reset);
  if (lstm) set_int(n, "input_forget", c.input_forget);
  std::vector<const Tensor*> inputs{
      &x, &w, &r, c.bias ? &b : nullptr, c.lens.empty() ? nullptr : &lens, c.initial ? &h0 : nullptr};
  if (lstm) {
    inputs.push_back(c.initial ? &c0 : nullptr);
    inputs.push_back(c.peephole ? &p : nullptr);
  }
  auto out = run_node(n, inputs, 14);
  ASSERT_TRUE(out.ok()) << out.status().message();
  Tensor y = (*out)[0], yh = (*out)[1];
  if (layout == 1) {
    // [B, S, D, H] -> [S, D, B, H] through [B, S*D, H] -> [S*D, B, H].
    ASSERT_EQ(y.shape(), (Shape{B, S, D, H}));
    y = transpose3(y.reshaped({B, S * D, H}), B, S * D, H).reshaped({S, D, B, H});
    yh = transpose3(yh, B, D, H);
  }
  ASSERT_EQ(y.shape(), (Shape{S, D, B, H}));
  ASSERT_EQ(yh.shape(), (Shape{D, B, H}));
  expect_near_all(values_of(y), want.y, tol);
  expect_near_all(values_of(yh), want.yh, tol);
  if (lstm) {
    Tensor yc = layout == 1 ? transpose3((*out)[2], B, D, H) : (*out)[2];
    expect_near_all(values_of(yc), want.yc, tol);
  }
}

TEST(OpRecurrent, RnnDirectionsMatchNaive) {
  for (const char* dir : {"forward", "reverse", "bidirectional"}) {
    SCOPED_TRACE(dir);
    Config c{.op = "RNN", .direction = dir};
    check_against_naive(c, DType::kFloat32, 1e-5);
  }
}

TEST(OpRecurrent, GruBothResetModesAndDirectionsMatchNaive) {
  for (int64_t lbr : {0, 1})
    for (const char* dir : {"forward", "reverse", "bidirectional"}) {
      SCOPED_TRACE(std::string(dir) + " lbr " + std::to_string(lbr));
      Config c{.op = "GRU", .direction = dir, .linear_before_reset = lbr};
      check_against_naive(c, DType::kFloat32, 1e-5);
    }
}

TEST(OpRecurrent, LstmPeepholesInputForgetDirectionsMatchNaive) {
  for (int64_t forget : {0, 1})
    for (const char* dir : {"forward", "reverse", "bidirectional"}) {
      SCOPED_TRACE(std::string(dir) + " input_forget " + std::to_string(forget));
      Config c{.op = "LSTM", .direction = dir, .peephole = true, .input_forget = forget};
      check_against_naive(c, DType::kFloat32, 1e-5);
    }
}

TEST(OpRecurrent, SequenceLensHoldStateAndZeroPaddedSteps) {
  for (const char* op : {"RNN", "GRU", "LSTM"})
    for (const char* dir : {"forward", "reverse", "bidirectional"}) {
      SCOPED_TRACE(std::string(op) + " " + dir);
      Config c{.op = op, .direction = dir, .lens = {4, 2, 0}};
      check_against_naive(c, DType::kFloat32, 1e-5);
    }
}

TEST(OpRecurrent, NoBiasNoInitialStateMatchNaive) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    SCOPED_TRACE(op);
    Config c{.op = op, .bias = false, .initial = false};
    check_against_naive(c, DType::kFloat32, 1e-5);
  }
}

TEST(OpRecurrent, BatchMajorLayoutMatchesNaive) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    SCOPED_TRACE(op);
    Config c{.op = op, .direction = "bidirectional", .lens = {3, 4, 1}};
    check_against_naive(c, DType::kFloat32, 1e-5, /*layout=*/1);
  }
}

TEST(OpRecurrent, GivenActivationListsPerDirection) {
  Config lstm{.op = "LSTM",
              .direction = "bidirectional",
              .activations = {"HardSigmoid", "Softsign", "Relu", "Sigmoid", "Tanh", "Softsign"}};
  check_against_naive(lstm, DType::kFloat32, 1e-5);
  Config gru{.op = "GRU", .direction = "reverse", .activations = {"HardSigmoid", "Relu"}};
  check_against_naive(gru, DType::kFloat32, 1e-5);
}

TEST(OpRecurrent, DoubleAndHalfMatchNaive) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    SCOPED_TRACE(op);
    check_against_naive(Config{.op = op, .direction = "bidirectional", .peephole = true}, DType::kFloat64, 1e-12);
    // fp16: inputs are exactly representable, compute in float, one rounding per stored value.
    check_against_naive(Config{.op = op, .direction = "bidirectional", .peephole = true}, DType::kFloat16, 2e-3);
  }
}

// ---------------------------------------------------------------------------------------------
// Errors, not crashes.

TEST(OpRecurrent, BadAttributesAndDataAreErrors) {
  Tensor x = random_tensor(DType::kFloat32, {2, 1, 1}, 1);
  Tensor w = random_tensor(DType::kFloat32, {1, 1, 1}, 2);
  Tensor r = random_tensor(DType::kFloat32, {1, 1, 1}, 3);
  {
    Node n = make_node("RNN", 3, 2);
    set_string(n, "direction", "sideways");
    EXPECT_FALSE(run_node(n, {&x, &w, &r}).ok());
  }
  {
    Node n = make_node("RNN", 3, 2);
    set_strings(n, "activations", {"Swish"});
    auto out = run_node(n, {&x, &w, &r});
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("Swish"), std::string::npos);
  }
  {
    Node n = make_node("RNN", 3, 2);
    set_int(n, "hidden_size", 3);  // R says 1
    EXPECT_FALSE(run_node(n, {&x, &w, &r}).ok());
  }
  {
    Node n = make_node("RNN", 5, 2);
    Tensor lens = make_tensor<int32_t>(DType::kInt32, {1}, {7});  // longer than the sequence
    auto out = run_node(n, {&x, &w, &r, nullptr, &lens});
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("sequence_lens"), std::string::npos);
  }
  {
    Node n = make_node("GRU", 3, 2);  // W must have 3 gates
    EXPECT_FALSE(run_node(n, {&x, &w, &r}).ok());
  }
}

}  // namespace
}  // namespace openge
