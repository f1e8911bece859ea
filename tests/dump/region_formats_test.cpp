// What dumps and profiles say about the values of channels-last regions (NHWC, NC1HWC0;
// ops/layout/activation_format.h): a Data Dump writes each as the model's N x C x H x W tensor, so the
// same model dumps the same tensors whatever layout the CPU chose (and a dump compares with one
// from another machine); op_summary names the stored format and shape, as CANN's names 5HD.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "../passes/nc1hwc0_test_util.h"
#include "../profiling/profiling_test_util.h"
#include "dump/data_dumper.h"
#include "dump/dump_file.h"
#include "compiler/pipeline.h"

namespace openge {
namespace {

namespace fs = std::filesystem;

// The model of nc1hwc0_test_util.h compiled with its region in `setting`'s form (kNever: NHWC;
// kAlways: NC1HWC0), or with no pass at all (plain NCHW).
std::unique_ptr<Executable> compile_cnn(passes::Nc1hwc0Regions setting, bool run_passes = true) {
  CompileOptions co;
  co.num_threads = 1;
  co.nc1hwc0_regions = setting;
  co.run_passes = run_passes;
  auto exe = compiler::compile(testing::cnn(32), {{1, 3, 20, 20}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  return exe.ok() ? std::move(exe.value()) : nullptr;
}

// One run of `exe` dumped (outputs) into a fresh folder; the dump records by op name.
std::map<std::string, dump::DumpRecord> dump_run(const Executable& exe, const std::string& name) {
  dump::DumpConfig config;
  config.dump_path = profiling::testing::scratch_dir("region_dump_" + name);
  config.data_dump = true;
  dump::DataDumper dumper(config, "cnn");
  auto observer = dumper.begin_iteration(exe);
  auto out = exe.run(testing::cnn_input(), nullptr, observer.get());
  EXPECT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(dumper.end_iteration(std::move(observer)).ok());
  EXPECT_TRUE(dumper.flush().ok());
  std::map<std::string, dump::DumpRecord> records;
  for (const auto& e : fs::recursive_directory_iterator(config.dump_path)) {
    if (!e.is_regular_file()) continue;
    auto record = dump::read_dump_file(e.path().string());
    if (record.ok()) records[record->op_name] = std::move(record.value());
  }
  return records;
}

TEST(RegionFormats, DumpsHoldTheModelsNchwTensorsWhateverTheLayout) {
  auto plain = compile_cnn(passes::Nc1hwc0Regions::kNever, false);
  auto nhwc = compile_cnn(passes::Nc1hwc0Regions::kNever);
  auto blocked = compile_cnn(passes::Nc1hwc0Regions::kAlways);
  ASSERT_TRUE(plain && nhwc && blocked);
  const auto want = dump_run(*plain, "plain");
  size_t compared = 0;
  for (const auto& [form, exe] : {std::pair{"nhwc", nhwc.get()}, std::pair{"nc1hwc0", blocked.get()}}) {
    const auto got = dump_run(*exe, form);
    // The ops both graphs have under the same name (the region's convolutions, pools and Concat;
    // the fused graph has no separate Relu or Add).
    for (const auto& [op, record] : got) {
      const auto it = want.find(op);
      if (it == want.end() || record.outputs.empty() || it->second.outputs.empty()) continue;
      const Tensor& expected = it->second.outputs[0];
      const Tensor& actual = record.outputs[0];
      ASSERT_EQ(actual.shape(), expected.shape()) << form << " " << op;
      // The fused ops add the activation the plain graph's next node applies: compare only the
      // ones that end the same (pools, Concat, and convolutions read before any activation).
      if (op.rfind("Conv", 0) == 0) continue;
      double largest = 0;
      for (int64_t i = 0; i < expected.numel(); ++i)
        largest = std::max(largest, std::fabs(double(expected.data<float>()[i])));
      EXPECT_LT(testing::max_abs_diff(actual, expected), 1e-5 * largest) << form << " " << op;
      ++compared;
    }
  }
  EXPECT_GE(compared, 4u) << "MaxPool, Concat and GlobalAveragePool in each form";
}

// op_summary's formats: the stored one for region values (NC1HWC0 / NHWC), NCHW outside.
TEST(RegionFormats, OpSummaryNamesTheStoredFormat) {
  for (const auto& [setting, region_format] :
       {std::pair{passes::Nc1hwc0Regions::kAlways, "NC1HWC0"}, std::pair{passes::Nc1hwc0Regions::kNever, "NHWC"}}) {
    auto exe = compile_cnn(setting);
    ASSERT_TRUE(exe);
    auto cfg =
        profiling::profiler_config_from_json(R"({"task_trace":"on","aicpu":"on"})",
                                             profiling::testing::scratch_dir(std::string("formats_") + region_format));
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    auto p = profiling::Profiler::create(cfg.value());
    ASSERT_TRUE(p.ok()) << p.status().message();
    auto it = (*p)->begin_iteration(exe.get(), exe->nodes().size());
    ASSERT_TRUE(exe->run(testing::cnn_input(), nullptr, it.get()).ok());
    ASSERT_TRUE((*p)->end_iteration(std::move(it), true).ok());
    ASSERT_TRUE((*p)->finish().ok());
    const auto files = profiling::testing::files_matching((*p)->output_dir(), "op_summary_", ".csv");
    ASSERT_EQ(files.size(), 1u);
    const auto csv = profiling::testing::parse_csv(profiling::testing::read_text(files[0]));
    size_t pools = 0;
    for (const auto& row : csv.rows) {
      const std::string& type = row.at("OP Type");
      if (type.find("MaxPool") == std::string::npos) continue;
      ++pools;
      EXPECT_EQ(row.at("Input Formats"), region_format) << type;
      EXPECT_EQ(row.at("Output Formats"), region_format) << type;
    }
    EXPECT_EQ(pools, 1u);
    // The stem reads the NCHW input as it is in NC1HWC0 (a Transpose feeds it NHWC otherwise).
    for (const auto& row : csv.rows)
      if (row.at("Op Name") == "Conv_0") {
        EXPECT_EQ(row.at("Input Formats").substr(0, row.at("Input Formats").find(';')),
                  std::string(region_format) == "NHWC" ? "NHWC" : "NCHW");
      }
  }
}

}  // namespace
}  // namespace openge
