// The threads of this test process now, for tests that check whether a run started an OpenMP
// team (libgomp starts a team's workers on the first parallel region of each thread that enters
// one, and keeps them while that thread lives).
#pragma once
#include <cstddef>
#include <filesystem>

namespace openge::testing {

inline size_t process_threads() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

}  // namespace openge::testing
