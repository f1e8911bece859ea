// A one-line progress bar on stderr for long compile steps (building kernels online, AOE tuning):
// "<label> [#####     ] 3/10 (<first> 2, <second> 1)". Drawn only when stderr is a terminal, so
// logs and pipes never receive carriage returns. step() may be called from several threads.
#pragma once
#include <mutex>
#include <string>

namespace openge {

class ProgressBar {
 public:
  // `first` and `second` name the two kinds of finished item that step() counts (e.g. "compiled"
  // and "cached"); `total` 0 draws nothing.
  ProgressBar(std::string label, int total, std::string first, std::string second);
  // One item finished, of the second kind when `second` is true.
  void step(bool second);

 private:
  void draw() const;
  std::mutex mutex_;
  std::string label_, first_, second_;
  int total_, finished_ = 0, seconds_ = 0;
  bool enabled_;
};

}  // namespace openge
