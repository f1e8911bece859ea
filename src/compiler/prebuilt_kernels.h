// Generated kernels built ahead of time by `openge compile` and carried in the .oge, so that a
// compiled model runs where no C++ compiler is installed and its first run builds nothing.
//
// They are built for an x86-64 microarchitecture level (GCC's -march=x86-64-v2 / -v3 / -v4), not
// for -march=native: every CPU of the level runs them, whatever else the compiling CPU had (an
// online build uses everything the running CPU has, and stays in the operator compile cache).
// Results do not depend on the level: kernels are built with -ffp-contract=off and without
// -ffast-math, so wider vectors compute the same roundings.
#pragma once
#include <map>
#include <string>

namespace openge::compiler {

struct PrebuiltKernels {
  std::string isa;                              // the level they were built for, e.g. "x86-64-v4"
  std::map<std::string, std::string> binaries;  // kernel name -> shared object bytes
};

// The highest level of the table this CPU runs ("" when it runs none of them).
std::string best_isa_level();
// Whether this CPU runs code built for `level` (false for a level the table does not know).
bool cpu_runs_isa_level(const std::string& level);

}  // namespace openge::compiler
