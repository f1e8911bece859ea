// The one allocator for tensor storage, run arenas, packed weights and scratch buffers.
//
// Every block is 64-byte aligned (AVX-512 loads, oneDNN). A block of 2 MiB or more is aligned to
// 2 MiB and marked for transparent huge pages (madvise): first touching a model's weights or a
// large arena then takes one page fault per 2 MiB instead of one per 4 KiB, which is most of the
// cost of loading a large model on a virtual machine (BERT-base: bench/RESULTS.md, cold start).
// Where huge pages are off the hint does nothing and the memory behaves as before.
#pragma once
#include <cstddef>

namespace openge {

// At least `bytes` (rounded up to 64, at least 64) of uninitialised memory; release it with
// std::free. Throws std::bad_alloc when the system has none.
void* allocate_aligned(size_t bytes);

}  // namespace openge
