#include "passes/pass_selection.h"

#include <algorithm>
#include <map>

#include "logging/log.h"
#include "options/config_files.h"
#include "options/did_you_mean.h"
#include "options/option_set.h"
#include "paths/path_util.h"

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
    OPENGE_LOG_WARNING("FE", "fusion_switch_file " + file + ": " + group + "." + rule + " names no " +
                                 (ub ? "UB" : "graph") + " fusion pass of this engine; it is ignored" +
                                 (misplaced ? std::string(" (it is a ") + (ub ? "graph" : "UB") + " fusion pass: list it under " +
                                                  (ub ? "GraphFusion" : "UBFusion") + ")"
                                            : options::did_you_mean_suffix(options::closest_names(rule, same_kind))));
  }
}

}  // namespace

Result<std::vector<PassChoice>> choose_passes(const std::vector<Pass>& passes, const options::OptionSet* options) {
  std::vector<PassChoice> choices;
  for (const Pass& p : passes) choices.push_back({&p, true, "default: every rule on (OPT-fusion_switch_file-3)"});
  if (!options || !options->has_value("fusion_switch_file")) return choices;
  const std::string file = paths::resolve_against(options->cwd(), options->get("fusion_switch_file"));
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
    if (p.control == PassSwitch::kAlwaysOn) {
      if (!it->second && key != "ALL")
        OPENGE_LOG_WARNING("FE", file + ": " + setting + " is ignored: " + std::string(p.name) +
                                     " is a layout pass that always runs (AMB-15)");
      c.reason = "always on (AMB-15)";
      continue;
    }
    c.on = it->second;
    c.reason = setting;
    if (!c.on) OPENGE_LOG_INFO("FE", "fusion pass " + std::string(p.name) + " is off: " + setting + " (" + file + ")");
  }
  return choices;
}

}  // namespace openge::passes
