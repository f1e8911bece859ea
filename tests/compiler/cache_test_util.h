// Helpers for the compile-cache tests: a real g++ build of a tiny kernel, a build that copies a
// shared object already compiled (for the tests that publish many times), and checks that a
// cache folder holds only complete, matching entries.
#pragma once
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/op_cache.h"
#include "compiler/op_cache_entry.h"
#include "options/options_test_util.h"

namespace openge::compiler::test {

namespace fs = std::filesystem;

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// extern "C" int <symbol>() { return <value>; }
inline std::string probe_source(const std::string& symbol, int value) {
  return "extern \"C\" int " + symbol + "() { return " + std::to_string(value) + "; }\n";
}

// A key as the compiler helper makes one: the source and the command that compiles it.
inline KernelKey probe_key(const std::string& name, int value, const std::string& soc = "Ascend910B1") {
  KernelKey k;
  k.kernel_name = name;
  k.source = probe_source(name, value);
  k.compiler = "g++";
  k.compiler_version = "g++ (test)";
  k.flags = {"-shared", "-fPIC", "-O0"};
  k.cpu_features = "test";
  k.soc_version = soc;
  return k;
}

// Compiles key.source with g++ into out_path; `count` counts the compiles.
inline std::function<Status(const std::string&)> gxx_build(const KernelKey& key, const std::string& scratch,
                                                           int* count = nullptr) {
  return [key, scratch, count](const std::string& out) -> Status {
    if (count) ++*count;
    const std::string src = scratch + "/" + key.kernel_name + "_" + std::to_string(::getpid()) + ".cpp";
    std::ofstream(src) << key.source;
    std::string cmd = key.compiler;
    for (const auto& f : key.flags) cmd += " " + f;
    cmd += " -o '" + out + "' '" + src + "' 2>/dev/null";
    const int rc = std::system(cmd.c_str());
    if (rc != 0) return internal_error("g++ failed (" + std::to_string(rc) + ") for " + key.kernel_name);
    return Status::Ok();
  };
}

// Writes `bytes` (a real shared object, maybe padded) to out_path in `pieces` writes.
inline std::function<Status(const std::string&)> copy_build(const std::string& bytes, int* count = nullptr,
                                                            int pieces = 1, int pause_us = 0) {
  return [bytes, count, pieces, pause_us](const std::string& out) -> Status {
    if (count) ++*count;
    std::ofstream f(out, std::ios::binary);
    const size_t step = bytes.size() / pieces + 1;
    for (size_t at = 0; at < bytes.size(); at += step) {
      f.write(bytes.data() + at, static_cast<std::streamsize>(std::min(step, bytes.size() - at)));
      f.flush();
      if (pause_us) ::usleep(pause_us);
    }
    return f ? Status::Ok() : io_error("cannot write " + out);
  };
}

// One real compile for the whole test binary: the shared object the copying builds write.
inline const std::string& golden_so() {
  static options::test::TempDir dir;
  static const std::string bytes = [] {
    const KernelKey k = probe_key("probe_golden", 7);
    auto st = gxx_build(k, dir.path())(dir.path() + "/golden.so");
    EXPECT_TRUE(st.ok()) << st.message();
    return read_bytes(dir.path() + "/golden.so");
  }();
  return bytes;
}

// Calls the probe symbol of a shared object (dlopen'ed under a private name).
inline int call_probe(const std::string& so_path, const std::string& symbol) {
  void* h = ::dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return -1;
  auto fn = reinterpret_cast<int (*)()>(::dlsym(h, symbol.c_str()));
  const int v = fn ? fn() : -2;
  ::dlclose(h);
  return v;
}

// Every .so of the folder has a manifest that matches it (by an independent re-check with
// check_entry), every manifest has its .so, and no temporary file is left. "" when so.
inline std::string folder_problems(const std::string& soc_dir) {
  std::string problems;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(soc_dir, ec)) {
    const std::string name = f.path().filename().string();
    if (name.rfind(".tmp.", 0) == 0) {
      problems += "temporary file left: " + name + "\n";
      continue;
    }
    const std::string stem = (fs::path(soc_dir) / f.path().stem()).string();
    const std::string why = check_entry(stem + ".so", stem + ".json", f.path().stem().string());
    if (!why.empty()) problems += name + ": " + why + "\n";
  }
  return problems;
}

inline int count_files(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) ++n;
  return n;
}

}  // namespace openge::compiler::test
