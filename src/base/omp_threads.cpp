#include "base/omp_threads.h"

#include <omp.h>

namespace openge {

ScopedNumThreads::ScopedNumThreads(int threads) : previous_(omp_get_max_threads()) {
  if (threads > 0 && threads != previous_) omp_set_num_threads(threads);
}

ScopedNumThreads::~ScopedNumThreads() {
  if (omp_get_max_threads() != previous_) omp_set_num_threads(previous_);
}

}  // namespace openge
