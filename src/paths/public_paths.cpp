// The artifact-path queries of the public options API (openge/options.h) over the resolvers.
#include "openge/options.h"
#include "paths/artifact_paths.h"

namespace openge::options {
namespace {

std::string text_or_empty(const char* s) { return s ? s : ""; }

}  // namespace

std::vector<ArtifactPath> artifact_paths(const OptionSet& options) {
  std::vector<ArtifactPath> out;
  for (const auto& r : paths::resolve_all_artifacts(options, paths::RunIds::current()))
    out.push_back({paths::artifact_name(r.kind), r.path, r.is_file, r.rule, r.chain,
                   text_or_empty(paths::artifact_writer(r.kind)), text_or_empty(paths::artifact_written_only(r.kind))});
  return out;
}

CompileCacheSize compile_cache_size(const OptionSet& options) {
  const auto cache = paths::resolve_artifact(paths::ArtifactKind::kCompileCache, options, paths::RunIds::current());
  const auto limits = paths::resolve_op_cache_limits(options, cache.path);
  return {limits.max_size_mb,
          limits.remain_ratio_percent,
          limits.rule,
          limits.warnings,
          limits.mode,
          limits.soc_folder,
          paths::artifact_writer(paths::ArtifactKind::kCompileCache) != nullptr};
}

}  // namespace openge::options
