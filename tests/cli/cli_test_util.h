// Running the openge binary from a test: stdout and stderr apart, with a clean environment.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace openge::cli::test {

struct CliRun {
  int code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// `args` is shell text; `env` is "NAME=VALUE ..." added to a bare environment; `cwd` the
// working folder (the test's own when empty).
inline CliRun run_openge(const std::string& args, const std::string& env = "", const std::string& cwd = "") {
  static int counter = 0;
  const std::string err_file = (std::filesystem::temp_directory_path() /
                                ("openge_cli_err_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)))
                                   .string();
  const std::string cmd = (cwd.empty() ? "" : "cd '" + cwd + "' && ") + "env -i HOME=/tmp PATH=/usr/bin:/bin " + env +
                          " " + OPENGE_CLI + " " + args + " 2>" + err_file;
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::stringstream s;
  s << std::ifstream(err_file).rdbuf();
  r.err = s.str();
  std::filesystem::remove(err_file);
  return r;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace openge::cli::test
