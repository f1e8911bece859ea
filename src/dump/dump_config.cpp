#include "dump/dump_config.h"

#include <sstream>

#include "options/option_set.h"
#include "options/value_parsers.h"
#include "paths/artifact_paths.h"

namespace openge::dump {

bool DumpConfig::step_selected(int64_t iteration) const {
  if (steps.empty()) return true;
  for (const auto& [first, last] : steps)
    if (iteration >= first && iteration <= last) return true;
  return false;
}

Result<std::optional<DumpConfig>> dump_config_from_options(const options::OptionSet& o) {
  DumpConfig c;
  c.data_dump = o.get_bool("dump_config.enable_dump");
  const bool debug = o.get_bool("dump_config.enable_dump_debug");
  if (!c.data_dump && !debug) return std::optional<DumpConfig>();
  // dump_config.dump_path, resolved against the working directory by the artifact resolver.
  c.dump_path = paths::resolve_artifact(paths::ArtifactKind::kDataDump, o, paths::RunIds::current()).path;
  c.device_id = o.device_id();
  if (debug) {
    // dump_step/mode/data/layer are read only with enable_dump (docs/FORMATS.md, "Options: names and value rules").
    const std::string mode = o.get("dump_config.dump_debug_mode");
    c.overflow_bits = mode == "aicore_overflow"   ? kAicoreOverflow
                      : mode == "atomic_overflow" ? kAtomicOverflow
                                                  : kAicoreOverflow | kAtomicOverflow;
    return std::optional<DumpConfig>(std::move(c));
  }
  if (o.has_value("dump_config.dump_step")) {
    auto steps = options::parse_dump_step(o.get("dump_config.dump_step"));
    if (!steps.ok()) return steps.status().with_context("dump_config.dump_step");
    c.steps = std::move(steps.value());
  }
  const std::string mode = o.get("dump_config.dump_mode");
  c.mode = mode == "input" ? DumpMode::kInput : mode == "all" ? DumpMode::kAll : DumpMode::kOutput;
  c.data = o.get("dump_config.dump_data") == "stats" ? DumpData::kStats : DumpData::kTensor;
  std::istringstream names(o.get("dump_config.dump_layer"));
  for (std::string name; names >> name;) c.layers.insert(name);
  return std::optional<DumpConfig>(std::move(c));
}

}  // namespace openge::dump
