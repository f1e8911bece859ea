// Helpers for the option tests: build an OptionSet from flags/env/files without touching the
// process environment, and look for problems by parameter and reason.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "options/option_builder.h"

namespace openge::options::test {

using Flags = std::vector<std::pair<std::string, std::string>>;

inline BuildReport build(const Flags& flags, const EnvMap& env = {}, const std::vector<std::string>& files = {},
                         bool check_files = false, const std::string& cwd = "/tmp") {
  OptionInputs in;
  for (const auto& [k, v] : flags) in.flags.push_back({k, v, "--option"});
  in.env = env;
  in.option_files = files;
  in.check_files = check_files;
  in.cwd = cwd;
  return build_options(in);
}

// True when some error names `parameter` (exactly) and its reason contains `reason_part`.
inline bool has_error(const BuildReport& r, const std::string& parameter, const std::string& reason_part = "") {
  for (const auto& e : r.errors)
    if (e.parameter == parameter && e.reason.find(reason_part) != std::string::npos) return true;
  return false;
}

inline bool has_warning(const BuildReport& r, const std::string& part) {
  for (const auto& w : r.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

inline std::string dump_errors(const BuildReport& r) { return format_problems(r.errors); }

// The effective value of an option in a report that must be valid.
inline std::string value_of(const BuildReport& r, const std::string& name) {
  EXPECT_TRUE(r.options.has_value()) << dump_errors(r);
  return r.options ? r.options->get(name) : "";
}

inline bool accepted(const Flags& flags, const EnvMap& env = {}) { return build(flags, env).errors.empty(); }

// A fresh folder under the test temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = (std::filesystem::temp_directory_path() /
             ("openge_opt_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)))
                .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name, const std::string& content) const {
    const std::string p = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  std::string dir(const std::string& name) const {
    const std::string p = path_ + "/" + name;
    std::filesystem::create_directories(p);
    return p;
  }

 private:
  std::string path_;
};

}  // namespace openge::options::test
