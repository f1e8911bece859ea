// Parsers of the structured option values: each returns the parsed value or a Status whose
// message is the reason (without the parameter name, which the caller adds).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "openge/status.h"

namespace openge::options {

// True/False/true/false/1/0 (TF scripts, JSON and PROFILING_MODE=true all appear in the spec).
std::optional<bool> parse_bool(std::string_view text);
// A whole decimal integer with optional sign; nullopt on anything else or on overflow.
std::optional<int64_t> parse_int(std::string_view text);

// dump_step: "0|5|10-20" -> {{0,0},{5,5},{10,20}}. At most 100 sets, a < b in a range
// (GE's DumpProperties rules, docs/FORMATS.md, "Options: names and value rules"); ranges are inclusive (AMB-17).
Result<std::vector<std::pair<int64_t, int64_t>>> parse_dump_step(std::string_view text);

// stream_max_parallel_num: "DNN_VM_AICPU:10,AIcoreEngine:1" -> engine -> N, N in [1,13].
Result<std::map<std::string, int>> parse_stream_parallel(std::string_view text);

// storage_limit: "<N>MB" (a bare number is taken as MB) with N in [200, 4294967295] (AMB-32).
Result<uint64_t> parse_storage_limit_mb(std::string_view text);

// aic_metrics: one of the named sets, or "Custom:r1,r2,..." with 1..8 registers in
// [0x1, 0x6E], hexadecimal or decimal.
struct AicMetrics {
  std::string name;            // "PipeUtilization", ..., or "Custom"
  std::vector<int> registers;  // Custom only
};
Result<AicMetrics> parse_aic_metrics(std::string_view text);

// Path characters allowed by fusion_switch_file / op_compiler_cache_dir: a-zA-Z0-9 _ - . and
// Chinese characters in each component; '/' separates components (DISC-17). "" when fine,
// else the reason.
std::string check_path_charset(std::string_view path);

}  // namespace openge::options
