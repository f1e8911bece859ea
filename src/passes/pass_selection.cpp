#include "passes/pass_selection.h"

#include <algorithm>
#include <map>
#include <set>

#include "logging/log.h"
#include "options/config_files.h"
#include "openge/did_you_mean.h"
#include "options/option_set.h"
#include "base/path_util.h"

namespace openge::passes {
namespace {

const char* switch_group(const Pass& p) { return p.kind == "ub" ? "UBFusion" : "GraphFusion"; }

// Warns about the rules of one group that name no pass of that kind.
void warn_unknown_rules(const std::vector<Pass>& passes, const std::map<std::string, bool>& rules, bool ub,
                        const std::string& file) {
  std::vector<std::string> same_kind, other_kind;
  for (const Pass& p : passes) ((p.kind == "ub") == ub ? same_kind : other_kind).emplace_back(p.name);
  const char* group = ub ? "UBFusion" : "GraphFusion";
  for (const auto& [rule, on] : rules) {
    if (rule == "ALL" || std::find(same_kind.begin(), same_kind.end(), rule) != same_kind.end()) continue;
    const bool misplaced = std::find(other_kind.begin(), other_kind.end(), rule) != other_kind.end();
    OPENGE_LOG_WARNING(
        "FE", "fusion_switch_file " + file + ": " + group + "." + rule + " names no " + (ub ? "UB" : "graph") +
                  " fusion pass of this engine; it is ignored" +
                  (misplaced ? std::string(" (it is a ") + (ub ? "graph" : "UB") + " fusion pass: list it under " +
                                   (ub ? "GraphFusion" : "UBFusion") + ")"
                             : options::did_you_mean_suffix(options::closest_names(rule, same_kind))));
  }
}

bool is_scope(const Pass& p) {
  return p.control == PassSwitch::kScopeGeneral || p.control == PassSwitch::kScopeNonGeneral;
}

// The names enable_scope_fusion_passes lists (OPT-enable_scope_fusion_passes-1), spaces around
// each trimmed. A name that is no scope pass of this engine is warned about (module GE, like
// CANN's parser) with the closest scope pass names; a General one is on anyway (info).
std::set<std::string> enabled_scope_passes(const std::vector<Pass>& passes, const std::string& list) {
  std::vector<std::string> scope_names;
  for (const Pass& p : passes)
    if (is_scope(p)) scope_names.emplace_back(p.name);
  std::set<std::string> names;
  size_t i = 0;
  while (i <= list.size() && !list.empty()) {
    size_t j = list.find(',', i);
    if (j == std::string::npos) j = list.size();
    std::string name = list.substr(i, j - i);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    i = j + 1;
    if (name.empty()) continue;
    const auto it = std::find_if(passes.begin(), passes.end(), [&](const Pass& p) { return p.name == name; });
    if (it == passes.end() || !is_scope(*it)) {
      OPENGE_LOG_WARNING(
          "GE", "enable_scope_fusion_passes: " + name + " names no scope fusion pass of this engine; it is ignored" +
                    (it != passes.end() ? std::string(" (it is a ") + (it->kind == "ub" ? "UB" : "graph") +
                                              " fusion pass: fusion_switch_file turns it on and off)"
                                        : options::did_you_mean_suffix(options::closest_names(name, scope_names))));
      continue;
    }
    if (it->control == PassSwitch::kScopeGeneral)
      OPENGE_LOG_INFO("GE", "enable_scope_fusion_passes: " + name + " is a General scope fusion pass, always on");
    names.insert(std::move(name));
  }
  return names;
}

// A scope pass's choice: General always on; Non-General on when enable_scope_fusion_passes
// names it. fusion_switch_file does not reach scope passes (CANN runs them in its parser).
PassChoice choose_scope_pass(const Pass& p, const std::set<std::string>& enabled) {
  if (p.control == PassSwitch::kScopeGeneral) return {&p, true, "General scope fusion pass: always on"};
  if (enabled.count(std::string(p.name))) return {&p, true, "enable_scope_fusion_passes names it"};
  return {&p, false, "Non-General scope fusion pass: off unless enable_scope_fusion_passes names it"};
}

}  // namespace

Result<std::vector<PassChoice>> choose_passes(const std::vector<Pass>& passes, const options::OptionSet* options) {
  const std::set<std::string> enabled =
      options ? enabled_scope_passes(passes, options->get("enable_scope_fusion_passes")) : std::set<std::string>{};
  std::vector<PassChoice> choices;
  for (const Pass& p : passes)
    choices.push_back(is_scope(p) ? choose_scope_pass(p, enabled) : PassChoice{&p, true, "default: every rule on"});
  if (!options || !options->has_value("fusion_switch_file")) return choices;
  const std::string file = resolve_against(options->cwd(), options->get("fusion_switch_file"));
  auto text = options::read_text_file(file);
  if (!text.ok()) return text.status().with_context("fusion_switch_file");
  auto switches = options::parse_fusion_switch(*text, file);
  if (!switches.ok()) return switches.status().with_context("fusion_switch_file");
  warn_unknown_rules(passes, switches->graph_fusion, false, file);
  warn_unknown_rules(passes, switches->ub_fusion, true, file);
  for (PassChoice& c : choices) {
    const Pass& p = *c.pass;
    const auto& rules = p.kind == "ub" ? switches->ub_fusion : switches->graph_fusion;
    const std::string group = switch_group(p);
    std::string key(p.name);
    auto it = rules.find(key);
    if (it == rules.end()) it = rules.find(key = "ALL");  // a rule named beats ALL (OPT-fusion_switch_file-8)
    if (it == rules.end()) continue;
    const std::string setting = "fusion_switch_file " + group + "." + key + "=" + (it->second ? "on" : "off");
    if (is_scope(p)) {
      if (key != "ALL")
        OPENGE_LOG_WARNING("FE",
                           file + ": " + setting + " is ignored: " + std::string(p.name) + " is a scope fusion pass; " +
                               (p.control == PassSwitch::kScopeGeneral ? "General ones always run"
                                                                       : "enable_scope_fusion_passes turns it on"));
      continue;
    }
    if (p.control == PassSwitch::kAlwaysOn) {
      if (!it->second && key != "ALL")
        OPENGE_LOG_WARNING(
            "FE", file + ": " + setting + " is ignored: " + std::string(p.name) + " is a layout pass that always runs");
      c.reason = "always on";
      continue;
    }
    c.on = it->second;
    c.reason = setting;
    if (!c.on) OPENGE_LOG_INFO("FE", "fusion pass " + std::string(p.name) + " is off: " + setting + " (" + file + ")");
  }
  return choices;
}

}  // namespace openge::passes
