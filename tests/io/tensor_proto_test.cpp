// The TensorProto reader (src/frontend/tensor_proto.cpp) on messages built here with ONNX's own
// protobuf classes: every storage form, and each kind of hostile message it must refuse.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/size_limit.h"
#include "frontend/tensor_proto.h"

namespace openge {
namespace {
namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Result<Tensor> parse(const onnx::TensorProto& p, const std::string& dir = "/nonexistent-openge-dir") {
  const std::string bytes = p.SerializeAsString();
  return read_tensor_pb_from_bytes(bytes.data(), bytes.size(), "t.pb", dir);
}

onnx::TensorProto proto(int32_t type, std::initializer_list<int64_t> dims) {
  onnx::TensorProto p;
  p.set_name("t");
  p.set_data_type(type);
  for (int64_t d : dims) p.add_dims(d);
  return p;
}

TEST(TensorProto, ReadsTypedFields) {
  auto f = proto(onnx::TensorProto::FLOAT, {2});
  f.add_float_data(1.5f);
  f.add_float_data(-2.0f);
  auto t = parse(f);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->shape(), Shape{2});
  EXPECT_EQ(t->data<float>()[1], -2.0f);

  auto i = proto(onnx::TensorProto::INT64, {});
  i.add_int64_data(-9);
  auto ti = parse(i);
  ASSERT_TRUE(ti.ok()) << ti.status().message();
  EXPECT_EQ(ti->shape(), Shape{});
  EXPECT_EQ(ti->data<int64_t>()[0], -9);

  // fp16 travels as bit patterns in int32_data: 0x3C00 is 1.0.
  auto h = proto(onnx::TensorProto::FLOAT16, {1});
  h.add_int32_data(0x3C00);
  auto th = parse(h);
  ASSERT_TRUE(th.ok()) << th.status().message();
  EXPECT_EQ(th->data<uint16_t>()[0], 0x3C00);
}

TEST(TensorProto, ReadsRawData) {
  auto p = proto(onnx::TensorProto::INT32, {2, 2});
  const int32_t v[4] = {1, -2, 3, -4};
  p.set_raw_data(v, sizeof v);
  auto t = parse(p);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->shape(), (Shape{2, 2}));
  EXPECT_EQ(t->data<int32_t>()[3], -4);
}

TEST(TensorProto, CountMismatchesAreErrors) {
  auto few = proto(onnx::TensorProto::FLOAT, {3});
  few.add_float_data(1.0f);
  auto t = parse(few);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.status().message(), "t.pb")) << t.status().message();
  auto raw = proto(onnx::TensorProto::FLOAT, {3});
  raw.set_raw_data(std::string(8, '\0'));  // 12 needed
  EXPECT_FALSE(parse(raw).ok());
}

TEST(TensorProto, NegativeHugeAndOverflowingDimsAreErrors) {
  auto neg = proto(onnx::TensorProto::FLOAT, {-1, 4});
  auto t = parse(neg);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.status().message(), "negative")) << t.status().message();
  // 10^10 floats = 40 GB over the 4 GiB default, with no data: refused by the limit.
  auto huge = proto(onnx::TensorProto::FLOAT, {100000, 100000});
  auto th = parse(huge);
  ASSERT_FALSE(th.ok());
  EXPECT_EQ(th.status().code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(contains(th.status().message(), "max_tensor_bytes")) << th.status().message();
  auto overflow = proto(onnx::TensorProto::FLOAT, {int64_t{1} << 32, int64_t{1} << 32, 0});
  EXPECT_FALSE(parse(overflow).ok());
}

TEST(TensorProto, TheSessionLimitAppliesToFiles) {
  auto p = proto(onnx::TensorProto::FLOAT, {8});
  p.set_raw_data(std::string(32, '\0'));
  EXPECT_TRUE(parse(p).ok());
  ScopedMaxTensorBytes limit(31);
  auto t = parse(p);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.status().message(), "31 bytes")) << t.status().message();
}

TEST(TensorProto, UnsupportedTypesAndGarbageAreErrors) {
  EXPECT_FALSE(parse(proto(onnx::TensorProto::STRING, {1})).ok());  // one string declared, none stored
  EXPECT_EQ(parse(proto(onnx::TensorProto::COMPLEX64, {1})).status().code(), StatusCode::kUnsupported);
  const std::string garbage = "\xff\xff\xff\xff\x0f garbage";
  auto t = read_tensor_pb_from_bytes(garbage.data(), garbage.size(), "g.pb", ".");
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.status().message(), "g.pb")) << t.status().message();
}

TEST(TensorProto, ExternalDataOutsideTheFolderIsRefused) {
  auto p = proto(onnx::TensorProto::FLOAT, {1});
  p.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = p.add_external_data();
  loc->set_key("location");
  loc->set_value("../../etc/passwd");
  auto t = parse(p);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.status().message(), "inside the model's folder")) << t.status().message();
}

TEST(TensorProto, FileRoundTripThroughWriteAndRead) {
  const std::string path = (fs::temp_directory_path() / ("openge_tp_" + std::to_string(::getpid()) + ".pb")).string();
  Tensor t(DType::kFloat64, {3});
  for (int i = 0; i < 3; ++i) t.data<double>()[i] = 0.25 * i - 1;
  ASSERT_TRUE(write_tensor_pb(t, "out", path).ok());
  auto back = read_tensor_pb(path);
  fs::remove(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->dtype(), DType::kFloat64);
  EXPECT_EQ(back->data<double>()[2], -0.5);  // 0.25 * 2 - 1
  EXPECT_FALSE(read_tensor_pb("/nonexistent/openge.pb").ok());
}

}  // namespace
}  // namespace openge
