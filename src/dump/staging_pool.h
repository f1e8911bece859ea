// Memory the Data Dump copies tensors into, reused across iterations: a fresh allocation per
// tensor would zero-fill it and fault in new pages every run, which costs more than the copy.
// A buffer returns to the pool when the writer has written it (its holder is released).
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "openge/tensor.h"

namespace openge::dump {

class StagingPool {
 public:
  // Keeps at most `max_cached_bytes` of free buffers; the rest is freed.
  explicit StagingPool(size_t max_cached_bytes);

  // A tensor of `dtype` and `shape` in pooled memory (contents undefined): a view tensor, valid
  // while `holder` is alive.
  Tensor allocate(DType dtype, const Shape& shape, std::shared_ptr<void>& holder);
  // A copy of `t` in pooled memory, the same way.
  Tensor copy(const Tensor& t, std::shared_ptr<void>& holder);

 private:
  struct State {
    std::mutex mutex;
    std::multimap<size_t, void*> free;  // capacity -> buffer
    size_t cached_bytes = 0;
    size_t max_cached_bytes = 0;
    ~State();
  };
  std::shared_ptr<State> state_;
};

}  // namespace openge::dump
