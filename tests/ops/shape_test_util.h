// Small builders for the shape-op tests: iota tensors, int64 vectors, element readback.
#pragma once
#include <gtest/gtest.h>

#include <vector>

#include "ops/op_context.h"
#include "ops/op_registry.h"
#include "op_test_util.h"
#include "openge/half.h"

namespace openge::testing {

// 0, 1, 2, ... converted to `dtype`.
inline Tensor iota(DType dtype, Shape shape) {
  Tensor t(dtype, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = static_cast<double>(i);
    switch (dtype) {
      case DType::kFloat32:
        t.data<float>()[i] = static_cast<float>(v);
        break;
      case DType::kFloat64:
        t.data<double>()[i] = v;
        break;
      case DType::kFloat16:
        t.data<Float16>()[i] = Float16(static_cast<float>(v));
        break;
      case DType::kBFloat16:
        t.data<BFloat16>()[i] = BFloat16(static_cast<float>(v));
        break;
      case DType::kInt8:
        t.data<int8_t>()[i] = static_cast<int8_t>(i);
        break;
      case DType::kUInt8:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(i);
        break;
      case DType::kInt16:
        t.data<int16_t>()[i] = static_cast<int16_t>(i);
        break;
      case DType::kInt32:
        t.data<int32_t>()[i] = static_cast<int32_t>(i);
        break;
      case DType::kInt64:
        t.data<int64_t>()[i] = i;
        break;
      case DType::kBool:
        t.data<bool>()[i] = (i % 2) != 0;
        break;
      default:
        ADD_FAILURE() << "iota: unsupported dtype";
    }
  }
  return t;
}

inline Tensor ints(std::vector<int64_t> v, bool as_scalar = false) {
  Tensor t(DType::kInt64, as_scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t;
}

inline Tensor ints32(std::vector<int32_t> v) {
  Tensor t(DType::kInt32, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<int32_t>()[i] = v[i];
  return t;
}

inline Tensor floats(Shape shape, std::vector<float> v) {
  Tensor t(DType::kFloat32, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

// Every element as double (for comparisons across dtypes).
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.scalar_as_double(i);
  return v;
}

inline std::vector<int64_t> int_values(const Tensor& t) { return t.to_int64_vector(); }

// Runs `node` and returns output 0, failing the test on error.
inline Tensor run1(const Node& node, const std::vector<const Tensor*>& inputs, int64_t opset = 17) {
  auto r = run_node(node, inputs, opset);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return Tensor();
  return (*r)[0];
}

// The error message of a run that must fail ("" if it succeeded, which fails the test).
inline std::string run_error(const Node& node, const std::vector<const Tensor*>& inputs, int64_t opset = 17) {
  auto r = run_node(node, inputs, opset);
  EXPECT_FALSE(r.ok()) << node.op_type << " should have failed";
  return r.ok() ? std::string() : r.status().message();
}

// Compile-time inference with some inputs' shapes/values known: ValueInfo per input (nullptr
// for absent ones).
struct InferResult {
  Status status;
  std::vector<ValueInfo> outputs;
  std::vector<Tensor> folded;
};
inline InferResult infer_only(const Node& node, std::vector<const ValueInfo*> inputs, int64_t opset = 17) {
  const OpSchema* schema = find_op_schema(node.op_type);
  InferResult r;
  if (!schema) {
    r.status = unsupported("no schema");
    return r;
  }
  InferContext ctx(node, opset, std::move(inputs), node.outputs.size());
  r.status = schema->infer(ctx);
  for (size_t i = 0; i < node.outputs.size(); ++i) r.outputs.push_back(ctx.output(i));
  r.folded = ctx.folded();
  return r;
}

inline ValueInfo shape_info(DType dt, Shape s) { return ValueInfo{dt, true, std::move(s), nullptr}; }
inline ValueInfo dtype_info(DType dt) { return ValueInfo{dt, false, {}, nullptr}; }
inline ValueInfo value_info(const Tensor& t) { return ValueInfo{t.dtype(), true, t.shape(), &t}; }

}  // namespace openge::testing
