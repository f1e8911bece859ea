// What a warm compile costs the operator compile cache: N kernels found in the cache (lookup
// under the shared lock, SHA-256 check of the .so against its manifest, last-use refresh) and
// loaded with dlopen, in a process that did not write them. bench/RESULTS.md has the numbers.
//
//   openge_op_cache_hits [--kernels N] [--rounds R]
//
// One tiny kernel is compiled with g++ once; the cache is filled with N entries of its bytes
// under N different keys (what differs between kernels is their source, not the cache's work).
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/op_cache.h"

namespace fs = std::filesystem;
using openge::compiler::CacheMode;
using openge::compiler::KernelKey;
using openge::compiler::OpCache;

namespace {

KernelKey key_of(int i) {
  KernelKey k;
  k.kernel_name = "te_fused_bench_" + std::to_string(i);
  k.source = "extern \"C\" int te_fused_bench() { return " + std::to_string(i) + "; }\n";
  k.compiler = "g++";
  k.compiler_version = "g++ (bench)";
  k.flags = {"-O2", "-fPIC", "-shared"};
  k.cpu_features = "bench";
  k.soc_version = "Ascend910B";
  return k;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int kernels = 100, rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--kernels")
      kernels = std::atoi(argv[i + 1]);
    else if (a == "--rounds")
      rounds = std::atoi(argv[i + 1]);
  }
  const fs::path dir = fs::temp_directory_path() / ("openge_cache_hits_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string src = (dir / "k.cpp").string(), so = (dir / "k.so").string();
  std::ofstream(src) << key_of(0).source;
  if (std::system(("g++ -O2 -fPIC -shared -o " + so + " " + src).c_str()) != 0) {
    std::fprintf(stderr, "g++ failed\n");
    return 1;
  }
  std::stringstream bytes;
  bytes << std::ifstream(so, std::ios::binary).rdbuf();
  const std::string so_bytes = bytes.str();
  auto copy = [&](const std::string& out) {
    std::ofstream(out, std::ios::binary) << so_bytes;
    return openge::Status::Ok();
  };

  const std::string root = (dir / "kernel_cache").string();
  {
    auto fill = OpCache::at(root, CacheMode::kEnable, "Ascend910B", {});
    for (int i = 0; i < kernels; ++i)
      if (!fill->get_or_build(key_of(i), copy).ok()) return 1;
  }
  std::vector<double> lookup_ms, load_ms;
  for (int r = 0; r < rounds; ++r) {
    auto cache = OpCache::at(root, CacheMode::kEnable, "Ascend910B", {});
    std::vector<std::string> paths;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kernels; ++i) {
      auto hit = cache->get_or_build(key_of(i), copy);
      if (!hit.ok() || !hit->hit) return 1;
      paths.push_back(hit->so_path);
    }
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<void*> handles;
    for (const auto& p : paths) handles.push_back(::dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL));
    const auto t2 = std::chrono::steady_clock::now();
    for (void* h : handles)
      if (h) ::dlclose(h);
    lookup_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    load_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  std::printf(
      "{\"kernels\": %d, \"so_bytes\": %zu, \"rounds\": %d, \"lookup_ms_median\": %.3f, \"dlopen_ms_median\": %.3f}\n",
      kernels, so_bytes.size(), rounds, median(lookup_ms), median(load_ms));
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
