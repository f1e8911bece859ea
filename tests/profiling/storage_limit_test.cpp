// storage_limit (OPT-profiling_config.profiling_options.storage_limit-1..4): a long run with a
// small limit never exceeds it, keeps the newest data and deletes the oldest first.
#include "profiling/storage_limit.h"

#include "io/atomic_file.h"
#include "profiling_test_util.h"

namespace openge::profiling {
namespace {
using namespace testing;

uint64_t folder_bytes(const std::string& root) {
  uint64_t n = 0;
  for (const auto& f : fs::recursive_directory_iterator(root))
    if (f.is_regular_file()) n += f.file_size();
  return n;
}

TEST(ProfilingStorageLimit, LongRunStaysUnderTheLimitAndAgesOldestFirst) {  // storage_limit-2
  const std::string root = scratch_dir("storage");
  fs::create_directories(root + "/PROF_000001_x");
  const uint64_t limit = 10000, margin = 1000;
  StorageGuard guard(root, limit, margin, [] { return uint64_t{1} << 40; });
  std::vector<std::string> written;
  for (int i = 0; i < 200; ++i) {
    const std::string path = root + "/PROF_000001_x/f" + std::to_string(1000 + i);
    const std::string data(300 + (i % 7) * 50, 'x');
    ASSERT_TRUE(guard.reserve(data.size()));
    ASSERT_TRUE(write_file_atomically(path, data).ok());
    guard.added(path, data.size());
    written.push_back(path);
    ASSERT_LE(folder_bytes(root), limit - margin) << "after file " << i;
    EXPECT_EQ(guard.used(), folder_bytes(root));
  }
  // The newest files survive; whatever was deleted is a prefix of the oldest.
  EXPECT_TRUE(fs::exists(written.back()));
  size_t first_kept = 0;
  while (!fs::exists(written[first_kept])) ++first_kept;
  EXPECT_GT(first_kept, 0u);
  for (size_t i = first_kept; i < written.size(); ++i) EXPECT_TRUE(fs::exists(written[i])) << i;
  EXPECT_EQ(guard.deleted().front(), written.front());
}

TEST(ProfilingStorageLimit, OlderCollectionsCountAndAgeFirst) {
  const std::string root = scratch_dir("storage_old");
  fs::create_directories(root + "/PROF_000001_old");
  ASSERT_TRUE(write_file_atomically(root + "/PROF_000001_old/a.csv", std::string(4000, 'a')).ok());
  fs::create_directories(root + "/unrelated");
  ASSERT_TRUE(write_file_atomically(root + "/unrelated/keep.txt", std::string(4000, 'k')).ok());
  StorageGuard guard(root, 6000, 500, [] { return uint64_t{1} << 40; });
  EXPECT_EQ(guard.used(), 4000u);  // only PROF_* folders are profiling data
  ASSERT_TRUE(guard.reserve(2000));
  EXPECT_FALSE(fs::exists(root + "/PROF_000001_old/a.csv"));
  EXPECT_TRUE(fs::exists(root + "/unrelated/keep.txt"));
}

TEST(ProfilingStorageLimit, FullDiskAgesAndRefusesWhenNothingIsLeft) {  // storage_limit-2 (disk)
  const std::string root = scratch_dir("storage_disk");
  // A 6000-byte disk: free space = capacity - our files - other users' files.
  uint64_t others = 0;
  StorageGuard guard(root, 1 << 30, 1000, [&] { return 6000 - others - folder_bytes(root); });
  fs::create_directories(root + "/PROF_1");
  ASSERT_TRUE(guard.reserve(3000));
  ASSERT_TRUE(write_file_atomically(root + "/PROF_1/a", std::string(3000, 'a')).ok());
  guard.added(root + "/PROF_1/a", 3000);
  others = 1000;                     // free: 2000
  ASSERT_TRUE(guard.reserve(1500));  // free would drop under the margin: the old file goes
  EXPECT_FALSE(fs::exists(root + "/PROF_1/a"));
  others = 5800;                     // free: 200
  EXPECT_FALSE(guard.reserve(100));  // nothing left to age
  // The reason names the disk and its free space, not the limit (which is far away).
  const std::string why = guard.why_full(100);
  EXPECT_NE(why.find("the disk holding " + root), std::string::npos) << why;
  EXPECT_NE(why.find("free some disk space"), std::string::npos) << why;
  EXPECT_EQ(why.find("storage_limit"), std::string::npos) << why;
}

TEST(ProfilingStorageLimit, ReasonNamesTheLimitWhenTheLimitIsShort) {
  const std::string root = scratch_dir("storage_reason");
  StorageGuard guard(root, 3 * StorageGuard::kMiB, StorageGuard::kMiB, [] { return uint64_t{1} << 40; });
  EXPECT_FALSE(guard.reserve(4 * StorageGuard::kMiB));
  const std::string why = guard.why_full(4 * StorageGuard::kMiB);
  EXPECT_NE(why.find("storage_limit of 3 MB"), std::string::npos) << why;
}

TEST(ProfilingStorageLimit, DefaultIsNinetyPercentOfFreeSpace) {  // storage_limit-4
  const std::string root = scratch_dir("storage_default");
  StorageGuard guard(root, 0, 1000, [] { return uint64_t{1000000}; });
  EXPECT_EQ(guard.limit(), 900000u);
  EXPECT_NE(guard.describe().find("90%"), std::string::npos);
}

}  // namespace
}  // namespace openge::profiling

namespace openge::profiling {
namespace {
using namespace testing;

// The profiler itself over a long run: 300 iterations of the demo model (about 3 MB of files)
// into a 600 kB limit. The folder never holds more than the limit, the last iterations are all
// there, and the iterations that were aged away are the oldest ones.
TEST(ProfilingStorageLimit, OPT_profiling_config_profiling_options_storage_limit_2_ProfilerLongRunKeepsNewest) {
  const std::string root = scratch_dir("storage_profiler");
  auto cfg = profiler_config_from_json(R"({"training_trace":"on","aicpu":"on"})", root);
  ASSERT_TRUE(cfg.ok());
  const uint64_t limit = 600 * 1024, margin = 60 * 1024;
  cfg->storage_limit_bytes_override = limit;
  cfg->storage_margin_bytes = margin;
  auto p = std::move(Profiler::create(cfg.value()).value());
  auto exe = compile_demo();
  const int kIterations = 300;
  uint64_t peak = 0;
  for (int batch = 0; batch < kIterations / 20; ++batch) {
    profiled_runs(*p, *exe, 20);
    ASSERT_TRUE(p->flush().ok());  // write this batch now, as a long run's periodic flush does
    peak = std::max(peak, folder_bytes(root));
  }
  ASSERT_TRUE(p->finish().ok());
  peak = std::max(peak, folder_bytes(root));
  EXPECT_LE(peak, limit);
  // Which iterations still have their op_summary: a suffix of 1..300 with the last one in it.
  std::vector<bool> kept(kIterations + 1, false);
  for (const auto& f : files_matching(p->output_dir(), "op_summary_0_1_", ".csv")) {
    const std::string stem = fs::path(f).stem().string();
    kept[static_cast<size_t>(std::stoi(stem.substr(stem.rfind('_') + 1)))] = true;
  }
  EXPECT_TRUE(kept[kIterations]);
  EXPECT_FALSE(kept[1]);  // the limit forced aging
  int first_kept = 1;
  while (!kept[static_cast<size_t>(first_kept)]) ++first_kept;
  for (int i = first_kept; i <= kIterations; ++i) EXPECT_TRUE(kept[static_cast<size_t>(i)]) << "iteration " << i;
  // The collection's metadata is never aged.
  EXPECT_TRUE(fs::exists(p->collection_dir() + "/device_0/start_info.0"));
  EXPECT_TRUE(fs::exists(p->collection_dir() + "/device_0/info.json.0"));
}

}  // namespace
}  // namespace openge::profiling
