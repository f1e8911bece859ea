// CSV text as msprof writes it and as standard readers parse it (RFC 4180 quoting).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace openge::profiling {

class CsvBuilder {
 public:
  explicit CsvBuilder(const std::vector<std::string>& header) { row(header); }
  // Quotes a cell only when it holds a comma, quote or line break.
  void row(const std::vector<std::string>& cells);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace openge::profiling
