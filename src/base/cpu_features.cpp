#include "base/cpu_features.h"

namespace openge {

std::vector<std::string> cpu_features() {
  // One row per feature; __builtin_cpu_supports needs a literal. The names are those both GCC 12
  // and clang 14 (the fuzz build) accept.
  struct Row {
    const char* name;
    bool present;
  };
  __builtin_cpu_init();
  const Row rows[] = {
      {"sse4.2", __builtin_cpu_supports("sse4.2") != 0},
      {"avx", __builtin_cpu_supports("avx") != 0},
      {"avx2", __builtin_cpu_supports("avx2") != 0},
      {"fma", __builtin_cpu_supports("fma") != 0},
      {"avx512f", __builtin_cpu_supports("avx512f") != 0},
      {"avx512bw", __builtin_cpu_supports("avx512bw") != 0},
      {"avx512vl", __builtin_cpu_supports("avx512vl") != 0},
      {"avx512dq", __builtin_cpu_supports("avx512dq") != 0},
      {"avx512cd", __builtin_cpu_supports("avx512cd") != 0},
      {"avx512vnni", __builtin_cpu_supports("avx512vnni") != 0},
      {"avx512bf16", __builtin_cpu_supports("avx512bf16") != 0},
  };
  std::vector<std::string> present;
  for (const Row& r : rows)
    if (r.present) present.push_back(r.name);
  return present;
}

}  // namespace openge
