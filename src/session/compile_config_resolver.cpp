#include "session/compile_config_resolver.h"

#include <string>
#include <vector>

#include "compiler/grain_calibration.h"
#include "options/option_set.h"
#include "passes/pass.h"

namespace openge {
namespace {

// Every failure of the components, reported as one Status: one alone keeps its code and text.
class Problems {
 public:
  template <class T>
  bool take(Result<T> result, T& into) {
    if (!result.ok()) {
      failures_.push_back(result.status());
      return false;
    }
    into = std::move(result.value());
    return true;
  }
  Status status() const {
    if (failures_.empty()) return Status::Ok();
    if (failures_.size() == 1) return failures_.front();
    std::string text = std::to_string(failures_.size()) + " configuration problems:";
    for (const Status& s : failures_) text += "\n  " + s.message();
    return Status(failures_.front().code(), text);
  }

 private:
  std::vector<Status> failures_;
};

}  // namespace

Result<std::shared_ptr<const compiler::CompileConfig>> resolve_compile_config(const options::OptionSet& options,
                                                                              CompileConfigScope scope) {
  auto c = std::make_shared<compiler::CompileConfig>();
  Problems problems;
  if (scope.rewrites) {
    // The pass choice and the precision setup read copies of the options, whose read records
    // start empty: what they read shaped the graph (a .oge records those options' values).
    options::OptionSet shaping(options);
    precision::PrecisionSetup precision;
    if (problems.take(precision::load_precision_setup(shaping), precision)) c->precision = std::move(precision);
    if (scope.run_passes) {
      std::vector<passes::PassChoice> choices;
      if (problems.take(passes::choose_passes(all_passes(), &shaping), choices)) c->pass_choices = std::move(choices);
    }
    c->shaping_options = shaping.options_read();
    for (const std::string& name : c->shaping_options) options.find(name);  // the session's record stays whole
    c->small_channel_user_set = options.user_set("enable_small_channel");
    c->small_channel_on = options.get_int("enable_small_channel", 0) == 1;
    c->fusion_result = paths::resolve_artifact(paths::ArtifactKind::kFusionResult, options, paths::RunIds::current());
  }
  c->graph_dump = graph_dump::graph_dump_settings(options);
  problems.take(aoe::resolve_tuning_settings(options), c->tuning);
  problems.take(compiler::resolve_jit_config(options), c->jit);
  c->grain_cache_root = compiler::grain_cache_root(options);
  c->threading_grain_cycles = options.get_int("threading_grain_cycles", 0);
  c->stream_sync_timeout_ms = options.get_int("stream_sync_timeout", -1);
  c->atomic_clean_policy = static_cast<int>(options.get_int("memory_config.atomic_clean_policy", 0));
  c->stream_max_parallel_num = options.get("stream_max_parallel_num");
  c->deterministic = options.get_int("deterministic", 0) == 1;
  OPENGE_RETURN_IF_ERROR(problems.status());
  return std::shared_ptr<const compiler::CompileConfig>(std::move(c));
}

}  // namespace openge
