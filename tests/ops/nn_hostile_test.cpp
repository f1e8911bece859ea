// Hostile attribute values for the nn ops: every combination must either run or return an
// error; none may crash, hang or allocate absurdly. Attribute values are drawn from sets that
// mix valid, boundary and absurd values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "nn_test_util.h"
#include "base/size_limit.h"
#include "ops/nn/nn_window.h"

namespace openge::testing {
namespace {

using namespace nn_util;

template <class V>
V pick(std::mt19937& rng, const std::vector<V>& options) {
  return options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
}

std::vector<int64_t> pick_ints(std::mt19937& rng, size_t n, const std::vector<int64_t>& options) {
  std::vector<int64_t> v(n);
  for (auto& e : v) e = pick(rng, options);
  return v;
}

const std::vector<int64_t> kWindowValues = {
    -1, 0, 1, 1, 2, 3, 7, int64_t{1} << 40, std::numeric_limits<int64_t>::max()};
const std::vector<std::string> kAutoPads = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "bogus"};

Shape random_shape(std::mt19937& rng, size_t rank) {
  Shape s(rank);
  for (auto& d : s) d = std::uniform_int_distribution<int64_t>(0, 5)(rng);
  return s;
}

// Sets random window attributes; the attribute list sometimes has the wrong length.
void random_window_attrs(std::mt19937& rng, Node& n, size_t spatial) {
  auto len = [&](size_t want) { return pick<size_t>(rng, {want, want, want, want + 1, 0}); };
  if (rng() % 4) set_ints(n, "strides", pick_ints(rng, len(spatial), kWindowValues));
  if (rng() % 4) set_ints(n, "dilations", pick_ints(rng, len(spatial), kWindowValues));
  if (rng() % 3) set_ints(n, "pads", pick_ints(rng, len(2 * spatial), kWindowValues));
  if (rng() % 3) set_string(n, "auto_pad", pick(rng, kAutoPads));
  if (rng() % 3) set_ints(n, "kernel_shape", pick_ints(rng, len(spatial), kWindowValues));
}

TEST(NnHostile, ConvAndConvTransposeNeverCrash) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 1500; ++iter) {
    const bool transposed = iter % 2;
    const size_t rank = pick<size_t>(rng, {3, 4, 5});
    Node n = make_node(transposed ? "ConvTranspose" : "Conv", 2);
    random_window_attrs(rng, n, rank - 2);
    if (rng() % 2) set_int(n, "group", pick<int64_t>(rng, {-1, 0, 1, 2, 3, int64_t{1} << 40}));
    if (transposed && rng() % 2) set_ints(n, "output_padding", pick_ints(rng, rank - 2, kWindowValues));
    if (transposed && rng() % 3 == 0)
      set_ints(n, "output_shape", pick_ints(rng, rank - 2, {-1, 0, 1, 4, 9, int64_t{1} << 45}));
    Tensor x = float_tensor(random_shape(rng, rank), {});
    Tensor w = float_tensor(random_shape(rng, pick<size_t>(rng, {rank, rank, rank - 1})), {});
    auto r = run_node(n, {&x, &w});
    if (r.ok()) {
      EXPECT_LE((*r)[0].numel(), 1 << 20) << "iteration " << iter;
    }
  }
}

TEST(NnHostile, PoolsNeverCrash) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 1500; ++iter) {
    const size_t rank = pick<size_t>(rng, {2, 3, 4, 5});
    const bool max_pool = iter % 2;
    Node n = make_node(max_pool ? "MaxPool" : "AveragePool", 1, max_pool ? 2 : 1);
    random_window_attrs(rng, n, rank >= 2 ? rank - 2 : 0);
    if (rng() % 2) set_int(n, "ceil_mode", pick<int64_t>(rng, {0, 1, 2}));
    if (rng() % 3 == 0) set_int(n, max_pool ? "storage_order" : "count_include_pad", pick<int64_t>(rng, {0, 1, -1}));
    Tensor x = float_tensor(random_shape(rng, rank), {});
    auto r = run_node(n, {&x});
    if (r.ok()) {
      EXPECT_LE((*r)[0].numel(), 1 << 20) << "iteration " << iter;
    }
  }
}

TEST(NnHostile, ResizeNeverCrash) {
  std::mt19937 rng(13);
  const std::vector<double> scale_values = {0, -1, NAN, INFINITY, 0.5, 1, 2, 3.7, 1e12};
  const std::vector<int64_t> size_values = {-1, 0, 1, 3, 8, int64_t{1} << 40};
  for (int iter = 0; iter < 1500; ++iter) {
    const size_t rank = pick<size_t>(rng, {1, 2, 3, 4});
    Node n = make_node("Resize", 4);
    set_string(n, "mode", pick<std::string>(rng, {"nearest", "linear", "cubic", "x"}));
    set_string(n, "coordinate_transformation_mode",
               pick<std::string>(rng, {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                       "tf_half_pixel_for_nn", "tf_crop_and_resize"}));
    set_string(n, "nearest_mode", pick<std::string>(rng, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}));
    Tensor x = float_tensor(random_shape(rng, rank), {});
    const size_t count = pick<size_t>(rng, {rank, rank, 0, rank + 1});
    std::vector<double> scales, roi;
    std::vector<int64_t> sizes;
    const bool use_sizes = rng() % 2;
    for (size_t i = 0; i < count; ++i) {
      if (use_sizes)
        sizes.push_back(pick(rng, size_values));
      else
        scales.push_back(pick(rng, scale_values));
    }
    for (size_t i = 0; i < 2 * rank; ++i) roi.push_back(pick<double>(rng, {0, 1, -2, 0.5, NAN}));
    Tensor roi_t = float_tensor({static_cast<int64_t>(roi.size())}, roi);
    Tensor scales_t = float_tensor({static_cast<int64_t>(scales.size())}, scales);
    Tensor sizes_t = int64_tensor({static_cast<int64_t>(sizes.size())}, sizes);
    const int64_t opset = pick<int64_t>(rng, {10, 11, 13});
    auto r = opset == 10 ? run_node(make_node("Resize", 2), {&x, &scales_t}, 10)
                         : run_node(n, {&x, &roi_t, &scales_t, &sizes_t}, opset);
    if (r.ok()) {
      EXPECT_LE(static_cast<uint64_t>((*r)[0].nbytes()), max_tensor_bytes()) << "iteration " << iter;
    }
  }
}

}  // namespace
}  // namespace openge::testing
