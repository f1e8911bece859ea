// Messages are bounded: an error that echoes what a user gave (an option value, a name from a
// model, a line of a file) must not become megabytes on one line. Every CLI error line and every
// exception the Python binding raises goes through bound_text.
#pragma once
#include <cstddef>
#include <string>

namespace openge {

// Longest message printed or raised: a few lines of a terminal, far above any real message
// (the longest the tests see are ~600 characters of option problems).
inline constexpr size_t kMaxMessageChars = 4096;

// `text` itself when it is at most `limit` characters; else its head and tail around
// " ... [N characters left out] ... ", `limit` characters in all (the tail keeps the advice that
// messages end with).
inline std::string bound_text(const std::string& text, size_t limit = kMaxMessageChars) {
  if (text.size() <= limit) return text;
  const size_t tail = limit / 8;
  std::string marker = " ... [" + std::to_string(text.size() - limit) + " characters left out] ... ";
  const size_t head = limit > tail + marker.size() ? limit - tail - marker.size() : 0;
  // The count in the marker is what the head and tail leave out.
  marker = " ... [" + std::to_string(text.size() - head - tail) + " characters left out] ... ";
  return text.substr(0, head) + marker + text.substr(text.size() - tail);
}

}  // namespace openge
