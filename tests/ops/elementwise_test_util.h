// Helpers shared by the elementwise op tests.
#pragma once
#include <gtest/gtest.h>

#include <vector>

#include "ops/op_test_util.h"
#include "openge/half.h"

namespace openge::testing {

template <class T>
Tensor tensor_of(DType dtype, Shape shape, const std::vector<T>& values) {
  Tensor t(dtype, std::move(shape));
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size()) << "test data size";
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.numel()); ++i) t.data<T>()[i] = values[i];
  return t;
}
inline Tensor f32(Shape shape, const std::vector<float>& v) {
  return tensor_of<float>(DType::kFloat32, std::move(shape), v);
}
inline Tensor f16(Shape shape, const std::vector<float>& v) {
  std::vector<Float16> h;
  for (float f : v) h.push_back(Float16(f));
  return tensor_of<Float16>(DType::kFloat16, std::move(shape), h);
}
inline Tensor bf16(Shape shape, const std::vector<float>& v) {
  std::vector<BFloat16> h;
  for (float f : v) h.push_back(BFloat16(f));
  return tensor_of<BFloat16>(DType::kBFloat16, std::move(shape), h);
}
inline Tensor i32(Shape shape, const std::vector<int32_t>& v) {
  return tensor_of<int32_t>(DType::kInt32, std::move(shape), v);
}
inline Tensor i64(Shape shape, const std::vector<int64_t>& v) {
  return tensor_of<int64_t>(DType::kInt64, std::move(shape), v);
}
inline Tensor boolean(Shape shape, const std::vector<bool>& v) {
  Tensor t(DType::kBool, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
  return t;
}

// Every element converted to double (fp16/bf16 through float).
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.scalar_as_double(i));
  return v;
}

// Runs `node` and returns output `index`; fails the test if evaluation fails.
inline Tensor run_ok(const Node& node, const std::vector<const Tensor*>& inputs, int64_t opset = 17, size_t index = 0) {
  auto r = run_node(node, inputs, opset);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok() || index >= r->size()) return Tensor();
  return (*r)[index];
}

inline Tensor run_binary(const std::string& op, const Tensor& a, const Tensor& b, int64_t opset = 17) {
  return run_ok(make_node(op, 2), {&a, &b}, opset);
}
inline Tensor run_unary(const std::string& op, const Tensor& x, int64_t opset = 17) {
  return run_ok(make_node(op, 1), {&x}, opset);
}

}  // namespace openge::testing
