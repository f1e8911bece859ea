#include "compiler/prebuilt_kernels.h"

#include <algorithm>
#include <vector>

#include "base/cpu_features.h"

namespace openge::compiler {
namespace {

// The levels, highest first, with the features (as base/cpu_features.h names them) that show a
// CPU has the level. x86-64-v3 also needs BMI1/2, LZCNT, MOVBE and F16C, which every CPU with
// AVX2 and FMA has had (Haswell, Zen); v2 needs POPCNT and SSSE3, which come with SSE4.2.
struct IsaLevel {
  const char* name;
  std::vector<const char*> features;
};
const std::vector<IsaLevel>& levels() {
  static const std::vector<IsaLevel> table = {
      {"x86-64-v4", {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "avx2", "fma"}},
      {"x86-64-v3", {"avx", "avx2", "fma"}},
      {"x86-64-v2", {"sse4.2"}},
  };
  return table;
}

bool has_all(const IsaLevel& level, const std::vector<std::string>& present) {
  return std::all_of(level.features.begin(), level.features.end(),
                     [&](const char* f) { return std::find(present.begin(), present.end(), f) != present.end(); });
}

}  // namespace

std::string best_isa_level() {
  const std::vector<std::string> present = cpu_features();
  for (const IsaLevel& level : levels())
    if (has_all(level, present)) return level.name;
  return "";
}

bool cpu_runs_isa_level(const std::string& name) {
  const std::vector<std::string> present = cpu_features();
  for (const IsaLevel& level : levels())
    if (name == level.name) return has_all(level, present);
  return false;
}

}  // namespace openge::compiler
