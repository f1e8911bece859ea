#include "base/aligned_memory.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace openge {

namespace {
constexpr size_t kCacheLine = 64;
constexpr size_t kHugePage = size_t{2} << 20;
}  // namespace

void* allocate_aligned(size_t bytes) {
  const size_t rounded = bytes < kCacheLine ? kCacheLine : (bytes + kCacheLine - 1) / kCacheLine * kCacheLine;
  if (rounded < bytes) throw std::bad_alloc();  // overflow
  const bool huge = rounded >= kHugePage;
  void* p = std::aligned_alloc(huge ? kHugePage : kCacheLine,
                               huge ? (rounded + kHugePage - 1) / kHugePage * kHugePage : rounded);
  if (!p) throw std::bad_alloc();
  // Only a hint: a kernel without transparent huge pages refuses it, and nothing changes.
  if (huge) ::madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

}  // namespace openge
