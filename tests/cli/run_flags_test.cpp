// openge run with the flags msame and ais_bench users script with (--input FILE[,FILE], --output,
// --outfmt, --loop) and openge --version, on the bundled demo model.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_test_util.h"
#include "io/npy.h"
#include "options/options_test_util.h"

namespace openge::cli::test {
namespace {
namespace fs = std::filesystem;

const std::string kDemo = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";

Tensor demo_input() {
  Tensor t(DType::kFloat32, {1, 3, 32, 32});
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>((i * 37) % 11) / 11.0f - 0.5f;
  return t;
}

std::string read_file(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path, std::ios::binary).rdbuf();
  return s.str();
}

TEST(RunFlags, InputWithoutNameFeedsTheOnlyInput) {
  options::test::TempDir d;
  ASSERT_TRUE(write_npy(demo_input(), d.path() + "/x.npy").ok());
  const CliRun named =
      run_openge("run --model " + kDemo + " --input image=" + d.path() + "/x.npy --output " + d.path() + "/a");
  const CliRun bare =
      run_openge("run --model " + kDemo + " --input " + d.path() + "/x.npy --output " + d.path() + "/b");
  ASSERT_EQ(named.code, 0) << named.err;
  ASSERT_EQ(bare.code, 0) << bare.err;
  EXPECT_FALSE(contains(bare.out, "random")) << bare.out;
  EXPECT_EQ(read_file(d.path() + "/a/output_0.npy"), read_file(d.path() + "/b/output_0.npy"));
}

// msame's raw .bin input (the model's dtype and shape) gives the same outputs as the .npy.
TEST(RunFlags, RawBinInputEqualsTheNpy) {
  options::test::TempDir d;
  const Tensor x = demo_input();
  ASSERT_TRUE(write_npy(x, d.path() + "/x.npy").ok());
  std::ofstream(d.path() + "/x.bin", std::ios::binary)
      .write(static_cast<const char*>(x.raw()), static_cast<std::streamsize>(x.nbytes()));
  const CliRun npy =
      run_openge("run --model " + kDemo + " --input " + d.path() + "/x.npy --output " + d.path() + "/a --outfmt NPY");
  const CliRun bin =
      run_openge("run --model " + kDemo + " --input " + d.path() + "/x.bin --output " + d.path() + "/b --outfmt npy");
  ASSERT_EQ(npy.code, 0) << npy.err;
  ASSERT_EQ(bin.code, 0) << bin.err;
  EXPECT_EQ(read_file(d.path() + "/a/output_0.npy"), read_file(d.path() + "/b/output_0.npy"));
  EXPECT_FALSE(fs::exists(d.path() + "/a/output_0.pb")) << "--outfmt NPY writes only .npy";
}

TEST(RunFlags, RawBinOfTheWrongSizeIsRefused) {
  options::test::TempDir d;
  const std::string bin = d.file("x.bin", std::string(100, '\0'));
  const CliRun r = run_openge("run --model " + kDemo + " --input " + bin);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "holds 100 bytes")) << r.err;
  EXPECT_TRUE(contains(r.err, "needs 12288")) << r.err;
}

// BIN holds the raw float32 bytes and TXT the same numbers as text, both equal to the NPY output.
TEST(RunFlags, OutfmtBinAndTxtHoldTheNpyValues) {
  options::test::TempDir d;
  ASSERT_TRUE(write_npy(demo_input(), d.path() + "/x.npy").ok());
  for (const char* fmt : {"NPY", "BIN", "TXT"}) {
    const CliRun r = run_openge("run --model " + kDemo + " --input " + d.path() + "/x.npy --output " + d.path() + "/" +
                                fmt + " --outfmt " + fmt);
    ASSERT_EQ(r.code, 0) << fmt << r.err;
  }
  auto npy = read_npy(d.path() + "/NPY/output_0.npy");
  ASSERT_TRUE(npy.ok());
  const std::string bin = read_file(d.path() + "/BIN/output_0.bin");
  ASSERT_EQ(bin.size(), npy->nbytes());
  EXPECT_EQ(0, std::memcmp(bin.data(), npy->raw(), bin.size()));
  std::istringstream txt(read_file(d.path() + "/TXT/output_0.txt"));
  int64_t n = 0;
  for (double v; txt >> v; ++n) ASSERT_NEAR(v, npy->data<float>()[n], 1e-6 * (1 + std::abs(v))) << n;
  EXPECT_EQ(n, npy->numel());
}

TEST(RunFlags, LoopIsIterations) {
  const CliRun r = run_openge("run --model " + kDemo + " --loop 3");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "runs 2..3: median")) << r.out;
  const CliRun both = run_openge("run --model " + kDemo + " --loop 3 --iterations 2");
  EXPECT_EQ(both.code, 1);
  EXPECT_TRUE(contains(both.err, "not both")) << both.err;
}

TEST(RunFlags, CommaListMustGiveEveryInput) {
  options::test::TempDir d;
  ASSERT_TRUE(write_npy(demo_input(), d.path() + "/x.npy").ok());
  const CliRun r = run_openge("run --model " + kDemo + " --input " + d.path() + "/x.npy," + d.path() + "/x.npy");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "lists 2 files but the model has 1 inputs (image)")) << r.err;
}

// Every file that appears in the working folder during a run is named on the closing line.
TEST(RunFlags, ClosingLineNamesWhatTheRunWrote) {
  options::test::TempDir d;
  const std::string cwd = d.dir("cwd");
  const CliRun r = run_openge("run --model " + kDemo + " --output " + d.path() + "/out", "", cwd);
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t at = r.out.find("wrote: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_TRUE(contains(line, "2 output files in " + d.path() + "/out")) << line;
  // A file is named by its own path or by a folder above it (an artifact folder with N files).
  const auto named = [&](fs::path p) {
    for (; p.string().size() > cwd.size(); p = p.parent_path())
      if (contains(line, p.string())) return true;
    return false;
  };
  for (const auto& entry : fs::recursive_directory_iterator(cwd))
    if (entry.is_regular_file()) EXPECT_TRUE(named(entry.path())) << entry.path() << " is not named in: " << line;
}

// A knowledge base an earlier tuning left behind changes the kernels of a plain run: the run
// says so on stderr, naming the file; without the base there is no such line.
TEST(RunFlags, KnowledgeBaseThatChangedTheCompileIsNamed) {
  options::test::TempDir d;
  const std::string work = d.dir("work");
  const CliRun tuning = run_openge("run --model " + kDemo + " --option aoe_config.aoe_mode=2", "", work);
  ASSERT_EQ(tuning.code, 0) << tuning.err;
  ASSERT_TRUE(fs::exists(work + "/aoe_knowledge_base.json")) << tuning.out;
  EXPECT_TRUE(contains(tuning.out, "aoe_data " + work)) << "the tuning run names what it wrote: " << tuning.out;
  const CliRun later = run_openge("run --model " + kDemo + " --option aoe_config.work_path=" + work, "", work);
  ASSERT_EQ(later.code, 0) << later.err;
  EXPECT_TRUE(contains(later.err, "the AOE knowledge base " + work + "/aoe_knowledge_base.json changed this compile"))
      << later.err;
  fs::remove(work + "/aoe_knowledge_base.json");
  const CliRun without = run_openge("run --model " + kDemo + " --option aoe_config.work_path=" + work, "", work);
  ASSERT_EQ(without.code, 0) << without.err;
  EXPECT_FALSE(contains(without.err, "knowledge base")) << without.err;
}

TEST(RunFlags, VersionPrintsTheProjectVersion) {
  const CliRun r = run_openge("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string("openge ") + OPENGE_VERSION_TEXT + "\n");
}

}  // namespace
}  // namespace openge::cli::test
