// Small helpers for the nn op tests (nn_*_test.cpp): float tensors from lists, running a node
// and reading its outputs back as doubles. In their own namespace so that other families' test
// helpers of the same names cannot collide with them at link time.
#pragma once
#include <gtest/gtest.h>

#include <vector>

#include "ir/dispatch.h"
#include "op_test_util.h"

namespace openge::testing::nn_util {

// A tensor of `dtype` (any float type) holding `values` rounded once.
inline Tensor float_tensor(Shape shape, const std::vector<double>& values, DType dtype = DType::kFloat32) {
  Tensor t(dtype, std::move(shape));
  visit_float_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.numel(); ++i)
      t.data<T>()[i] = T(static_cast<float_or_self_t<T>>(values[i]));
  });
  return t;
}

inline Tensor int64_tensor(Shape shape, const std::vector<int64_t>& values) {
  Tensor t(DType::kInt64, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<int64_t>()[i] = values[i];
  return t;
}

inline std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.scalar_as_double(i));
  return v;
}

// Runs `node` and returns its outputs, failing the test on an error.
inline std::vector<Tensor> run_ok(const Node& node, const std::vector<const Tensor*>& inputs, int64_t opset = 17) {
  auto r = run_node(node, inputs, opset);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : std::vector<Tensor>{};
}

// The error message of a run that must fail ("" and a test failure if it succeeded).
inline std::string run_error(const Node& node, const std::vector<const Tensor*>& inputs, int64_t opset = 17) {
  auto r = run_node(node, inputs, opset);
  EXPECT_FALSE(r.ok()) << node.op_type << " unexpectedly succeeded";
  return r.ok() ? std::string() : r.status().message();
}

inline void expect_values(const Tensor& t, Shape shape, const std::vector<double>& expected, double tol = 1e-5) {
  ASSERT_EQ(t.shape(), shape);
  const std::vector<double> got = values_of(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], tol) << "element " << i;
}

}  // namespace openge::testing::nn_util
