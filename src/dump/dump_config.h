// The dump_config group of a session's options, read once when the session opens: Data Dump
// (enable_dump, OPT-dump_config.enable_dump..dump_layer) or overflow detection
// (enable_dump_debug, dump_debug_mode). The option layer has already validated every value.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "openge/status.h"

namespace openge::options {
class OptionSet;
}

namespace openge::dump {

enum class DumpMode { kInput, kOutput, kAll };
enum class DumpData { kTensor, kStats };

// GE's op_debug_mode bits, all = 3 (docs/FORMATS.md, "Data Dump: overflow detection").
enum OverflowBits : unsigned { kAicoreOverflow = 1, kAtomicOverflow = 2 };

struct DumpConfig {
  std::string dump_path;       // absolute (resolved against the session's working directory)
  bool data_dump = false;      // enable_dump
  unsigned overflow_bits = 0;  // enable_dump_debug: dump_debug_mode as OverflowBits; 0 when off
  // dump_step as inclusive ranges; empty = every iteration (OPT-dump_config.dump_step-1, AMB-17).
  std::vector<std::pair<int64_t, int64_t>> steps;
  DumpMode mode = DumpMode::kOutput;
  DumpData data = DumpData::kTensor;
  std::set<std::string> layers;  // dump_layer; empty = every operator
  int device_id = 0;

  bool step_selected(int64_t iteration) const;
  bool layer_selected(const std::string& name) const { return layers.empty() || layers.count(name) > 0; }
};

// Nothing when neither enable_dump nor enable_dump_debug is True.
Result<std::optional<DumpConfig>> dump_config_from_options(const options::OptionSet& options);

}  // namespace openge::dump
