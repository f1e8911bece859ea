// The CLI surface: openge options / options --explain / paths / check-options, with the
// environment given to the child process.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "options/option_table.h"
#include "options_test_util.h"
#include "paths/artifact_paths.h"

namespace openge::options::test {
namespace {

struct Run {
  int code = -1;
  std::string out;  // stdout and stderr
};

Run openge(const std::string& args, const std::string& env = "") {
  const std::string cmd = "env -i HOME=/home/cli PATH=/usr/bin:/bin " + env + " " + OPENGE_CLI + " " + args + " 2>&1";
  Run r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool has_text(const std::string& text, const std::string& s) { return text.find(s) != std::string::npos; }
bool has(const Run& r, const std::string& s) { return has_text(r.out, s); }

TEST(OptionsCli, CheckOptionsListsEveryProblemAndFails) {
  auto r = openge("check-options --option graph_run_mode=2 --option precison_mode=x --option dump_step=3-1");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "E10001: Value [2] for parameter [graph_run_mode] is invalid")) << r.out;
  EXPECT_TRUE(has(r, "did you mean 'precision_mode'")) << r.out;
  EXPECT_TRUE(has(r, "[dump_config.dump_step]")) << r.out;
  EXPECT_TRUE(has(r, "3 problems")) << r.out;
}

TEST(OptionsCli, CheckOptionsAcceptsAValidConfiguration) {
  TempDir d;
  const std::string f = d.file("o.py", "npu.global_options().precision_mode=\"allow_mix_precision\"\n");
  auto r = openge("check-options --options-file " + f + " --option deterministic=1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "options are valid (2 set")) << r.out;
}

TEST(OptionsCli, CheckOptionsReadsTheEnvironment) {
  auto r = openge("check-options", "PROFILING_MODE=true");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "needs an output folder")) << r.out;
  r = openge("check-options", "PROFILING_MODE=true ASCEND_WORK_PATH=/tmp");
  EXPECT_EQ(r.code, 0) << r.out;
}

TEST(OptionsCli, OptionsListsValuesAndSources) {
  TempDir d;
  const std::string f = d.file("o.json", R"({"deterministic": 1})");
  auto r = openge("options --options-file " + f + " --option jit_compile=false", "ASCEND_DEVICE_ID=3");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "[file: " + f + ":1]")) << r.out;
  EXPECT_TRUE(has(r, "[flag: --option]")) << r.out;
  EXPECT_TRUE(has(r, "[env: ASCEND_DEVICE_ID]")) << r.out;
  EXPECT_TRUE(has(r, "hcom_parallel")) << r.out;
  EXPECT_TRUE(has(r, "(no effect on CPU)")) << r.out;
  EXPECT_TRUE(has(r, "[default]")) << r.out;
}

// Each line carries the row's effect: implemented rows no marker, the others theirs.
TEST(OptionsCli, OptionsMarksWhatIsNotImplementedOrHasNoEffect) {
  auto r = openge("options");
  ASSERT_EQ(r.code, 0) << r.out;
  std::istringstream lines(r.out);
  std::map<std::string, std::string> line_of;
  for (std::string line; std::getline(lines, line);) line_of[line.substr(0, line.find(' '))] = line;
  for (const auto& s : option_table()) {
    ASSERT_TRUE(line_of.count(s.name)) << s.name << "\n" << r.out;
    const std::string& line = line_of[s.name];
    const bool not_yet = has_text(line, "(not implemented yet)"), no_cpu = has_text(line, "(no effect on CPU)");
    EXPECT_EQ(not_yet, s.status == Effect::kNotImplemented) << line;
    EXPECT_EQ(no_cpu, s.status == Effect::kNoCpuEffect) << line;
  }
}

TEST(OptionsCli, ExplainSaysTheEffectAndTheConsumer) {
  auto r = openge("options --explain profiling_config.enable_profiling");
  EXPECT_TRUE(has(r, "effect:       implemented: ")) << r.out;
  EXPECT_TRUE(has(r, "consumer:     src/profiling/profiler_config.cpp")) << r.out;
  r = openge("options --explain fusion_switch_file");
  EXPECT_TRUE(has(r, "effect:       implemented: each compile runs only the fusion passes the file leaves on"))
      << r.out;
  EXPECT_TRUE(has(r, "consumer:     src/passes/pass_selection.cpp")) << r.out;
  r = openge("options --explain stream_sync_timeout");
  EXPECT_TRUE(has(r, "effect:       implemented: a run still going after this many ms fails")) << r.out;
  EXPECT_TRUE(has(r, "consumer:     src/compiler/pipeline.cpp")) << r.out;
  r = openge("options --explain aoe_config.aoe_mode");
  EXPECT_TRUE(has(r, "effect:       implemented: 2, operator tuning: ")) << r.out;
  EXPECT_TRUE(has(r, "consumer:     src/aoe/tuned_selection.cpp")) << r.out;
  r = openge("options --explain hcom_parallel");
  EXPECT_TRUE(has(r, "effect:       implemented: data-parallel training under mpirun")) << r.out;
  EXPECT_TRUE(has(r, "consumer:     src/session/data_parallel.cpp")) << r.out;
  r = openge("options --explain stream_max_parallel_num");
  EXPECT_TRUE(has(r, "effect:       implemented: bounds how many independent branches")) << r.out;
  EXPECT_TRUE(has(r, "consumer:     src/compiler/memory_layout.cpp")) << r.out;
  r = openge("options --explain memory_config.atomic_clean_policy");
  EXPECT_TRUE(has(r, "effect:       implemented: the AI CPU kernels that add into their outputs")) << r.out;
  EXPECT_TRUE(has(r, "consumer:     src/runtime/executable_run.cpp")) << r.out;
  r = openge("options --explain memory_config.static_memory_policy");
  EXPECT_TRUE(has(r, "effect:       no effect on CPU: ")) << r.out;
}

// docs/OPTIONS.md carries the table `openge options --markdown` prints, verbatim.
TEST(OptionsCli, OptionsDocumentHasTheTableOfTheCode) {
  auto r = openge("options --markdown");
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(std::string(OPENGE_SOURCE_DIR) + "/docs/OPTIONS.md");
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_TRUE(has_text(doc.str(), r.out))
      << "docs/OPTIONS.md is out of date: paste the output of `openge options --markdown` under \"Every option\"";
}

TEST(OptionsCli, ExplainDescribesAnOption) {
  auto r = openge("options --explain memory_config.atomic_clean_policy");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* s : {"GE key:", "ge.exec.atomicCleanPolicy", "allowed:", "default:", "effect:", "MemSet",
                        "aliases:", "atomic_clean_policy"})
    EXPECT_TRUE(has(r, s)) << s << "\n" << r.out;
  r = openge("options --explain precision_mode");
  EXPECT_TRUE(has(r, "Ascend910 training: allow_fp32_to_fp16")) << r.out;
  EXPECT_TRUE(has(r, "interactions:")) << r.out;
  r = openge("options --explain precisoin_mode");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "did you mean 'precision_mode'")) << r.out;
}

TEST(OptionsCli, PathsPrintsEveryArtifactAndItsRule) {
  auto r = openge("paths", "ASCEND_WORK_PATH=/w NPU_COLLECT_PATH=/n");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* s : {"/w/log", "ASCEND_WORK_PATH/log", "/n/extra-info/data-dump", "/w/kernel_meta",
                        "/w/profiling_data", "/w/check_result.json", "/home/cli/atc_data/kernel_cache_",
                        "compile_cache_size", "500 MB, keep 50% in /home/cli/atc_data/kernel_cache_", "mode: enable"})
    EXPECT_TRUE(has(r, s)) << s << "\n" << r.out;
}

// Each artifact says whether anything writes it today, as paths::artifact_writer() says.
TEST(OptionsCli, PathsSayWhetherEachArtifactIsWritten) {
  auto r = openge("paths", "ASCEND_WORK_PATH=/w");
  ASSERT_EQ(r.code, 0) << r.out;
  for (auto kind : paths::all_artifact_kinds()) {
    const std::string name = paths::artifact_name(kind);
    const auto at = ("\n" + r.out).find("\n" + name + " ");  // the artifact's first line
    ASSERT_NE(at, std::string::npos) << name << "\n" << r.out;
    const auto written = r.out.find("written: ", at);
    ASSERT_NE(written, std::string::npos) << name;
    const char* writer = paths::artifact_writer(kind);
    EXPECT_EQ(r.out.compare(written, 13, writer ? "written: yes," : "written: no, "), 0)
        << name << ": " << r.out.substr(written, 60);
  }
  EXPECT_TRUE(has(r, paths::artifact_writer(paths::ArtifactKind::kCompileCache) ? "applied: yes" : "applied: no, "))
      << r.out;
}

TEST(OptionsCli, InvalidOptionsStopPaths) {
  auto r = openge("paths --option device_id=99");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(has(r, "[device_id]")) << r.out;
}

}  // namespace
}  // namespace openge::options::test
