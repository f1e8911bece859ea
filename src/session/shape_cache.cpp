#include "session/shape_cache.h"

#include <chrono>

#include "base/guard.h"

namespace openge {

Result<std::shared_ptr<Executable>> ShapeCache::get_or_compile(const std::vector<Shape>& shapes,
                                                               const CompileFn& compile) {
  std::shared_future<Compiled> pending;
  std::promise<Compiled> promise;
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(shapes);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);  // now the most recently used
      pending = it->second->compiled;
    } else {
      id = ++next_id_;
      lru_.push_front(Entry{shapes, promise.get_future().share(), id});
      index_[shapes] = lru_.begin();
      while (lru_.size() > capacity_) {
        index_.erase(lru_.back().shapes);
        lru_.pop_back();
      }
    }
  }
  if (pending.valid()) {
    // Cached, or being compiled by another caller: wait for it (outside the lock).
    const Compiled& c = pending.get();
    if (!c.status.ok()) return c.status;
    return c.exe;
  }
  // This caller compiles. `compile` reports errors as values; an exception (none expected) still
  // reaches the waiters as an error instead of a broken promise.
  Result<std::shared_ptr<Executable>> result = guard_exceptions(compile, "compile");
  Compiled c;
  if (result.ok())
    c.exe = result.value();
  else
    c.status = result.status();
  if (c.exe) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!first_) first_ = c.exe;
  }
  promise.set_value(c);
  if (!c.exe) erase_failed(shapes, id);
  return result;
}

std::shared_ptr<Executable> ShapeCache::find_compiled(const std::vector<Tensor>& inputs) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = lru_.begin(); it != lru_.end(); ++it) {
    if (it->shapes.size() != inputs.size()) continue;
    bool same = true;
    for (size_t i = 0; same && i < inputs.size(); ++i) same = it->shapes[i] == inputs[i].shape();
    if (!same) continue;
    if (it->compiled.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return nullptr;
    const Compiled& c = it->compiled.get();
    if (!c.exe) return nullptr;
    lru_.splice(lru_.begin(), lru_, it);  // now the most recently used
    return c.exe;
  }
  return nullptr;
}

void ShapeCache::erase_failed(const std::vector<Shape>& shapes, uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(shapes);
  if (it == index_.end() || it->second->id != id) return;  // evicted, or already replaced
  lru_.erase(it->second);
  index_.erase(it);
}

size_t ShapeCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lru_.size();
}

std::shared_ptr<Executable> ShapeCache::first() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return first_;
}

}  // namespace openge
