#include "options/option_set.h"

#include "options/option_table.h"
#include "options/value_parsers.h"

extern char** environ;

namespace openge::options {

EnvMap capture_process_environment() {
  EnvMap env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

const char* source_name(Source s) {
  switch (s) {
    case Source::kDefault:
      return "default";
    case Source::kEnv:
      return "env";
    case Source::kFile:
      return "file";
    case Source::kFlag:
      return "flag";
  }
  return "?";
}

void OptionReadRecord::add(const char* name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  names_.insert(name);
}

std::set<std::string> OptionReadRecord::names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return names_;
}

void OptionReadRecord::forget() const {
  std::lock_guard<std::mutex> lock(mutex_);
  names_.clear();
}

const OptionValue* OptionSet::find(std::string_view name) const {
  const OptionSpec* spec = find_option(name);
  if (!spec) return nullptr;
  reads_.add(spec->name);
  auto it = values_.find(spec->name);
  return it == values_.end() ? nullptr : &it->second;
}

std::string OptionSet::get(std::string_view name) const {
  const OptionValue* v = find(name);
  return v ? v->value : std::string();
}

bool OptionSet::user_set(std::string_view name) const {
  const OptionValue* v = find(name);
  return v && v->source != Source::kDefault && !v->value.empty();
}

bool OptionSet::get_bool(std::string_view name) const { return parse_bool(get(name)).value_or(false); }

int64_t OptionSet::get_int(std::string_view name, int64_t fallback) const {
  return parse_int(get(name)).value_or(fallback);
}

}  // namespace openge::options
