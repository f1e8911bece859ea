// SequenceProto / OptionalProto files (src/frontend/value_proto.cpp) and string tensors in a
// TensorProto, on messages built here with ONNX's own protobuf classes.
#include <gtest/gtest.h>
#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include "frontend/tensor_proto.h"
#include "openge/tensor_files.h"

namespace openge {
namespace {

onnx::TensorProto int64_tensor(std::initializer_list<int64_t> values) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t.add_int64_data(v);
  return t;
}

template <class Proto>
Result<Tensor> parse(const Proto& p, ValueKind kind, DType elem) {
  const std::string bytes = p.SerializeAsString();
  return read_value_pb_from_bytes(bytes.data(), bytes.size(), kind, elem, "v.pb");
}

TEST(ValueProto, ReadsASequence) {
  onnx::SequenceProto seq;
  seq.set_elem_type(onnx::SequenceProto::TENSOR);
  *seq.add_tensor_values() = int64_tensor({1, 2});
  *seq.add_tensor_values() = int64_tensor({3});
  auto v = parse(seq, ValueKind::kSequence, DType::kInt64);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->kind(), ValueKind::kSequence);
  ASSERT_EQ(v->elements().size(), 2u);
  EXPECT_EQ(v->elements()[1].scalar_as_int(), 3);
}

TEST(ValueProto, RefusesAnElementOfAnotherType) {
  onnx::SequenceProto seq;
  seq.set_elem_type(onnx::SequenceProto::TENSOR);
  *seq.add_tensor_values() = int64_tensor({1});
  EXPECT_FALSE(parse(seq, ValueKind::kSequence, DType::kFloat32).ok());
}

TEST(ValueProto, ReadsEmptyAndFullOptionals) {
  onnx::OptionalProto empty;
  empty.set_elem_type(onnx::OptionalProto::TENSOR);
  auto none = parse(empty, ValueKind::kOptional, DType::kFloat32);
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->elements().empty());

  onnx::OptionalProto full;
  full.set_elem_type(onnx::OptionalProto::SEQUENCE);
  full.mutable_sequence_value()->set_elem_type(onnx::SequenceProto::TENSOR);
  *full.mutable_sequence_value()->add_tensor_values() = int64_tensor({5});
  auto some = parse(full, ValueKind::kOptionalSequence, DType::kInt64);
  ASSERT_TRUE(some.ok()) << some.status().message();
  ASSERT_EQ(some->elements().size(), 1u);
  EXPECT_EQ(some->elements()[0].kind(), ValueKind::kSequence);
  // A tensor where the model expects an optional sequence is refused.
  EXPECT_FALSE(parse(full, ValueKind::kOptional, DType::kInt64).ok());
}

TEST(ValueProto, RefusesBytesThatAreNotTheMessage) {
  const std::string junk = "\xff\xff\xff\xff garbage";
  EXPECT_FALSE(read_value_pb_from_bytes(junk.data(), junk.size(), ValueKind::kSequence, DType::kFloat32, "v.pb").ok());
}

TEST(ValueProto, StringTensorsUseStringData) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::STRING);
  t.add_dims(2);
  t.add_string_data("a");
  t.add_string_data("bc");
  auto v = tensor_from_proto(t, "", "t");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->data<std::string>()[1], "bc");
  onnx::TensorProto back;
  tensor_to_proto(*v, "t", back);
  ASSERT_EQ(back.string_data_size(), 2);
  EXPECT_EQ(back.string_data(0), "a");

  t.add_dims(1000000000);  // claims 2e9 strings, holds 2: refused before anything is allocated
  EXPECT_FALSE(tensor_from_proto(t, "", "t").ok());
}

}  // namespace
}  // namespace openge
