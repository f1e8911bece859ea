// The threading grain's per-machine calibration (compiler/grain_calibration.h): made once and kept
// in the compile-cache folder, read back by later compiles, rewritten when it does not parse or
// belongs to another CPU or thread count, and left alone with the cache disabled.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../runtime/demo_run_util.h"
#include "compiler/grain_calibration.h"
#include "compiler/op_grain.h"
#include "options/option_set.h"

namespace openge::compiler {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

// Options whose compile cache is `dir`/kernel_cache.
std::shared_ptr<const options::OptionSet> cache_in(const options::test::TempDir& dir) {
  return test::options_from({}, dir.path(), {{"op_compiler_cache_dir", dir.path()}});
}

std::vector<std::string> leftovers(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(folder))
    if (e.path().filename().string().find(".tmp") != std::string::npos) names.push_back(e.path().string());
  return names;
}

TEST(GrainCalibration, TextRoundTripsAndRefusesAnotherCpuThreadCountOrGarbage) {
  const std::string cpu = cpu_identity();
  ASSERT_NE(cpu.find('|'), std::string::npos) << cpu;
  const std::string text = calibration_text(cpu, 2, 2.75);
  auto us = parse_calibration(text, cpu, 2);
  ASSERT_TRUE(us.ok()) << us.status().message();
  EXPECT_DOUBLE_EQ(*us, 2.75);
  EXPECT_NE(parse_calibration(text, cpu + " amx_tile", 2).status().message().find("another CPU"), std::string::npos);
  EXPECT_NE(parse_calibration(text, cpu, 4).status().message().find("another thread count"), std::string::npos);
  EXPECT_FALSE(parse_calibration("", cpu, 2).ok());
  EXPECT_FALSE(parse_calibration(text.substr(0, text.size() / 2), cpu, 2).ok());  // truncated
  for (const char* bad : {"abc", "-1", "0", "nan", "inf", "2.5x", "1e9"}) {
    std::string broken = text;
    broken.replace(broken.find("2.750"), 5, bad);
    EXPECT_NE(parse_calibration(broken, cpu, 2).status().message().find("fork_join_us"), std::string::npos) << bad;
  }
}

TEST(GrainCalibration, MadeOnceWrittenWholeAndTheGrainFollowsIt) {
  options::test::TempDir dir;
  const ThreadingGrain grain = calibrated_threading_grain(2, grain_cache_root(*cache_in(dir)));
  const std::string root = dir.path() + "/kernel_cache";
  const std::string path = calibration_path(root, 2);
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_TRUE(leftovers(root).empty());
  auto us = parse_calibration(slurp(path), cpu_identity(), 2);
  ASSERT_TRUE(us.ok()) << us.status().message();
  EXPECT_GT(*us, 0.0);
  EXPECT_NEAR(grain.fork_join_us, *us, 1e-3);  // what the file holds (printed to 3 decimals)
  EXPECT_EQ(grain.cycles, grain_for_fork_join(grain.fork_join_us));
  // Later compiles of this process read the same.
  const ThreadingGrain again = calibrated_threading_grain(2, grain_cache_root(*cache_in(dir)));
  EXPECT_EQ(again.cycles, grain.cycles);
  EXPECT_EQ(again.fork_join_us, grain.fork_join_us);
}

TEST(GrainCalibration, AKeptCalibrationIsReadNotMeasuredAgain) {
  // 40 us is no quiet machine's fork/join: the grain can only come from the file.
  options::test::TempDir dir;
  const std::string path = calibration_path(dir.path() + "/kernel_cache", 2);
  write(path, calibration_text(cpu_identity(), 2, 40.0));
  const ThreadingGrain grain = calibrated_threading_grain(2, grain_cache_root(*cache_in(dir)));
  EXPECT_DOUBLE_EQ(grain.fork_join_us, 40.0);
  EXPECT_EQ(grain.cycles, grain_for_fork_join(40.0));
  EXPECT_EQ(slurp(path), calibration_text(cpu_identity(), 2, 40.0)) << "left as it was";
}

TEST(GrainCalibration, ACorruptOrForeignCalibrationIsReplacedNotFatal) {
  for (const std::string& bad : {std::string("\x01\x02garbage"), calibration_text("another cpu | sse2", 2, 40.0),
                                 calibration_text(cpu_identity(), 3, 40.0), std::string()}) {
    options::test::TempDir dir;
    const std::string root = dir.path() + "/kernel_cache";
    const std::string path = calibration_path(root, 2);
    write(path, bad);
    const ThreadingGrain grain = calibrated_threading_grain(2, grain_cache_root(*cache_in(dir)));
    EXPECT_GT(grain.fork_join_us, 0.0);
    auto us = parse_calibration(slurp(path), cpu_identity(), 2);
    ASSERT_TRUE(us.ok()) << "rewritten: " << us.status().message();
    EXPECT_NEAR(*us, grain.fork_join_us, 1e-3);
    EXPECT_TRUE(leftovers(root).empty());
  }
}

TEST(GrainCalibration, OPT_op_compiler_cache_mode_DisableKeepsNoCalibration) {
  options::test::TempDir dir;
  auto config = test::options_from({}, dir.path(),
                                   {{"op_compiler_cache_dir", dir.path()}, {"op_compiler_cache_mode", "disable"}});
  ASSERT_TRUE(config);
  const ThreadingGrain grain = calibrated_threading_grain(2, grain_cache_root(*config));
  EXPECT_DOUBLE_EQ(grain.fork_join_us, kDefaultForkJoinUs);
  EXPECT_EQ(grain.cycles, grain_for_fork_join(kDefaultForkJoinUs));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/kernel_cache"));
  EXPECT_DOUBLE_EQ(calibrated_threading_grain(2, "").fork_join_us, kDefaultForkJoinUs);
}

}  // namespace
}  // namespace openge::compiler
