#include "compiler/toolchain.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace openge::compiler {
namespace {

constexpr size_t kMaxStderrChars = 4000;

std::string read_head(const std::string& path, size_t max_chars) {
  std::ifstream in(path, std::ios::binary);
  std::string text(max_chars, '\0');
  in.read(text.data(), static_cast<std::streamsize>(max_chars));
  text.resize(static_cast<size_t>(in.gcount()));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Runs argv with stdout and stderr into `log_path`; the exit status, or -1 with `spawn_error`
// set when the program could not be started.
int run_program(const std::vector<std::string>& argv, const std::string& log_path, std::string* spawn_error) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    *spawn_error = std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      *spawn_error = std::strerror(errno);
      return -1;
    }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  *spawn_error = "killed by signal " + std::to_string(WTERMSIG(status));
  return -1;
}

// In the system's temporary folder (TMPDIR), as the compile cache's scratch folders are.
std::string temp_log_path() {
  std::error_code ec;
  std::string name = (std::filesystem::temp_directory_path(ec) / "openge_cxx_XXXXXX").string();
  const int fd = mkstemp(name.data());
  if (fd >= 0) close(fd);
  return name;
}

// The x86 SIMD features in /proc/cpuinfo that -march=native turns into code-generation choices.
std::string cpu_features() {
  static const std::string features = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    std::set<std::string> kept;
    while (std::getline(in, line)) {
      if (line.rfind("flags", 0) != 0) continue;
      std::istringstream words(line.substr(line.find(':') + 1));
      for (std::string w; words >> w;)
        if (w.rfind("avx", 0) == 0 || w.rfind("sse", 0) == 0 || w == "fma" || w == "f16c" || w == "bmi2" ||
            w.rfind("amx", 0) == 0)
          kept.insert(w);
      break;
    }
    std::string out;
    for (const std::string& w : kept) out += (out.empty() ? "" : " ") + w;
    return out;
  }();
  return features;
}

}  // namespace

Result<Toolchain> resolve_toolchain(const std::string& compiler) {
  Toolchain tc;
  tc.compiler = compiler;
  tc.cpu_features = cpu_features();
  static std::mutex mutex;
  static std::map<std::string, std::string> versions;
  std::lock_guard<std::mutex> lock(mutex);
  auto known = versions.find(tc.compiler);
  if (known != versions.end()) {
    tc.version = known->second;
    return tc;
  }
  const std::string log = temp_log_path();
  std::string spawn_error;
  const int rc = run_program({tc.compiler, "--version"}, log, &spawn_error);
  const std::string out = read_head(log, 1000);
  unlink(log.c_str());
  if (rc != 0)
    return unsupported("the C++ compiler '" + tc.compiler + "' (environment variable CXX, default g++) cannot be run" +
                       (rc < 0 ? ": " + spawn_error : " (exit " + std::to_string(rc) + "): " + out) +
                       "; install g++ or point CXX at a C++17 compiler, or set jit_compile=false to run the "
                       "prebuilt kernels");
  tc.version = out.substr(0, out.find('\n'));
  versions[tc.compiler] = tc.version;
  return tc;
}

// -O3, not -O2: g++ 12 vectorises at -O2 only loops without a remainder ("very cheap" cost
// model), and a kernel's chunk [begin, end) has one; at -O2 nothing was vectorised.
std::vector<std::string> compile_flags(const BuildFlags& build) {
  std::vector<std::string> flags = {
      "-std=c++17",     build.no_optimization ? "-O0" : "-O3", "-march=native", "-ffp-contract=off", "-fPIC", "-shared",
      "-fno-exceptions"};
  if (build.debug_info) flags.push_back("-g");
  return flags;
}

Status run_compiler(const Toolchain& tc, const std::vector<std::string>& flags, const std::string& source_path,
                    const std::string& out_path, const std::string& kernel_name) {
  std::vector<std::string> argv = {tc.compiler};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {source_path, "-o", out_path});
  const std::string log = temp_log_path();
  std::string spawn_error;
  const int rc = run_program(argv, log, &spawn_error);
  const std::string err = read_head(log, kMaxStderrChars);
  unlink(log.c_str());
  if (rc == 0) return Status::Ok();
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
  return internal_error("online compile of kernel '" + kernel_name + "' failed: " +
                        (rc < 0 ? "the compiler could not be started (" + spawn_error + ")"
                                : "the compiler exited with " + std::to_string(rc)) +
                        "\n  command: " + command + (err.empty() ? "" : "\n  compiler output:\n" + err) +
                        "\n  (set jit_compile=false to run the prebuilt kernels instead)");
}

}  // namespace openge::compiler
