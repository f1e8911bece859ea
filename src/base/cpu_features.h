// The instruction-set extensions of the CPU this process runs on that OpenGE's kernels (oneDNN,
// the -march builds of the reference kernels) can use. A compiled model (.oge) records them.
#pragma once
#include <string>
#include <vector>

namespace openge {

// The features this CPU has, in a fixed order (names as GCC's __builtin_cpu_supports spells them).
std::vector<std::string> cpu_features();

}  // namespace openge
