// Shared helpers of the profiling tests: scratch folders, an independent CSV reader, a Chrome
// trace checker and a profiled run of the bundled demo model.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "frontend/onnx_loader.h"
#include "profiling/profiler.h"
#include "compiler/pipeline.h"

namespace openge::profiling::testing {

namespace fs = std::filesystem;

inline std::string scratch_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("openge_prof_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// RFC 4180 reader (quoted cells, doubled quotes, CRLF or LF). Fails the test on a malformed file.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
};
inline Csv parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records(1);
  std::string cell;
  bool quoted = false, cell_started = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        cell += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cell += c;
      continue;
    }
    if (c == '"') {
      EXPECT_FALSE(cell_started) << "quote inside an unquoted cell at byte " << i;
      quoted = true;
    } else if (c == ',') {
      records.back().push_back(cell), cell.clear(), cell_started = false;
      continue;
    } else if (c == '\n') {
      records.back().push_back(cell), cell.clear(), cell_started = false;
      records.emplace_back();
      continue;
    } else if (c != '\r') {
      cell += c;
    }
    cell_started = true;
  }
  EXPECT_FALSE(quoted) << "unterminated quoted cell";
  if (!cell.empty() || !records.back().empty()) records.back().push_back(cell);
  if (records.back().empty()) records.pop_back();
  Csv csv;
  if (records.empty()) return csv;
  csv.header = records[0];
  for (size_t r = 1; r < records.size(); ++r) {
    EXPECT_EQ(records[r].size(), csv.header.size()) << "row " << r << " has a different cell count";
    std::map<std::string, std::string> row;
    for (size_t c = 0; c < csv.header.size() && c < records[r].size(); ++c) row[csv.header[c]] = records[r][c];
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

inline double num(const std::string& s) {
  size_t used = 0;
  const double v = std::stod(s, &used);
  for (size_t i = used; i < s.size(); ++i) EXPECT_TRUE(s[i] == '\t') << "trailing garbage in '" << s << "'";
  return v;
}

// Chrome trace event checks: a JSON array; every event has ph/pid/tid; X events have numeric ts
// and dur; events of one thread nest properly (a child ends before its parent).
inline nlohmann::json check_trace(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);  // throws on invalid JSON: the test fails
  EXPECT_TRUE(j.is_array());
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<double, double>>> per_thread;
  for (const auto& e : j) {
    EXPECT_TRUE(e.contains("ph") && e["ph"].is_string()) << e.dump();
    EXPECT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << e.dump();
    EXPECT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << e.dump();
    EXPECT_TRUE(e.contains("name") && e["name"].is_string()) << e.dump();
    const std::string ph = e.value("ph", "");
    if (ph != "M") {
      EXPECT_TRUE(e.contains("ts") && e["ts"].is_number()) << "ts must be numeric: " << e.dump();
    }
    if (ph == "X") {
      EXPECT_TRUE(e.contains("dur") && e["dur"].is_number()) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0.0);
      per_thread[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}].push_back(
          {e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
    }
  }
  constexpr double kEps = 1e-6;
  for (auto& [key, spans] : per_thread) {
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<double> open_ends;
    for (const auto& [b, e] : spans) {
      while (!open_ends.empty() && open_ends.back() <= b + kEps) open_ends.pop_back();
      if (!open_ends.empty()) {
        EXPECT_LE(e, open_ends.back() + kEps) << "event [" << b << "," << e << "] overlaps its parent";
      }
      open_ends.push_back(e);
    }
  }
  return j;
}

inline Tensor demo_image(uint32_t seed) {
  Tensor t(DType::kFloat32, {1, 3, 32, 32});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

inline std::unique_ptr<Executable> compile_demo(bool use_aicore = true) {
  auto g = load_onnx(std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx");
  EXPECT_TRUE(g.ok()) << g.status().message();
  CompileOptions co;
  co.use_aicore = use_aicore;
  auto exe = compiler::compile(std::move(g.value()), {{1, 3, 32, 32}}, co);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  return std::move(exe.value());
}

// Runs `exe` `iterations` times under `profiler` the way Session does.
inline void profiled_runs(Profiler& profiler, const Executable& exe, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    auto it = profiler.begin_iteration(&exe, exe.nodes().size());
    auto out = exe.run({demo_image(static_cast<uint32_t>(i))}, nullptr, it.get());
    ASSERT_TRUE(out.ok()) << out.status().message();
    ASSERT_TRUE(profiler.end_iteration(std::move(it), true).ok());
  }
}

inline std::vector<std::string> files_matching(const std::string& dir, const std::string& prefix,
                                               const std::string& ext) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && e.path().extension() == ext) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace openge::profiling::testing
