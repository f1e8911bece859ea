#include "dump/staging_pool.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "base/aligned_memory.h"

namespace openge::dump {

StagingPool::State::~State() {
  for (auto& [capacity, p] : free) std::free(p);
}

StagingPool::StagingPool(size_t max_cached_bytes) : state_(std::make_shared<State>()) {
  state_->max_cached_bytes = max_cached_bytes;
}

Tensor StagingPool::allocate(DType dtype, const Shape& shape, std::shared_ptr<void>& holder) {
  const size_t nbytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype);
  const size_t bytes = std::max<size_t>(64, (nbytes + 63) / 64 * 64);
  void* p = nullptr;
  size_t capacity = bytes;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    // The smallest free buffer that fits and wastes at most half of itself.
    auto it = state_->free.lower_bound(bytes);
    if (it != state_->free.end() && it->first <= 2 * bytes) {
      capacity = it->first;
      p = it->second;
      state_->cached_bytes -= capacity;
      state_->free.erase(it);
    }
  }
  if (!p) p = allocate_aligned(capacity);
  std::shared_ptr<State> state = state_;
  holder = std::shared_ptr<void>(p, [state, capacity](void* q) {
    std::lock_guard<std::mutex> lock(state->mutex);
    if (state->cached_bytes + capacity > state->max_cached_bytes) {
      std::free(q);
      return;
    }
    state->free.emplace(capacity, q);
    state->cached_bytes += capacity;
  });
  return Tensor::borrow(dtype, shape, p);
}

Tensor StagingPool::copy(const Tensor& t, std::shared_ptr<void>& holder) {
  Tensor out = allocate(t.dtype(), t.shape(), holder);
  if (t.nbytes()) std::memcpy(out.raw(), t.raw(), t.nbytes());
  return out;
}

}  // namespace openge::dump
