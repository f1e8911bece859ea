// The loader's split parse (initializer_split.h): the model without its weights plus where each
// weight lies must give exactly what protobuf's whole parse gives, fall back to the whole parse
// on forms it does not take apart, and keep a large model's load from holding its weights twice.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "frontend/initializer_split.h"
#include "frontend/onnx_loader.h"
#include "matmul_model_util.h"

namespace openge {
namespace {
namespace fs = std::filesystem;
using test::matmul_model;
using test::peak_rss;
using test::reset_peak_rss;

// A length-delimited field, encoded by hand (tag and length as varints), for byte forms the
// generated code never writes.
std::string length_delimited(uint32_t field, const std::string& body) {
  std::string out;
  auto varint = [&](uint64_t v) {
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>(v | 0x80));
    out.push_back(static_cast<char>(v));
  };
  varint(field << 3 | 2);
  varint(body.size());
  return out + body;
}

TEST(InitializerSplit, TheModelWithoutWeightsPlusTheirRangesIsTheWholeModel) {
  const onnx::ModelProto m = matmul_model(8, 4);
  const std::string bytes = m.SerializeAsString();
  auto split = split_initializer_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(split.has_value());
  onnx::ModelProto stripped;
  ASSERT_TRUE(stripped.ParseFromString(split->model_without_weights));
  ASSERT_EQ(split->raw_data.size(), 3u);
  ASSERT_TRUE(split->raw_data[0] && split->raw_data[2]);
  EXPECT_FALSE(split->raw_data[1]);  // float_data: nothing to take out
  // Putting each range's bytes back gives protobuf's own parse of the whole file.
  for (int i : {0, 2}) {
    const ByteRange r = *split->raw_data[static_cast<size_t>(i)];
    EXPECT_EQ(bytes.substr(r.offset, r.size), m.graph().initializer(i).raw_data());
    stripped.mutable_graph()->mutable_initializer(i)->set_raw_data(bytes.substr(r.offset, r.size));
  }
  EXPECT_EQ(stripped.SerializeAsString(), bytes);
  EXPECT_LT(split->model_without_weights.size(), 400u);
}

TEST(InitializerSplit, LoadsTheSameConstantsAsTheWholeParse) {
  const onnx::ModelProto m = matmul_model(16, 8);
  const fs::path dir = fs::temp_directory_path() / ("oge_split_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "mm.onnx";
  {
    std::ofstream out(file, std::ios::binary);
    m.SerializeToOstream(&out);
  }
  auto graph = load_onnx(file.string());  // the split parse, from the mapped file
  fs::remove_all(dir);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  for (int i = 0; i < 3; ++i) {
    const onnx::TensorProto& init = m.graph().initializer(i);
    const int v = graph->find_value(init.name());
    ASSERT_GE(v, 0);
    const auto& constant = graph->values[static_cast<size_t>(v)].constant;
    ASSERT_TRUE(constant.has_value());
    const std::string expected = init.has_raw_data()
                                     ? init.raw_data()
                                     : std::string(reinterpret_cast<const char*>(init.float_data().data()),
                                                   init.float_data_size() * sizeof(float));
    ASSERT_EQ(constant->nbytes(), expected.size()) << init.name();
    EXPECT_EQ(std::memcmp(constant->raw(), expected.data(), expected.size()), 0) << init.name();
  }
}

TEST(InitializerSplit, FormsItDoesNotTakeApartFallBackToTheWholeParse) {
  onnx::ModelProto m = matmul_model(4, 2);
  // The graph field twice: protobuf merges the two messages (a second name overrides).
  onnx::ModelProto second;
  second.mutable_graph()->set_name("merged");
  const std::string twice = m.SerializeAsString() + second.SerializeAsString();
  EXPECT_FALSE(split_initializer_bytes(twice.data(), twice.size()).has_value());
  auto graph = load_onnx_from_bytes(twice.data(), twice.size(), "twice.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_EQ(graph->name, "merged");
  // raw_data twice in one tensor: protobuf keeps the last one; the split leaves that to it.
  onnx::ModelProto without_b = matmul_model(4, 2);
  const onnx::TensorProto b = without_b.graph().initializer(2);
  without_b.mutable_graph()->mutable_initializer()->RemoveLast();
  onnx::TensorProto second_raw;
  second_raw.set_raw_data(std::string(8, '\x01'));  // 2 floats, as b needs
  const std::string b_twice = b.SerializeAsString() + second_raw.SerializeAsString();
  onnx::GraphProto graph_without_b = without_b.graph();
  without_b.clear_graph();
  const std::string graph_bytes = graph_without_b.SerializeAsString() + length_delimited(5, b_twice);
  const std::string model_bytes = without_b.SerializeAsString() + length_delimited(7, graph_bytes);
  EXPECT_FALSE(split_initializer_bytes(model_bytes.data(), model_bytes.size()).has_value());
  auto loaded = load_onnx_from_bytes(model_bytes.data(), model_bytes.size(), "raw_twice.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const auto& constant = loaded->values[static_cast<size_t>(loaded->find_value("b"))].constant;
  ASSERT_TRUE(constant.has_value());
  EXPECT_EQ(std::string(static_cast<const char*>(constant->raw()), constant->nbytes()), std::string(8, '\x01'));
}

TEST(InitializerSplit, TruncatedOrCorruptBytesAreRefusedAsBefore) {
  const std::string bytes = matmul_model(32, 16).SerializeAsString();
  for (size_t cut : {bytes.size() / 2, bytes.size() - 1, size_t{3}}) {
    EXPECT_FALSE(split_initializer_bytes(bytes.data(), cut).has_value()) << cut;
    auto graph = load_onnx_from_bytes(bytes.data(), cut, "cut.onnx");
    ASSERT_FALSE(graph.ok()) << cut;
    EXPECT_NE(graph.status().message().find("not a valid ONNX protobuf"), std::string::npos)
        << graph.status().message();
  }
  std::string zero_tag = bytes;
  zero_tag.append(2, '\0');
  EXPECT_FALSE(split_initializer_bytes(zero_tag.data(), zero_tag.size()).has_value());
  // A tag whose varint never ends (found by the loader fuzzer): protobuf refuses the bytes, so the
  // split must too, not read it as the end of an empty model.
  const std::string overlong_tag("\xad\xdb\xe1\xff\xcf\x9f\xfe\xff", 8);
  EXPECT_FALSE(split_initializer_bytes(overlong_tag.data(), overlong_tag.size()).has_value());
  EXPECT_FALSE(load_onnx_from_bytes(overlong_tag.data(), overlong_tag.size(), "overlong.onnx").ok());
  std::string overlong_at_end = bytes + overlong_tag;
  EXPECT_FALSE(split_initializer_bytes(overlong_at_end.data(), overlong_at_end.size()).has_value());
}

// a large model's load peaks at about its weights, not weights + file + protobuf.
TEST(InitializerSplit, ALargeModelLoadsWithoutHoldingItsWeightsTwice) {
  const int64_t k = 2048, n = 8192;  // a 64 MiB weight
  const onnx::ModelProto m = matmul_model(k, n);
  const fs::path dir = fs::temp_directory_path() / ("oge_split_peak_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "big.onnx";
  {
    std::ofstream out(file, std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&out));
  }
  const size_t file_size = fs::file_size(file);
  reset_peak_rss();
  const size_t before = peak_rss();
  auto graph = load_onnx(file.string());
  const size_t grown = peak_rss() - before;
  fs::remove_all(dir);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  // The tensors themselves are one file's worth; a whole parse peaks at two (file pages + protobuf).
  EXPECT_LE(static_cast<double>(grown), openge::test::kLoadPeakBound * static_cast<double>(file_size))
      << "peak grew by " << grown / (1 << 20) << " MiB for a " << file_size / (1 << 20) << " MiB model";
}

}  // namespace
}  // namespace openge
