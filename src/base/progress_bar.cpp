#include "base/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace openge {

ProgressBar::ProgressBar(std::string label, int total, std::string first, std::string second)
    : label_(std::move(label)),
      first_(std::move(first)),
      second_(std::move(second)),
      total_(total),
      enabled_(total > 0 && isatty(STDERR_FILENO)) {
  draw();
}

void ProgressBar::step(bool second) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++finished_;
  seconds_ += second;
  draw();
  if (enabled_ && finished_ == total_) std::fputc('\n', stderr);
}

void ProgressBar::draw() const {
  if (!enabled_) return;
  constexpr int kWidth = 30;
  const int filled = total_ ? finished_ * kWidth / total_ : kWidth;
  std::fprintf(stderr, "\r%s [%s%s] %d/%d (%s %d, %s %d)", label_.c_str(), std::string(filled, '#').c_str(),
               std::string(kWidth - filled, ' ').c_str(), finished_, total_, first_.c_str(), finished_ - seconds_,
               second_.c_str(), seconds_);
  std::fflush(stderr);
}

}  // namespace openge
