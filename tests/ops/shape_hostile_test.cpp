// Hostile-model robustness: random attributes and shape-like inputs (including extreme
// values) must give either a result or an error, never a crash, an out-of-bounds access
// (run under the sanitizer build) or an absurd allocation.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "shape_test_util.h"

namespace openge::testing {
namespace {

int64_t hostile_int(std::mt19937& rng) {
  static const int64_t kSpecial[] = {0,
                                     1,
                                     -1,
                                     2,
                                     -2,
                                     3,
                                     4,
                                     std::numeric_limits<int64_t>::max(),
                                     std::numeric_limits<int64_t>::min(),
                                     int64_t{1} << 40,
                                     -(int64_t{1} << 40)};
  std::uniform_int_distribution<int> pick(0, 14);
  const int p = pick(rng);
  return p < 11 ? kSpecial[p] : p - 12;
}

std::vector<int64_t> hostile_list(std::mt19937& rng, size_t max_len) {
  std::uniform_int_distribution<size_t> len(0, max_len);
  std::vector<int64_t> v(len(rng));
  for (auto& x : v) x = hostile_int(rng);
  return v;
}

TEST(OpShapeFamily, SurvivesRandomParameters) {
  std::mt19937 rng(1234);
  const Tensor data = iota(DType::kFloat32, {2, 3, 4});
  struct Case {
    const char* op;
    size_t int_inputs;  // how many hostile int64 inputs follow the data input
    int64_t opset;
  };
  const Case cases[] = {{"Reshape", 1, 17}, {"Squeeze", 1, 13}, {"Unsqueeze", 1, 13},       {"Split", 1, 13},
                        {"Slice", 4, 13},   {"Gather", 1, 13},  {"GatherElements", 1, 13},  {"Expand", 1, 13},
                        {"Tile", 1, 13},    {"Pad", 1, 13},     {"ConstantOfShape", 0, 13}, {"ScatterND", 2, 13}};
  int ran = 0;
  for (int iter = 0; iter < 300; ++iter) {
    for (const Case& c : cases) {
      const size_t outputs = std::string(c.op) == "Split" ? 2 : 1;
      Node n = make_node(c.op, 1 + c.int_inputs, outputs);
      set_int(n, "axis", hostile_int(rng) % 5);
      if (iter % 3 == 0) set_ints(n, "perm", hostile_list(rng, 3));
      if (iter % 4 == 0) set_string(n, "mode", iter % 8 == 0 ? "reflect" : "edge");
      std::vector<Tensor> holders;
      holders.reserve(4);
      const bool shape_input_first = std::string(c.op) == "ConstantOfShape";
      if (shape_input_first) holders.push_back(ints(hostile_list(rng, 3)));
      for (size_t i = 0; i < c.int_inputs; ++i) {
        std::vector<int64_t> v = hostile_list(rng, 4);
        Tensor t = ints(v);
        // Shapes like [k, 1] for ScatterND / GatherElements indices.
        if (i == 0 && (std::string(c.op) == "ScatterND" || std::string(c.op) == "GatherElements") && !v.empty())
          t = t.reshaped({static_cast<int64_t>(v.size()), 1, 1});
        holders.push_back(t);
      }
      std::vector<const Tensor*> inputs;
      if (!shape_input_first) inputs.push_back(&data);
      for (const Tensor& t : holders) inputs.push_back(&t);
      if (std::string(c.op) == "ScatterND") inputs.back() = &data;  // updates
      auto r = run_node(n, inputs, c.opset);
      if (r.ok()) {
        ++ran;
        for (const Tensor& t : *r) EXPECT_LE(t.nbytes(), size_t{1} << 32) << c.op;
      }
    }
  }
  EXPECT_GT(ran, 0);  // some combinations are valid
}

TEST(OpSqueeze, EmptyAxesInputSqueezesAllUnitDims) {
  Node n = make_node("Squeeze", 2);
  Tensor x = iota(DType::kFloat32, {1, 3, 1});
  Tensor axes(DType::kInt64, {0});
  EXPECT_EQ(run1(n, {&x, &axes}).shape(), (Shape{3}));
}

}  // namespace
}  // namespace openge::testing
