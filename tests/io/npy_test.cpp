// The .npy reader (src/io/npy.cpp) on hand-built files: the bytes follow the format's
// description (magic, version, little-endian header length, a Python-literal dict, padding),
// written here independently of the reader.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/size_limit.h"
#include "io/npy.h"

namespace openge {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A version-1.0 .npy file: header dict as given (padding added), then `data`.
std::string npy_v1(const std::string& dict, const std::string& data) {
  std::string header = dict;
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

template <class T>
std::string bytes_of(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

Result<Tensor> parse(const std::string& file) { return read_npy_from_bytes(file.data(), file.size(), "x.npy"); }

TEST(Npy, ReadsAFloatMatrix) {
  auto t = parse(
      npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", bytes_of<float>({1, 2, 3, 4, 5, 6.5f})));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype(), DType::kFloat32);
  EXPECT_EQ(t->shape(), (Shape{2, 3}));
  EXPECT_EQ(t->data<float>()[5], 6.5f);
}

TEST(Npy, ReadsScalarsOneDimensionalAndEmptyArrays) {
  auto scalar = parse(npy_v1("{'descr': '<i8', 'fortran_order': False, 'shape': (), }", bytes_of<int64_t>({-7})));
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_EQ(scalar->shape(), Shape{});
  EXPECT_EQ(scalar->data<int64_t>()[0], -7);
  auto vec = parse(npy_v1("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", "abc"));
  ASSERT_TRUE(vec.ok()) << vec.status().message();
  EXPECT_EQ(vec->shape(), Shape{3});
  EXPECT_EQ(vec->data<uint8_t>()[2], 'c');
  auto empty = parse(npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", ""));
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->numel(), 0);
}

TEST(Npy, AcceptsKeysInAnyOrderAndDoubleQuotesAndVersion2) {
  const std::string dict = "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i4\"}";
  std::string header = dict + std::string(64 - (12 + dict.size() + 1) % 64, ' ') + "\n";
  std::string file = "\x93NUMPY";
  file += '\x02';
  file += '\x00';
  const uint32_t len = static_cast<uint32_t>(header.size());
  file.append(reinterpret_cast<const char*>(&len), 4);  // little-endian on the machines we run on
  file += header + bytes_of<int32_t>({10, -20});
  auto t = parse(file);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype(), DType::kInt32);
  EXPECT_EQ(t->data<int32_t>()[1], -20);
}

TEST(Npy, NegativeDimensionIsAnErrorNotAFlippedSign) {
  // The old reader matched digits only and read (-2, 3) as (2, 3).
  auto t = parse(
      npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", bytes_of<float>({1, 2, 3, 4, 5, 6})));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.status().message(), "negative dimension -2")) << t.status().message();
  EXPECT_TRUE(contains(t.status().message(), "x.npy")) << t.status().message();
}

TEST(Npy, MalformedShapesAreErrors) {
  for (const char* shape : {"(2, x)", "(2.5,)", "(2 3)", "[2, 3]", "(99999999999999999999,)", "(2,", "(,)"}) {
    auto t = parse(npy_v1(std::string("{'descr': '<f4', 'fortran_order': False, 'shape': ") + shape + ", }",
                          std::string(64, '\0')));
    EXPECT_FALSE(t.ok()) << shape;
  }
}

TEST(Npy, HeaderProblemsAreErrors) {
  const std::string data(16, '\0');
  EXPECT_FALSE(parse("not a npy file").ok());
  EXPECT_FALSE(parse(npy_v1("{'fortran_order': False, 'shape': (2,), }", data)).ok());   // no descr
  EXPECT_FALSE(parse(npy_v1("{'descr': '<f4', 'shape': (2,), }", data)).ok());           // no order
  EXPECT_FALSE(parse(npy_v1("{'descr': '<f4', 'fortran_order': False, }", data)).ok());  // no shape
  EXPECT_FALSE(parse(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data)).ok());
  EXPECT_FALSE(parse(npy_v1("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", data)).ok());
  EXPECT_FALSE(parse(npy_v1("{'descr': '<f4, 'fortran_order': False, 'shape': (2,), }", data)).ok());
  auto fortran = parse(npy_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", data));
  EXPECT_EQ(fortran.status().code(), StatusCode::kUnsupported);
  auto big_endian = parse(npy_v1("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", data));
  EXPECT_EQ(big_endian.status().code(), StatusCode::kUnsupported);
  // Header length pointing past the end of the file.
  std::string truncated = npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "");
  truncated.resize(40);
  EXPECT_FALSE(parse(truncated).ok());
}

TEST(Npy, TooFewDataBytesIsAnErrorBeforeAllocating) {
  // Claims 10^9 floats (4 GB, under the limit) but holds 8 bytes: refused without allocating.
  auto t = parse(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000,), }", "12345678"));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.status().message(), "holds 8 data bytes")) << t.status().message();
}

TEST(Npy, HugeShapesMeetTheSizeLimit) {
  auto t = parse(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }", ""));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(contains(t.status().message(), "max_tensor_bytes")) << t.status().message();
  auto overflow = parse(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""));
  EXPECT_FALSE(overflow.ok());
  ScopedMaxTensorBytes limit(16);
  EXPECT_TRUE(parse(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", std::string(16, '\0'))).ok());
  EXPECT_FALSE(parse(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", std::string(20, '\0'))).ok());
}

TEST(Npy, FileRoundTripThroughWriteAndRead) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("openge_npy_" + std::to_string(::getpid()) + ".npy")).string();
  Tensor t(DType::kInt16, {2, 2});
  for (int i = 0; i < 4; ++i) t.data<int16_t>()[i] = static_cast<int16_t>(i * 1000 - 1500);
  ASSERT_TRUE(write_npy(t, path).ok());
  auto back = read_npy(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->shape(), (Shape{2, 2}));
  EXPECT_EQ(back->data<int16_t>()[3], 1500);
  EXPECT_FALSE(read_npy("/nonexistent/openge.npy").ok());
}

}  // namespace
}  // namespace openge
