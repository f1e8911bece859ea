// One configuration problem in CANN's style: parameter, value, reason, reported with code E10001
// (AMB-29). Every problem of a configuration is collected and reported together.
#pragma once
#include <string>
#include <vector>

namespace openge::options {

struct Problem {
  std::string parameter;
  std::string value;
  std::string reason;
  // "E10001: Value [v] for parameter [p] is invalid. Reason: r"
  std::string to_string() const;
};

// One line per problem.
std::string format_problems(const std::vector<Problem>& problems);

}  // namespace openge::options
