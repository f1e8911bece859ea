// profiling_config.profiling_options / PROFILING_OPTIONS: a JSON object whose keys are those of
// spec C.3. Parsed and checked here; values are kept as strings as the user wrote them.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openge/status.h"
#include "options/problem.h"

namespace openge::options {

struct ProfilingOptions {
  std::map<std::string, std::string> values;  // key -> value as text (numbers as decimal)
  bool has(const std::string& key) const { return values.count(key) != 0; }
  std::string get(const std::string& key, const std::string& fallback = "") const {
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
};

struct ProfilingContext {
  std::string soc_version;
  int graph_run_mode = 1;
};

// The 22 keys of spec C.3.
const std::vector<std::string>& profiling_option_keys();

// Syntax only: a JSON object of strings/numbers/bools (for components reading a validated set).
Result<ProfilingOptions> parse_profiling_options(std::string_view json_text);

// Full check: syntax, unknown keys (did you mean), every value's range/enum, the product rules
// and the key interactions. Problems are named "<parameter>.<key>". Returns the parsed options
// when the JSON itself was readable.
std::optional<ProfilingOptions> check_profiling_options(std::string_view json_text, const std::string& parameter,
                                                        const ProfilingContext& ctx, std::vector<Problem>& errors,
                                                        std::vector<std::string>& warnings);

}  // namespace openge::options
