// The ten mistakes new users make most, each typed at the real openge binary: every one must end
// with exit code 1 and exactly one line on stderr that names the fix, and where the mistake can be
// seen before the model runs, the model must not run (no "run time:" line) and nothing is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "cli/cli_test_util.h"
#include "io/npy.h"
#include "options/options_test_util.h"

namespace openge::cli::test {
namespace {
namespace fs = std::filesystem;

const std::string kDemo = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";

std::string write_array(const std::string& path, Shape shape) {
  Tensor t(DType::kFloat32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i % 7) * 0.25f;
  EXPECT_TRUE(write_npy(t, path).ok()) << path;
  return path;
}

struct Mistake {
  const char* name;
  // The command line (after "openge") in the folder `dir`.
  std::function<std::string(const options::test::TempDir& dir)> args;
  const char* env;
  const char* fix;  // what the one line must say
};

const Mistake kMistakes[] = {
    {"TypoInAnOption", [](const auto&) { return "run --model " + kDemo + " --option precison_mode=force_fp32"; }, "",
     "did you mean 'precision_mode'"},
    {"WrongInputName",
     [](const auto& d) {
       return "run --model " + kDemo + " --input imgae=" + write_array(d.path() + "/x.npy", {1, 3, 32, 32});
     },
     "", "did you mean 'image'"},
    {"WrongShape",
     [](const auto& d) {
       return "run --model " + kDemo + " --input image=" + write_array(d.path() + "/x.npy", {1, 3, 16, 16});
     },
     "", "reshape the data to [1,3,32,32]"},
    {"MissingFile", [](const auto& d) { return "run --model " + d.path() + "/no_such_model.onnx"; }, "",
     "check the path"},
    {"NotAnOnnxFile", [](const auto& d) { return "run --model " + d.file("notes.onnx", "these are my notes\n"); }, "",
     "is not an ONNX model"},
    {"UnwritableOutputFolder",
     [](const auto& d) { return "run --model " + kDemo + " --output " + d.file("plain_file", "x") + "/out"; }, "",
     "give a folder you can write to"},
    {"BadProfilingOptionsJson", [](const auto&) { return "run --model " + kDemo; },
     "PROFILING_MODE=true PROFILING_OPTIONS='{\"output\":\"/tmp\",task_trace:on}'", "PROFILING_OPTIONS"},
    {"UnknownCommand", [](const auto&) { return std::string("rnu --model ") + kDemo; }, "", "did you mean 'run'"},
    {"UnknownFlag", [](const auto& d) { return "run --model " + kDemo + " --outptu " + d.path() + "/o"; }, "",
     "did you mean --output"},
    {"NpyFolderGivenToInputs",
     [](const auto& d) {
       write_array(d.dir("npys") + "/batch0.npy", {1, 3, 32, 32});
       return "run --model " + kDemo + " --inputs " + d.path() + "/npys";
     },
     "", "--input image=FILE"},
};

class CommonMistakes : public ::testing::TestWithParam<Mistake> {};

TEST_P(CommonMistakes, ExitOneWithOneLineNamingTheFixBeforeTheModelRuns) {
  const Mistake& m = GetParam();
  options::test::TempDir dir;
  const CliRun r = run_openge(m.args(dir), m.env);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  ASSERT_FALSE(r.err.empty()) << r.out;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line:\n" << r.err;
  EXPECT_TRUE(contains(r.err, m.fix)) << "expected '" << m.fix << "' in: " << r.err;
  EXPECT_FALSE(contains(r.out, "run time:")) << "the model ran:\n" << r.out;
  EXPECT_FALSE(contains(r.err, "page 0")) << r.err;
  // Nothing half-made: the run wrote no output folder and no output file.
  EXPECT_FALSE(fs::exists(dir.path() + "/o")) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Cli, CommonMistakes, ::testing::ValuesIn(kMistakes),
                         [](const auto& info) { return std::string(info.param.name); });

// The folder case's counterpart: a folder whose .npy files are named for the inputs is read, and
// the data it holds (not random data) reaches the model.
TEST(CommonMistakes, NpyFolderNamedForTheInputsIsReadNotRandom) {
  options::test::TempDir dir;
  write_array(dir.dir("in") + "/image.npy", {1, 3, 32, 32});
  const CliRun folder = run_openge("run --model " + kDemo + " --inputs " + dir.path() + "/in");
  ASSERT_EQ(folder.code, 0) << folder.out << folder.err;
  EXPECT_FALSE(contains(folder.out, "random")) << folder.out;
  const CliRun file = run_openge("run --model " + kDemo + " --input " + dir.path() + "/in/image.npy");
  ASSERT_EQ(file.code, 0) << file.out << file.err;
  const auto outputs_of = [](const std::string& out) {
    return out.substr(out.find("output '"), out.find("run time:") - out.find("output '"));
  };
  EXPECT_EQ(outputs_of(folder.out), outputs_of(file.out));
}

}  // namespace
}  // namespace openge::cli::test
