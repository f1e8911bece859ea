#include "aoe/tuned_selection.h"

#include <algorithm>

#include "aoe/kernel_timing.h"
#include "aoe/tuning_space.h"
#include "kernels/default_variant.h"
#include "logging/log.h"
#include "ops/layout/activation_format.h"
#include "options/aoe_ini.h"
#include "options/config_files.h"
#include "options/option_set.h"
#include "paths/artifact_paths.h"
#include "base/path_util.h"

namespace openge::aoe {
namespace {

bool static_shapes(const KernelRequest& r) {
  for (const auto* list : {&r.inputs, &r.outputs})
    for (const ValueInfo& v : *list)
      if (v.dtype != DType::kUndefined && !v.shape_known) return false;
  return true;
}

// The thread plan a variant runs with, given the grain table's decision.
bool runs_single(ThreadPlan plan, bool grain_single) {
  return plan == ThreadPlan::kByGrain ? grain_single : plan == ThreadPlan::kSingle;
}

// tune_ops_type matches the op type, or the type a fused or channels-last op contains
// (OPT-aoe_config.aoe_config_file-4: a fused operator containing a listed type is tuned too).
bool type_listed(const std::string& op_type, const std::vector<std::string>& types) {
  for (const std::string& t : types)
    if (op_type == t || unprefixed_op_type(op_type) == t) return true;
  return false;
}

// The default variant with its thread plan spelled out: what records compare a winner with.
KernelVariant resolved_default(const KernelRequest& request, bool grain_single) {
  KernelVariant v = default_variant(request);
  v.threads = grain_single ? ThreadPlan::kSingle : ThreadPlan::kTeam;
  return v;
}

}  // namespace

Result<TuningSettings> resolve_tuning_settings(const options::OptionSet& config) {
  TuningSettings s;
  // aoe.ini's RUN_LOOP (ENV-4, MISC-20): how many times each measurement runs (CANN: the model
  // runs on the device to average out noise); a caller's own count (tests) outranks it.
  auto ini = options::read_aoe_ini(config);
  if (!ini.ok()) return ini.status().with_context("ASCEND_TOOLKIT_HOME");
  if (*ini && (*ini)->run_loop) s.repetitions = *(*ini)->run_loop;
  // Where records and the knowledge base live: aoe_config.work_path > ASCEND_WORK_PATH/aoe_data >
  // working directory (paths/artifact_paths.cpp, AMB-21).
  s.aoe_data = paths::resolve_artifact(paths::ArtifactKind::kAoeData, config, paths::RunIds::current());
  const std::string mode = config.get("aoe_config.aoe_mode");
  if (mode.empty()) return s;
  if (mode == "4") {  // judged per compile (tuning_for_compile)
    s.mode = 4;
    return s;
  }
  s.mode = mode == "1" ? 1 : 2;
  if (config.has_value("aoe_config.aoe_config_file")) {
    const std::string path = resolve_against(config.cwd(), config.get("aoe_config.aoe_config_file"));
    auto text = options::read_text_file(path);
    if (!text.ok()) return text.status().with_context("aoe_config.aoe_config_file");
    auto file = options::parse_aoe_config(*text, path);
    if (!file.ok()) return file.status().with_context("aoe_config.aoe_config_file");
    s.tune_ops_name = file->tune_ops_name;
    s.tune_ops_type = file->tune_ops_type;
    // O1, high-performance tuning: twice the repetitions, for steadier medians.
    s.optimization_o1 = file->tune_optimization_level == "O1";
    for (const auto& f : file->feature) {
      if (f == "deeper_opat") s.deeper_opat = true;
      if (f == "nonhomo_split") s.nonhomo_split = true;
    }
  }
  return s;
}

Result<TuningSettings> tuning_for_compile(const TuningSettings& resolved, int repetitions, bool training_graph) {
  TuningSettings s = resolved;
  if (repetitions > 0) s.repetitions = repetitions;
  if (s.optimization_o1) s.repetitions *= 2;
  if (s.mode != 4) return s;
  if (training_graph) {  // the Trainer tunes the gradient split
    s.mode = 0;
    return s;
  }
  return invalid_argument(
      "aoe_config.aoe_mode=4 (gradient-split tuning) tunes how data-parallel training all-reduces its "
      "gradients; an inference run has none: train under mpirun (mpirun -np N openge train ...), or use "
      "aoe_mode 2 (operator tuning), or leave aoe_config.aoe_mode unset");
}

Result<TuningSettings> read_tuning_settings(const options::OptionSet* config, int repetitions, bool training_graph) {
  if (!config) {
    TuningSettings s;
    if (repetitions > 0) s.repetitions = repetitions;
    return s;
  }
  auto resolved = resolve_tuning_settings(*config);
  if (!resolved.ok()) return resolved.status();
  return tuning_for_compile(*resolved, repetitions, training_graph);
}

TunedSelection::TunedSelection(TuningSettings settings, int threads)
    : settings_(std::move(settings)), threads_(std::max(1, threads)) {
  stats_.tuning = settings_.mode == 2;
  if (settings_.aoe_data.path.empty()) return;
  kb_ = KnowledgeBase::load(settings_.aoe_data.path + "/" + kKnowledgeBaseFile);
  stats_.knowledge_base_path = kb_.path();
  stats_.knowledge_base_problem = kb_.problem();
  if (!kb_.problem().empty())
    OPENGE_LOG_WARNING(
        "GE", "AOE knowledge base " + kb_.path() + " cannot be used (" + kb_.problem() + "): ignored" +
                  (stats_.tuning ? "; this tuning run rebuilds it" : "; the next tuning run (aoe_mode 2) rebuilds it"));
  // A corrupt base is rewritten by a tuning run even when nothing new is measured.
  kb_changed_ = stats_.tuning && !kb_.problem().empty();
}

void TunedSelection::begin(int tunable_nodes) {
  if (stats_.tuning) progress_.emplace("AOE operator tuning", tunable_nodes, "tuned", "knowledge base");
}

bool TunedSelection::selected(const Node& node) const {
  if (settings_.tune_ops_name.empty() && settings_.tune_ops_type.empty()) return true;
  // Whole-word matches (OPT-aoe_config.aoe_config_file-3/4): the node's name, the names of the
  // model's nodes fused into it, its type.
  for (const std::string& n : settings_.tune_ops_name) {
    if (node.name == n) return true;
    if (std::find(node.fused_from.begin(), node.fused_from.end(), n) != node.fused_from.end()) return true;
  }
  return type_listed(node.op_type, settings_.tune_ops_type);
}

Result<TunedSelection::Choice> TunedSelection::select(size_t index, KernelRequest& request, bool grain_single,
                                                      const Build& build) {
  auto build_default = [&]() -> Result<Choice> {
    request.variant = default_variant(request);
    auto k = build(request, grain_single);
    if (k.ok() && !*k && !(request.variant == KernelVariant{})) {
      // oneDNN has no such kernel for these shapes here after all: the plain default.
      request.variant = KernelVariant{};
      k = build(request, grain_single);
    }
    if (!k.ok()) return k.status();
    return Choice{std::move(k.value()), grain_single};
  };
  if (!is_tunable(request.node.op_type)) return build_default();
  // One step of the progress bar per node of a tunable type, whatever happens to it.
  struct Step {
    ProgressBar* bar;
    bool hit = false;
    ~Step() {
      if (bar) bar->step(hit);
    }
  } step{progress_ ? &*progress_ : nullptr};
  if (kb_.path().empty() || !static_shapes(request)) return build_default();
  ++stats_.tunable_operators;
  const std::string key = knowledge_key(request, threads_);
  if (const KnowledgeEntry* hit = kb_.find(key)) {
    request.variant = hit->variant;
    const bool single = runs_single(hit->variant.threads, grain_single);
    auto k = build(request, single);
    if (k.ok() && *k) {
      ++stats_.knowledge_base_hits;
      step.hit = true;
      stats_.operators.push_back({request.node.name, request.node.op_type, resolved_default(request, grain_single),
                                  hit->variant, hit->default_us, hit->tuned_us, true});
      if (stats_.tuning) {
        if (!(hit->variant == resolved_default(request, grain_single))) {
          auto d = build_default();
          if (!d.ok()) return d.status();
          if (d->kernel) defaults_.emplace(index, std::move(d.value()));
        }
      }
      return Choice{std::move(k.value()), single};
    }
    // The stored variant cannot be built here any more (its factory changed): measure again.
    OPENGE_LOG_INFO("GE", "AOE knowledge base entry for " + request.node.op_type + " '" + request.node.name +
                              "' names a variant this engine cannot build; ignored");
  }
  if (!stats_.tuning || !selected(request.node)) return build_default();
  return measure(index, request, grain_single, build, key);
}

Result<TunedSelection::Choice> TunedSelection::measure(size_t index, KernelRequest& request, bool grain_single,
                                                       const Build& build, const std::string& key) {
  NodeBench bench(request);
  struct Measured {
    KernelVariant variant;
    bool single;
    double us;
    std::unique_ptr<CompiledKernel> kernel;
  };
  std::vector<Measured> done;
  for (const KernelVariant& v : candidate_variants(request, threads_, settings_.deeper_opat)) {
    const bool single = runs_single(v.threads, grain_single);
    // kTeam / kSingle equal to the grain's own decision are the default again.
    const bool duplicate = std::any_of(done.begin(), done.end(), [&](const Measured& m) {
      KernelVariant a = m.variant, b = v;
      a.threads = b.threads = ThreadPlan::kByGrain;
      return m.single == single && a == b;
    });
    if (duplicate) continue;
    request.variant = v;
    auto k = build(request, single);
    if (!k.ok()) {
      if (done.empty()) return k.status();  // the default variant itself failed: a real error
      continue;
    }
    if (!*k) {
      // No AI Core kernel for this node at all (the plain variant built nothing).
      if (done.empty() && v == KernelVariant{}) return Choice{nullptr, grain_single};
      continue;  // e.g. no Winograd for these shapes on this CPU
    }
    auto us = bench.median_us(**k, single, settings_.repetitions);
    if (!us.ok()) {
      if (done.empty())
        return us.status().with_context("AOE measuring " + request.node.op_type + " '" + request.node.name + "'");
      continue;
    }
    done.push_back({v, single, *us, std::move(k.value())});
  }
  ++stats_.measured_operators;
  if (settings_.deeper_opat)
    OPENGE_LOG_INFO("GE", "AOE deeper_opat: " + request.node.op_type + " '" + request.node.name + "' measured " +
                              std::to_string(done.size()) + " candidates (" +
                              std::to_string(candidate_variants(request, threads_, true).size()) + " listed, " +
                              std::to_string(candidate_variants(request, threads_, false).size()) +
                              " in the ordinary search)");
  size_t best = 0;
  for (size_t i = 1; i < done.size(); ++i)
    if (done[i].us < done[best].us) best = i;
  Measured& d = done.front();
  Measured& w = done[best];
  // Store the thread plan explicitly when it was the grain's own: the winner must not move when
  // the grain table changes.
  KernelVariant stored = w.variant;
  if (stored.threads == ThreadPlan::kByGrain) stored.threads = w.single ? ThreadPlan::kSingle : ThreadPlan::kTeam;
  kb_.put(key, {request.node.op_type, stored, {}, d.us, w.us, {}});
  kb_changed_ = true;
  stats_.operators.push_back(
      {request.node.name, request.node.op_type, resolved_default(request, grain_single), stored, d.us, w.us, false});
  OPENGE_LOG_INFO("GE", "AOE " + request.node.op_type + " '" + request.node.name + "': " + to_string(stored) + " " +
                            std::to_string(w.us) + " us (default " + std::to_string(d.us) + " us, " +
                            std::to_string(done.size()) + " variants measured)");
  request.variant = w.variant;
  Choice out{std::move(w.kernel), w.single};
  if (best != 0) defaults_.emplace(index, Choice{std::move(d.kernel), d.single});
  return out;
}

Status TunedSelection::finish() {
  if (!stats_.tuning || !kb_changed_) return Status::Ok();
  OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(settings_.aoe_data));
  return kb_.save();
}

}  // namespace openge::aoe
