// The OpenMP thread count of one compile or run, without touching anyone else's: OpenMP's
// nthreads setting belongs to the calling thread, and the caller's own OpenMP code must find it
// as it left it.
#pragma once

namespace openge {

// Sets the threads that parallel loops and oneDNN use on this thread until the scope ends, then
// restores the thread's previous setting. 0 keeps the current setting.
class ScopedNumThreads {
 public:
  explicit ScopedNumThreads(int threads);
  ~ScopedNumThreads();
  ScopedNumThreads(const ScopedNumThreads&) = delete;
  ScopedNumThreads& operator=(const ScopedNumThreads&) = delete;

 private:
  int previous_;
};

}  // namespace openge
