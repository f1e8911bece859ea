// The threads of this test process now, for tests that check whether a run started an OpenMP
// team (libgomp starts a team's workers on the first parallel region of each thread that enters
// one, and keeps them while that thread lives).
#pragma once
#include <dlfcn.h>

#include <cstddef>
#include <filesystem>

namespace openge::testing {

inline size_t process_threads() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// Whether process_threads() can show that a run started a team: true under libgomp (what GCC
// builds link), which starts a team's workers for each thread that enters a parallel region.
// LLVM's libomp (clang builds: the ASan+UBSan tree of ./test.sh) keeps one pool of workers for
// the whole process and hands them to any thread, so a fresh thread's team adds no thread there.
inline bool teams_show_in_thread_count() { return dlsym(RTLD_DEFAULT, "kmp_get_blocktime") == nullptr; }

// Why a test of team starts is skipped under libomp.
inline constexpr const char* kTeamsNotCountable =
    "LLVM's libomp reuses one worker pool for every thread, so the thread count cannot show whether a run started a "
    "team; the GCC (libgomp) builds run this test";

}  // namespace openge::testing
