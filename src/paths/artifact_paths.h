// Where each artifact goes: one resolver per artifact kind of spec sections A and B, each
// applying its priority chain (explicit parameter > environment variable > default) to a
// validated OptionSet, and each saying which rule decided. Relative paths resolve against the
// working directory at session start (AMB-9). Decisions on the DISC-/AMB- items are in
// docs/DECISIONS.md.
#pragma once
#include <string>
#include <vector>

#include "openge/status.h"
#include "options/option_set.h"

namespace openge::paths {

enum class ArtifactKind {
  kLog,              // ENV-5/6
  kAtrace,           // ENV-7/8
  kProfiling,        // ENV-9..13, PROF-4
  kKernelMeta,       // ENV-17..23, OPT-debug_dir-2
  kGraphDump,        // ENV-24/25, DISC-5
  kExceptionDump,    // ENV-26/27, NPU-10, DISC-2/3
  kExternalWeights,  // ENV-28..30, OPT-external_weight-4/7, DISC-1
  kFusionResult,     // ENV-31/32
  kCheckResult,      // ENV-33..35
  kAoeData,          // ENV-2..4, OPT-aoe_config.work_path, DISC-7
  kCompileCache,     // OPT-op_compiler_cache_dir-3..5, DISC-6
  kCollectCompile,   // NPU-15: online-compiled operator .o/.json
  kDataDump,         // OPT-dump_config.dump_path-1..3: Data Dump and overflow detection
};

// Identifiers the paths contain (AMB-23).
struct RunIds {
  long pid = 0;
  std::string session_id = "0";
  std::string host_id;       // host identifier of kernel_cache_<host>
  std::string check_report;  // ATC's check_report parameter, when a caller has one
  static RunIds current();   // this process's pid and host name
};

struct ResolvedPath {
  ArtifactKind kind;
  std::string path;               // absolute; "" when no rule applies (profiling without output, ENV-13)
  bool is_file = false;           // fusion_result.json, check_result.json
  std::string rule;               // which tier decided, e.g. "ASCEND_WORK_PATH (ENV-6)"
  std::string chain;              // the whole chain, highest first
  std::string directory() const;  // the folder to create (the path, or its parent for a file)
};

const char* artifact_name(ArtifactKind kind);  // "log", "atrace", ...

// The file under src/ that writes this artifact today, or nullptr when nothing writes it yet (its
// path is resolved, shown by `openge paths` and checked, but no engine code creates it).
// tests/options/option_effects_test.cpp runs a session with every trigger on and holds each
// kind to this: written when a writer is named, absent otherwise.
const char* artifact_writer(ArtifactKind kind);
// When a written artifact appears only in some runs ("when an error is logged"), else nullptr:
// a healthy run with the artifact's triggers on writes it.
const char* artifact_written_only(ArtifactKind kind);
const std::vector<ArtifactKind>& all_artifact_kinds();

ResolvedPath resolve_artifact(ArtifactKind kind, const options::OptionSet& options, const RunIds& ids);
std::vector<ResolvedPath> resolve_all_artifacts(const options::OptionSet& options, const RunIds& ids);

// Creates the artifact's folder on demand with its parents and checks the permissions the spec
// asks for (read/write; read/write/execute under NPU_COLLECT_PATH, NPU-3/4).
// A folder that cannot be created or written is one error naming the artifact, its folder and the
// rule that chose it.
Status prepare_artifact_directory(const ResolvedPath& resolved);
Status prepare_artifact_directory(const ResolvedPath& resolved, const options::OptionSet& options);

// The subfolder an artifact kind makes under ASCEND_WORK_PATH: the tier chose the work path, so the
// folder is the artifact's own and is created when missing. A user folder of a higher tier
// (profiling_options "output", dump_path) must exist already (MISC-6).
bool chosen_by_work_path(const ResolvedPath& resolved);

// Compile-cache size limits: op_cache.ini in the cache folder (both values valid) >
// ASCEND_MAX_OP_CACHE_SIZE / ASCEND_REMAIN_CACHE_SIZE_RATIO > 500 MB / 50 %
// (OPT-op_compiler_cache_mode-10..15).
struct OpCacheLimits {
  int64_t max_size_mb = 500;
  int remain_ratio_percent = 50;
  std::string rule;
  std::vector<std::string> warnings;  // why an op_cache.ini present was not used
  std::string mode;                   // op_compiler_cache_mode, "enable" when unset
  std::string soc_folder;             // cache_dir/<soc_version>: the cache keeps one folder per SoC
};
OpCacheLimits resolve_op_cache_limits(const options::OptionSet& options, const std::string& cache_dir);

}  // namespace openge::paths
