// Shared helpers of the Data Dump tests: options with dump_config set, the bundled demo model
// with seeded inputs, and the dump files a session wrote.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "openge/session.h"
#include "../profiling/profiling_test_util.h"
#include "options/option_builder.h"

namespace openge::dump::testing {

namespace fs = std::filesystem;

inline const std::string kDemoModel = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";

// The profiling tests' scratch folders and file reader serve here too.
inline std::string scratch_dir(const std::string& name) { return profiling::testing::scratch_dir("dump_" + name); }
using profiling::testing::read_text;

using Flags = std::vector<std::pair<std::string, std::string>>;

inline std::shared_ptr<const options::OptionSet> make_options(const Flags& flags) {
  options::OptionInputs in;
  for (const auto& [name, value] : flags) in.flags.push_back({name, value, "test"});
  auto report = options::build_options(in);
  EXPECT_TRUE(report.errors.empty()) << (report.errors.empty() ? "" : report.errors.front().reason);
  if (!report.options) return nullptr;
  return std::make_shared<const options::OptionSet>(std::move(*report.options));
}

// The demo model's inputs, uniform in [-1, 1) from a fixed seed.
inline std::vector<Tensor> demo_inputs(const Session& session, uint32_t seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<Tensor> inputs;
  for (const auto& info : session.inputs()) {
    Shape shape = info.shape;
    for (auto& d : shape) d = d < 0 ? 1 : d;
    Tensor t(info.dtype, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

// Every regular file under `dir` whose name passes `keep`, sorted.
template <class Keep>
std::vector<fs::path> files_under(const std::string& dir, Keep keep) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && keep(e.path().filename().string())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace openge::dump::testing
