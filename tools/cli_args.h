// A small command-line parser: "--name value" and "--name=value" flags, repeatable, plus
// --help. Unknown flags and missing values are errors that name the flag.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge::cli {

struct FlagSpec {
  std::string name;        // without the leading "--"
  std::string value_name;  // empty for a switch without a value
  std::string help;
  bool repeatable = false;
};

class Args {
 public:
  // Parses argv[first..]; every problem is collected and reported together.
  static Result<Args> parse(int argc, char** argv, int first, const std::vector<FlagSpec>& specs);

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const;
  const std::vector<std::string>& all(const std::string& name) const;
  // Integer flag in [min, max]; the error names the flag.
  Result<int> get_int(const std::string& name, int fallback, int min, int max) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

// Commands with positional arguments (profile-report DIR, dump convert DIR, compare A B): splits
// argv[2..] into the flags (with argv[0], argv[1] first, ready for Args::parse(..., 2, ...)) and
// the positional words. A flag without '=' takes the next word as its value, except --help.
struct SplitArgs {
  std::vector<char*> flags;
  std::vector<char*> positional;
};
SplitArgs split_positional(int argc, char** argv);

std::string usage(const std::string& synopsis, const std::string& description, const std::vector<FlagSpec>& specs);

}  // namespace openge::cli
