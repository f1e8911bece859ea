#include "cli_errors.h"

#include <cstdio>

#include "openge/bounded_text.h"

namespace openge::cli {

std::string escape_control_chars(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

int report_error(const char* command, const Status& status) {
  std::fprintf(stderr, "openge %s: error: %s\n", command, bound_text(escape_control_chars(status.message())).c_str());
  return 1;
}

}  // namespace openge::cli
