#include "options/problem.h"

namespace openge::options {

std::string Problem::to_string() const {
  return "E10001: Value [" + value + "] for parameter [" + parameter + "] is invalid. Reason: " + reason;
}

std::string format_problems(const std::vector<Problem>& problems) {
  std::string out;
  for (const auto& p : problems) out += p.to_string() + "\n";
  return out;
}

}  // namespace openge::options
