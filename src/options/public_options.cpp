// The public options API (openge/options.h) over the builder, the option set and the table.
#include <memory>

#include "openge/options.h"
#include "options/option_api.h"
#include "options/option_builder.h"
#include "options/option_set.h"
#include "options/option_table.h"
#include "options/option_text.h"

namespace openge::options {
namespace {

OptionSetting setting_of(const std::string& name, const OptionValue& v) {
  return {name, v.value, source_name(v.source), v.origin};
}

OptionInfo info_of(const OptionSpec& s) {
  OptionInfo info;
  info.name = s.name;
  info.aliases = s.aliases;
  info.ge_key = s.ge_key;
  info.env_var = s.env_var;
  info.kind = kind_name(s.kind);
  for (ApiType t : accepted_api_types(s)) info.api_types.push_back(api_type_name(t));
  info.allowed = s.allowed;
  info.choices = s.kind == Kind::kEnum || s.kind == Kind::kTypeList;
  if (s.kind == Kind::kInt) info.range = std::make_pair(s.min, s.max);
  info.default_value = default_for(s, DefaultContext{1, kDefaultSoc});
  info.default_text = default_text(s);
  info.default_depends_on_scenario = s.default_fn != nullptr;
  if (s.deprecated_by) info.deprecated_by = std::string(s.deprecated_by);
  switch (s.status) {
    case Effect::kImplemented:
      info.effect = OptionEffect::kImplemented;
      break;
    case Effect::kNotImplemented:
      info.effect = OptionEffect::kNotImplemented;
      break;
    case Effect::kNoCpuEffect:
      info.effect = OptionEffect::kNoCpuEffect;
      break;
  }
  info.effect_label = effect_label(s.status);
  info.effect_note = s.effect;
  info.effect_text = effect_text(s);
  info.consumer = s.consumer;
  info.description = s.description;
  info.interactions = s.interactions;
  info.spec_ids = s.spec_ids;
  info.environment_only = *s.env_var && std::string_view(s.env_var) == s.name;
  return info;
}

}  // namespace

Configuration build_configuration(const OptionInputs& inputs) {
  BuildReport report = build_options(inputs);
  Configuration out;
  if (report.options) out.options = std::make_shared<const OptionSet>(std::move(*report.options));
  out.errors = std::move(report.errors);
  out.warnings = std::move(report.warnings);
  return out;
}

Result<std::shared_ptr<const OptionSet>> build_session_config(const OptionInputs& inputs) {
  auto set = build_option_set(inputs);
  if (!set.ok()) return set.status();
  return std::make_shared<const OptionSet>(std::move(set.value()));
}

// Through values(): listing options is not recorded as reading them.
std::vector<OptionSetting> option_settings(const OptionSet& options) {
  std::vector<OptionSetting> out;
  for (const auto& [name, v] : options.values()) out.push_back(setting_of(name, v));
  return out;
}

std::optional<OptionSetting> option_setting(const OptionSet& options, std::string_view name) {
  const OptionSpec* spec = find_option(name);
  if (!spec) return std::nullopt;
  auto it = options.values().find(spec->name);
  if (it == options.values().end()) return std::nullopt;
  return setting_of(it->first, it->second);
}

const std::vector<std::string>& option_warnings(const OptionSet& options) { return options.warnings(); }

std::vector<OptionInfo> option_infos() {
  std::vector<OptionInfo> out;
  for (const auto& spec : option_table()) out.push_back(info_of(spec));
  return out;
}

std::optional<OptionInfo> option_info(std::string_view name) {
  const OptionSpec* spec = find_option(name);
  if (!spec) return std::nullopt;
  return info_of(*spec);
}

Result<std::pair<std::string, std::string>> check_assignment(std::string_view name, ApiType type,
                                                             const std::string& text, const std::string& origin) {
  const CheckedOption c = check_single_option(name, type, text, origin);
  if (c.problem) return invalid_argument(c.problem->to_string());
  return std::make_pair(std::string(c.spec->name), c.value);
}

}  // namespace openge::options
