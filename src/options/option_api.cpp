#include "options/option_api.h"

#include <algorithm>

#include "openge/did_you_mean.h"
#include "options/option_rules.h"
#include "options/profiling_options.h"
#include "options/value_parsers.h"

namespace openge::options {
namespace {

// aoe_config.aoe_mode ("1|2|4"): every allowed value is an integer.
bool enum_of_integers(const OptionSpec& spec) {
  std::string_view s = spec.allowed;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find('|', i);
    if (j == std::string_view::npos) j = s.size();
    if (!parse_int(s.substr(i, j - i))) return false;
    i = j + 1;
  }
  return true;
}

std::string type_list(const std::vector<ApiType>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) out += (i ? " or " : "") + std::string(api_type_name(types[i]));
  return out;
}

}  // namespace

const char* api_type_name(ApiType type) {
  switch (type) {
    case ApiType::kBool:
      return "bool";
    case ApiType::kInt:
      return "int";
    case ApiType::kText:
      return "str";
    case ApiType::kOther:
      return "other";
  }
  return "?";
}

std::vector<ApiType> accepted_api_types(const OptionSpec& spec) {
  switch (spec.kind) {
    case Kind::kBool:
      return {ApiType::kBool};
    case Kind::kInt:
    case Kind::kTimeoutMs:
      return {ApiType::kInt};
    case Kind::kEnum:
      if (enum_of_integers(spec)) return {ApiType::kText, ApiType::kInt};
      return {ApiType::kText};
    default:
      return {ApiType::kText};
  }
}

CheckedOption check_single_option(std::string_view name, ApiType type, const std::string& text,
                                  const std::string& origin) {
  CheckedOption out;
  out.spec = find_option(name);
  if (!out.spec) {
    out.problem = Problem{std::string(name), text, "unknown option" + did_you_mean_suffix(suggest_names(name))};
    return out;
  }
  const auto accepted = accepted_api_types(*out.spec);
  const auto from = " (from " + origin + ")";
  if (std::find(accepted.begin(), accepted.end(), type) == accepted.end()) {
    out.problem = Problem{out.spec->name, text,
                          "must be a " + type_list(accepted) + " (" + kind_name(out.spec->kind) + "), got a " +
                              api_type_name(type) + from};
    return out;
  }
  Normalized n = normalize_value(*out.spec, text);
  if (n.error.empty() && out.spec->kind == Kind::kProfilingOptions) {
    auto parsed = parse_profiling_options(text);
    if (!parsed.ok()) n = {"", parsed.status().message()};
  }
  if (!n.error.empty()) {
    out.problem = Problem{out.spec->name, text, n.error + from};
    return out;
  }
  out.value = n.value;
  return out;
}

}  // namespace openge::options
