// Parsers of the files that options point to. Each takes the text and the file name and returns
// the parsed content or a Status whose message lists every problem, one per line, as
// "file:line:column: reason". read_text_file() refuses folders, unreadable and oversized files.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "openge/status.h"

namespace openge::options {

// The largest compile-cache size in MB whose byte count an int64 holds (2^43 - 1 MB, 8 EiB): larger
// values are refused instead of wrapping negative (which made every store empty the cache).
inline constexpr int64_t kMaxOpCacheSizeMb = (int64_t{1} << 43) - 1;

// Whole file as text; at most 16 MiB. Errors name the file and say what is wrong.
Result<std::string> read_text_file(const std::string& path);

// 1-based line and column of the byte at 1-based position `byte` (nlohmann's parse_error::byte).
std::pair<int, int> line_column(std::string_view text, size_t byte);
// nlohmann's what() without its "[json.exception...] parse error at line L, column C: " prefix.
std::string json_error_reason(const std::string& what);

// modify_mixlist (OPT-modify_mixlist-3..8): JSON, // and /* */ comments tolerated (DISC-15);
// lists may be JSON arrays or comma-separated strings.
struct MixListEdits {
  std::vector<std::string> black_add, black_remove, white_add, white_remove;
};
Result<MixListEdits> parse_modify_mixlist(std::string_view text, const std::string& file);

// customize_dtypes (OPT-customize_dtypes-4..10): "Opname::InputDtype:a,b,OutputDtype:c" or
// "OpType::Type:InputDtype:...", with or without the ',' before OutputDtype (DISC-14).
struct CustomDtypeRule {
  bool by_type = false;  // OpType:: line
  std::string name;      // node name or op type
  std::vector<std::string> input_dtypes, output_dtypes;
  int line = 0;
};
Result<std::vector<CustomDtypeRule>> parse_customize_dtypes(std::string_view text, const std::string& file);

// fusion_switch_file (OPT-fusion_switch_file-4..8).
struct FusionSwitches {
  std::map<std::string, bool> graph_fusion, ub_fusion;  // rule -> on; "ALL" kept as a rule name
};
Result<FusionSwitches> parse_fusion_switch(std::string_view text, const std::string& file);

// op_precision_mode ini (OPT-op_precision_mode-2..6).
struct OpPrecisionModes {
  std::map<std::string, std::string> by_op_type, by_node_name;
};
Result<OpPrecisionModes> parse_op_precision_ini(std::string_view text, const std::string& file);

// op_debug_config cfg (OPT-op_debug_config-2..12): "op_debug_config = ccec_O0,ccec_g,oom".
struct OpDebugConfig {
  std::set<std::string> flags;  // oom, dump_bin, dump_cce, dump_loc, ccec_O0, ccec_g, check_flag
  bool has(const std::string& f) const { return flags.count(f) != 0; }
};
Result<OpDebugConfig> parse_op_debug_config(std::string_view text, const std::string& file);

// aoe_config_file (OPT-aoe_config.aoe_config_file-2..7): JSON; a missing ',' at the end of a line
// (as in the spec's own sample, DISC-16) is repaired and reported in `repairs`.
struct AoeTuningConfig {
  std::vector<std::string> tune_ops_name, tune_ops_type, feature;
  std::string tune_optimization_level = "O2";
  std::vector<std::string> repairs;  // "file:line:column: missing ',' inserted"
};
Result<AoeTuningConfig> parse_aoe_config(std::string_view text, const std::string& file);

// op_cache.ini (OPT-op_compiler_cache_mode-10..12): [op_compiler_cache] with
// ascend_max_op_cache_size / ascend_remain_cache_size_ratio (or the names without "ascend_").
// The file takes effect only when both values are valid; otherwise `problems` says why.
struct OpCacheIni {
  std::optional<int64_t> max_op_cache_size_mb;  // 1 .. kMaxOpCacheSizeMb
  std::optional<int> remain_cache_size_ratio;
  std::vector<std::string> problems;  // "file:line:column: reason"
  bool effective() const { return max_op_cache_size_mb && remain_cache_size_ratio && problems.empty(); }
};
OpCacheIni parse_op_cache_ini(std::string_view text, const std::string& file);

}  // namespace openge::options
