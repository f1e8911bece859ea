// A Session's compiled graphs, one per set of input shapes, bounded: beyond `capacity` the least
// recently used one is dropped (runs still holding it finish with it). The cache's lock is held
// only to look up and insert, never during a compile, so runs of already-compiled shapes never
// wait for a new shape's compile; a second caller asking for a shape that is being compiled
// waits for that compile instead of repeating it. A failed compile is not kept: the next call
// tries again.
#pragma once
#include <cstdint>
#include <functional>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

class Executable;

// The default of option compiled_shape_cache_size (its row in src/options/option_table.cpp says
// the same; tests/session/shape_cache_test.cpp checks).
inline constexpr int64_t kDefaultShapeCacheSize = 8;

class ShapeCache {
 public:
  using CompileFn = std::function<Result<std::shared_ptr<Executable>>()>;

  explicit ShapeCache(size_t capacity) : capacity_(capacity > 0 ? capacity : 1) {}

  // The graph compiled for `shapes`: from the cache, or made by `compile` (called without the
  // cache's lock, at most once at a time per shape set).
  Result<std::shared_ptr<Executable>> get_or_compile(const std::vector<Shape>& shapes, const CompileFn& compile);

  // The graph compiled successfully for the shapes of `inputs`, or null (not compiled, still
  // compiling, failed). Builds no key: a run of compiled shapes allocates nothing here.
  std::shared_ptr<Executable> find_compiled(const std::vector<Tensor>& inputs);

  size_t size() const;
  size_t capacity() const { return capacity_; }
  // The first graph compiled successfully (kept even after eviction: the precision report
  // describes it), or null.
  std::shared_ptr<Executable> first() const;

 private:
  struct Compiled {
    std::shared_ptr<Executable> exe;
    Status status;
  };
  struct Entry {
    std::vector<Shape> shapes;
    std::shared_future<Compiled> compiled;
    uint64_t id = 0;  // tells a newer entry for the same shapes from this one
  };
  using Lru = std::list<Entry>;  // most recently used first

  void erase_failed(const std::vector<Shape>& shapes, uint64_t id);

  const size_t capacity_;
  mutable std::mutex mutex_;
  Lru lru_;
  std::map<std::vector<Shape>, Lru::iterator> index_;
  uint64_t next_id_ = 0;
  std::shared_ptr<Executable> first_;
};

}  // namespace openge
