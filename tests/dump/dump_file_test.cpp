// The dump file layout (docs/FORMATS.md, "Data Dump: file layout"), the statistics of stats mode, the folder and file
// names ("Data Dump: folder and file names"), and hostile dump files. Expected values are worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "src/dump/dump_data.pb.h"
#include "dump/dump_convert.h"
#include "dump/dump_file.h"
#include "dump/dump_test_util.h"
#include "dump/overflow_check.h"
#include "dump/tensor_stats.h"
#include "paths/data_dump_layout.h"

namespace openge::dump::testing {
namespace {

Tensor floats(Shape shape, std::vector<float> values) {
  Tensor t(DType::kFloat32, std::move(shape));
  std::memcpy(t.raw(), values.data(), values.size() * sizeof(float));
  return t;
}

Tensor halves(std::vector<uint16_t> bits) {
  Tensor t(DType::kFloat16, {static_cast<int64_t>(bits.size())});
  std::memcpy(t.raw(), bits.data(), bits.size() * 2);
  return t;
}

TEST(DumpFile, LengthThenHeaderThenInputsThenOutputs) {  // docs/FORMATS.md, "Data Dump: file layout"
  DumpRecord r;
  r.op_name = "conv1";
  r.dump_time_us = 1733000000123456ull;
  r.inputs.push_back(floats({1, 1, 1, 2}, {1.5f, -2.f}));
  r.inputs.push_back(Tensor());  // an omitted optional input
  Tensor ints(DType::kInt64, {3});
  for (int i = 0; i < 3; ++i) ints.data<int64_t>()[i] = 10 + i;
  r.outputs.push_back(ints);
  const std::string path = scratch_dir("layout_file") + "/Conv.conv1.0.0.1733000000123456";
  ASSERT_TRUE(write_dump_file(path, r).ok());
  const std::string bytes = read_text(path);
  ASSERT_GE(bytes.size(), 8u);
  uint64_t len = 0;
  for (int i = 0; i < 8; ++i) len |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  ASSERT_EQ(bytes.size(), 8 + len + 8 + 24) << "header, then 2 floats, then 3 int64";
  toolkit::dumpdata::DumpData header;
  ASSERT_TRUE(header.ParseFromString(bytes.substr(8, len)));
  EXPECT_EQ(header.op_name(), "conv1");
  EXPECT_EQ(header.dump_time(), 1733000000123456ull);
  ASSERT_EQ(header.input_size(), 2);
  EXPECT_EQ(header.input(0).data_type(), 1);  // DT_FLOAT
  EXPECT_EQ(header.input(0).format(), 0);     // NCHW
  EXPECT_EQ(header.input(0).size(), 8u);
  EXPECT_EQ(header.input(0).shape().dim_size(), 4);
  EXPECT_EQ(header.input(1).size(), 0u);
  ASSERT_EQ(header.output_size(), 1);
  EXPECT_EQ(header.output(0).data_type(), 8);  // DT_INT64
  EXPECT_EQ(header.output(0).format(), 2);     // ND
  EXPECT_EQ(header.output(0).size(), 24u);
  EXPECT_EQ(header.output(0).original_op().name(), "conv1");
  float f[2];
  std::memcpy(f, bytes.data() + 8 + len, 8);
  EXPECT_EQ(f[0], 1.5f);
  EXPECT_EQ(f[1], -2.f);
  int64_t v[3];
  std::memcpy(v, bytes.data() + 8 + len + 8, 24);
  EXPECT_EQ(v[2], 12);

  auto back = read_dump_file(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->inputs.size(), 2u);
  EXPECT_FALSE(back->inputs[1].defined());
  EXPECT_EQ(back->outputs[0].data<int64_t>()[1], 11);
  EXPECT_TRUE(back->buffers.empty());
}

// An exception dump's workspace: one OpBuffer (buffer_type L1) whose bytes follow the outputs.
TEST(DumpFile, WorkspaceBufferFollowsTheOutputs) {  // docs/FORMATS.md, "Data Dump: file layout"
  DumpRecord r;
  r.op_name = "conv1";
  r.outputs.push_back(floats({2}, {3.f, 4.f}));
  Tensor workspace(DType::kUInt8, {5});
  for (int i = 0; i < 5; ++i) workspace.data<uint8_t>()[i] = static_cast<uint8_t>(0xa0 + i);
  r.buffers.push_back(workspace);
  const std::string path = scratch_dir("workspace_file") + "/Conv.conv1.0.0.1";
  ASSERT_TRUE(write_dump_file(path, r).ok());
  const std::string bytes = read_text(path);
  uint64_t len = 0;
  for (int i = 0; i < 8; ++i) len |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  ASSERT_EQ(bytes.size(), 8 + len + 8 + 5) << "header, then 2 floats, then 5 workspace bytes";
  toolkit::dumpdata::DumpData header;
  ASSERT_TRUE(header.ParseFromString(bytes.substr(8, len)));
  ASSERT_EQ(header.buffer_size(), 1);
  EXPECT_EQ(header.buffer(0).buffer_type(), toolkit::dumpdata::L1);
  EXPECT_EQ(header.buffer(0).size(), 5u);
  EXPECT_EQ(bytes.substr(8 + len + 8), "\xa0\xa1\xa2\xa3\xa4");
  auto back = read_dump_file(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->buffers.size(), 1u);
  EXPECT_EQ(back->buffers[0].nbytes(), 5u);
  EXPECT_EQ(std::memcmp(back->buffers[0].raw(), workspace.raw(), 5), 0);
  // A workspace cut short is named.
  auto cut = read_dump_bytes(bytes.data(), bytes.size() - 1, "cut");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("cut: buffer 0"), std::string::npos) << cut.status().message();
  EXPECT_NE(cut.status().message().find("truncated"), std::string::npos) << cut.status().message();
}

TEST(DumpFile, HostileFilesGetOneClearError) {
  DumpRecord r;
  r.op_name = "x";
  r.outputs.push_back(floats({4}, {1, 2, 3, 4}));
  const std::string dir = scratch_dir("hostile");
  ASSERT_TRUE(write_dump_file(dir + "/A.x.0.0.1", r).ok());
  const std::string good = read_text(dir + "/A.x.0.0.1");
  struct Case {
    std::string bytes, expect;
  } cases[] = {
      {good.substr(0, 5), "shorter than"},
      {std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + "abc", "exceeds the file"},
      {good.substr(0, good.size() - 1), "truncated"},
      {std::string("\x03\0\0\0\0\0\0\0\xff\xff\xff", 11), "not a DumpData"},
  };
  for (const auto& c : cases) {
    auto parsed = read_dump_bytes(c.bytes.data(), c.bytes.size(), "bad");
    ASSERT_FALSE(parsed.ok()) << c.expect;
    EXPECT_NE(parsed.status().message().find(c.expect), std::string::npos) << parsed.status().message();
  }
  // A size that disagrees with the shape.
  toolkit::dumpdata::DumpData header;
  auto* out = header.add_output();
  out->set_data_type(toolkit::dumpdata::DT_FLOAT);
  out->mutable_shape()->add_dim(1000000000000ull);
  out->set_size(4);
  const std::string h = header.SerializeAsString();
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(h.size());
  bytes += h + "abcd";
  auto parsed = read_dump_bytes(bytes.data(), bytes.size(), "bad");
  ASSERT_FALSE(parsed.ok());
  // Nothing converted from a folder whose dump file is bad, and the file is named.
  std::ofstream(dir + "/B.y.1.0.2", std::ios::binary) << "garbage!garbage!";
  auto converted = convert_dumps_to_npy(dir, dir + "/npy");
  ASSERT_FALSE(converted.ok());
  EXPECT_NE(converted.status().message().find("B.y.1.0.2"), std::string::npos) << converted.status().message();
  EXPECT_FALSE(convert_dumps_to_npy(dir + "/missing", "").ok());
}

TEST(DumpStats, OPT_dump_config_dump_data_2_StatisticsByHand) {
  const float inf = std::numeric_limits<float>::infinity();
  const TensorStats s = compute_stats(floats({6}, {1, -2, std::nanf(""), inf, -inf, 3}));
  EXPECT_EQ(s.count, 6);
  EXPECT_EQ(s.max, 3);
  EXPECT_EQ(s.min, -2);
  EXPECT_DOUBLE_EQ(s.avg, 2.0 / 3.0);           // (1 - 2 + 3) / 3 finite elements
  EXPECT_DOUBLE_EQ(s.l2norm, std::sqrt(14.0));  // 1 + 4 + 9
  EXPECT_EQ(s.nan, 1);
  EXPECT_EQ(s.neg_inf, 1);
  EXPECT_EQ(s.pos_inf, 1);
  const TensorStats h = compute_stats(halves({0x3C00, 0xC000}));  // float16 1 and -2
  EXPECT_EQ(h.max, 1);
  EXPECT_EQ(h.min, -2);
  EXPECT_DOUBLE_EQ(h.avg, -0.5);
  const TensorStats none = compute_stats(floats({1}, {std::nanf("")}));
  EXPECT_TRUE(std::isnan(none.max) && std::isnan(none.avg));
}

TEST(DumpStats, OPT_dump_config_dump_data_2_CsvRows) {
  DumpRecord r;
  r.inputs.push_back(floats({2, 2}, {1, 2, 3, 4}));
  r.outputs.push_back(floats({1, 1, 1, 1}, {-0.5f}));
  const std::string csv = stats_csv(r);
  EXPECT_EQ(csv, std::string(stats_csv_header()) + "\n" +
                     "Input,0,16,DT_FLOAT,ND,\"2,2\",4,4,1,2.5,5.4772255750516612,0,0,0\n"
                     "Output,0,4,DT_FLOAT,NCHW,\"1,1,1,1\",1,-0.5,-0.5,-0.5,0.5,0,0,0\n");
}

TEST(DumpLayout, FolderAndFileNames) {  // docs/FORMATS.md, "Data Dump: folder and file names"
  EXPECT_EQ(paths::data_dump_iteration_dir("/data/dump/20261201120000", 2, "my.model", 7, 15),
            "/data/dump/20261201120000/2/my_model/7/15");
  EXPECT_EQ(paths::data_dump_file_name("Conv", "layer1/conv.0", 12, 0, 1733000000000001ull),
            "Conv.layer1_conv_0.12.0.1733000000000001");
  EXPECT_TRUE(looks_like_dump_file("Conv.layer1_conv_0.12.0.1733000000000001"));
  EXPECT_FALSE(looks_like_dump_file("Conv.layer1_conv_0.12.0.1733000000000001.csv"));
  EXPECT_FALSE(looks_like_dump_file("modify_mixlist.json"));
  const std::time_t t = 0;
  const std::string session = paths::data_dump_session_dir("/data/dump", t);
  EXPECT_EQ(session.size(), std::string("/data/dump/").size() + 14);
}

TEST(OverflowCheck, OPT_dump_config_dump_debug_mode_2_InfNanAndNarrowSaturation) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(overflowed(floats({2}, {65504.f, -3.4e38f})));  // large but finite float32
  EXPECT_TRUE(overflowed(floats({2}, {1.f, inf})));
  EXPECT_TRUE(overflowed(floats({2}, {std::nanf(""), 1.f})));
  EXPECT_FALSE(overflowed(halves({0x3C00, 0x7BFE})));  // 1 and 65472
  EXPECT_TRUE(overflowed(halves({0x3C00, 0xFBFF})));   // -65504: saturated
  EXPECT_TRUE(overflowed(halves({0x7C00})));           // +inf
  EXPECT_FALSE(has_non_finite(halves({0x7BFF})));      // saturated but finite
  EXPECT_TRUE(accumulating_op("MatMul"));
  EXPECT_TRUE(accumulating_op("FusedConv"));
  EXPECT_FALSE(accumulating_op("Relu"));
  EXPECT_FALSE(accumulating_op("Mul"));
}

}  // namespace
}  // namespace openge::dump::testing
