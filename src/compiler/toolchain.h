// The system C++ compiler that builds the generated kernels (CXX, default g++): which program,
// its version and the CPU it targets (they are part of what changes a binary, hence of a cache
// key), the flags of a build, and running it.
#pragma once
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge::compiler {

struct Toolchain {
  std::string compiler;      // as given by CXX (a program name or path), default "g++"
  std::string version;       // first line of `<compiler> --version`
  std::string cpu_features;  // the CPU's SIMD features -march=native selects from, sorted
};

// The compiler `compiler` (CXX, read through the OptionSet's environment row; "g++" by default):
// its --version runs once per compiler and process. An error naming the compiler when it
// cannot be started, with what to do.
Result<Toolchain> resolve_toolchain(const std::string& compiler);

// The debug switches that change a build (op_debug_level 2, op_debug_config ccec_O0 / ccec_g).
struct BuildFlags {
  bool no_optimization = false;  // -O0 instead of -O3
  bool debug_info = false;       // -g
};
// The compile flags, in order. -ffp-contract=off keeps a*b+c two roundings, as the reference
// kernels compute it; no -ffast-math (NaN and infinity stay IEEE).
std::vector<std::string> compile_flags(const BuildFlags& build);

// Compiles `source_path` into the shared object `out_path`. A failure is one error naming the
// kernel, the command and the compiler's stderr.
Status run_compiler(const Toolchain& tc, const std::vector<std::string>& flags, const std::string& source_path,
                    const std::string& out_path, const std::string& kernel_name);

}  // namespace openge::compiler
