#include "profiling/csv.h"

namespace openge::profiling {

void CsvBuilder::row(const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) text_ += ',';
    const std::string& c = cells[i];
    if (c.find_first_of(",\"\r\n") == std::string::npos) {
      text_ += c;
      continue;
    }
    text_ += '"';
    for (char ch : c) {
      if (ch == '"') text_ += '"';
      text_ += ch;
    }
    text_ += '"';
  }
  text_ += '\n';
}

}  // namespace openge::profiling
