// The end of a compile under AOE (aoe/tuned_selection.h): hits are logged; after a tuning run
// the knowledge base is saved, the whole model is timed with the tuned kernels and with the
// defaults they replaced (same graph, same memory plan, kernels swapped), and the record goes to
// the aoe_data folder (aoe/tuning_record.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <utility>

#include "aoe/kernel_timing.h"
#include "aoe/knowledge_base.h"
#include "aoe/tuned_selection.h"
#include "base/progress_bar.h"
#include "aoe/tuning_record.h"
#include "logging/log.h"
#include "passes/channels_last_layout_pass.h"
#include "passes/pass_registry.h"
#include "compiler/compile_config.h"
#include "compiler/executable_builder.h"
#include "compiler/pipeline.h"
#include "paths/artifact_paths.h"
#include "openge/random_inputs.h"

namespace openge::compiler {
namespace {

// Random inputs of the compiled shapes; nullopt for a model with sequence or optional inputs.
std::optional<std::vector<Tensor>> model_inputs(const Graph& g) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.values[static_cast<size_t>(g.inputs[i])];
    if (v.kind != ValueKind::kTensor || !v.shape) return std::nullopt;
    inputs.push_back(random_tensor(v.dtype, *v.shape, static_cast<uint32_t>(i)));
  }
  return inputs;
}

// Median milliseconds of a whole run of `exe` on `inputs`.
Result<double> median_model_ms(const Executable& exe, const std::vector<Tensor>& inputs, int repetitions) {
  std::vector<double> samples;
  const int warmup = std::max(1, repetitions / 5);
  for (int r = 0; r < warmup + repetitions; ++r) {
    const double start = now_seconds();
    auto out = exe.run(inputs);
    const double end = now_seconds();
    if (!out.ok()) return out.status();
    if (r >= warmup) samples.push_back((end - start) * 1e3);
  }
  return aoe::median(samples);
}

}  // namespace

Status ExecutableBuilder::finish_tuning(aoe::TunedSelection& tuning, double started_seconds) {
  aoe::TuningStats& stats = tuning.stats();
  stats.passes_off = passes_off_;
  stats.subgraph_hit = subgraph_hit_;
  if (stats.tunable_operators > 0 && !stats.knowledge_base_path.empty())
    OPENGE_LOG_INFO("GE", "AOE knowledge base " + stats.knowledge_base_path + ": " +
                              std::to_string(stats.knowledge_base_hits) + " of " +
                              std::to_string(stats.tunable_operators) + " tunable operators hit");
  if (!stats.tuning) {
    // A knowledge base left by an earlier tuning changes a compile that asked for no tuning:
    // said once per compile on stderr, never silently.
    if (stats.knowledge_base_hits > 0 || stats.subgraph_hit)
      std::fprintf(stderr,
                   "openge: the AOE knowledge base %s changed this compile (%d of %d tunable operators took tuned "
                   "kernels%s); move it away or set aoe_config.work_path elsewhere to compile without it\n",
                   stats.knowledge_base_path.c_str(), stats.knowledge_base_hits, stats.tunable_operators,
                   stats.subgraph_hit ? ", and its pass choice for this graph applied" : "");
    report_.tuning_stats = stats;
    return Status::Ok();
  }
  OPENGE_RETURN_IF_ERROR(tuning.finish());
  // The model before and after: random inputs of the compiled shapes; models with sequence or
  // optional inputs are not timed (-1 in the record).
  if (auto inputs = model_inputs(exe_->graph_)) {
    const int reps = tuning.settings().repetitions;
    // The run states pooled so far hold the other kernels' states (argument lists bound to
    // their primitives and weights) and the plan their scratch: both made again at each swap.
    auto swap_defaults = [&] {
      for (auto& [index, choice] : tuning.defaults()) {
        std::swap(exe_->nodes_[index].kernel, choice.kernel);
        std::swap(exe_->nodes_[index].single_thread, choice.single_thread);
      }
      plan_memory_layout();
      exe_->drop_run_states();
    };
    // Tuned, untuned, tuned, untuned; each the better of its two medians. Right after tuning the
    // first runs can be several times slower than later ones (gpt_decoder at 2 threads: a median
    // of 11.4 ms, then 3.0 ms for every later block; bench/RESULTS.md): whichever came first would
    // take that start for the tuning's effect.
    double after = 0, before = 0;
    for (int block = 0; block < 2; ++block) {
      auto tuned = median_model_ms(*exe_, *inputs, reps);
      swap_defaults();
      auto untuned = median_model_ms(*exe_, *inputs, reps);
      swap_defaults();
      if (!tuned.ok()) return tuned.status().with_context("AOE timing the tuned model");
      if (!untuned.ok()) return untuned.status().with_context("AOE timing the untuned model");
      after = block == 0 ? *tuned : std::min(after, *tuned);
      before = block == 0 ? *untuned : std::min(before, *untuned);
    }
    stats.model_before_ms = before;
    stats.model_after_ms = after;
  }
  tuning.defaults().clear();  // their packed weights are not needed any more
  stats.tuning_seconds = now_seconds() - started_seconds;
  const std::string model = std::filesystem::path(exe_->graph_.source).stem().string();
  auto record = aoe::write_tuning_record(stats, model.empty() ? "model" : model, tuning.settings().aoe_data);
  if (!record.ok()) return record.status();
  stats.record_path = *record;
  OPENGE_LOG_INFO("GE", "AOE operator tuning: " + std::to_string(stats.measured_operators) + " operators measured, " +
                            std::to_string(stats.knowledge_base_hits) + " knowledge-base hits, record " + *record);
  report_.tuning_stats = stats;
  return Status::Ok();
}

void ExecutableBuilder::read_tuned_passes(const paths::ResolvedPath& where) {
  report_.subgraph_key = aoe::subgraph_key(exe_->graph_, exe_->num_threads_);
  if (where.path.empty()) return;
  // A corrupt base is reported by the operator lookups of the same compile (aoe/tuned_selection.cpp).
  const aoe::KnowledgeBase kb = aoe::KnowledgeBase::load(where.path + "/" + aoe::kKnowledgeBaseFile);
  const aoe::KnowledgeEntry* hit = kb.find(report_.subgraph_key);
  if (!hit) return;
  passes_off_ = hit->passes_off;
  subgraph_hit_ = true;
  OPENGE_LOG_INFO("GE", "AOE knowledge base " + kb.path() + ": this graph's subgraph tuning entry hit (" +
                            std::to_string(passes_off_.size()) + " passes off)");
}

Result<std::unique_ptr<Executable>> tune_subgraphs(Graph graph, const std::vector<Shape>& input_shapes,
                                                   const CompileOptions& options, CompileReport* report) {
  const double start = now_seconds();
  auto settings = aoe::tuning_for_compile(options.config ? options.config->tuning : aoe::TuningSettings{},
                                          options.aoe_repetitions, options.training_graph);
  if (!settings.ok()) return settings.status().with_context("model " + graph.source);
  const std::string model = std::filesystem::path(graph.source).stem().string();
  const Graph pristine = graph;  // constants are shared, not copied
  CompileOptions candidate = options;
  auto compile_without = [&](std::vector<std::string> off, Graph g) {
    candidate.aoe_passes_off = std::move(off);
    return compile_with_report(std::move(g), input_shapes, candidate);
  };
  auto base = compile_without({}, std::move(graph));
  if (!base.ok()) return base.status();
  const std::string key = base->report.subgraph_key;
  aoe::KnowledgeBase kb = aoe::KnowledgeBase::load(settings->aoe_data.path + "/" + aoe::kKnowledgeBaseFile);
  aoe::TuningStats stats;
  stats.subgraph_tuning = true;
  stats.knowledge_base_path = kb.path();
  stats.knowledge_base_problem = kb.problem();
  std::optional<Compilation> chosen;
  if (const aoe::KnowledgeEntry* hit = kb.find(key)) {
    // Tuned before: the stored choice, nothing measured.
    stats.subgraph_hit = true;
    stats.passes_off = hit->passes_off;
    stats.model_before_ms = hit->default_us / 1e3;
    stats.model_after_ms = hit->tuned_us / 1e3;
    if (hit->passes_off.empty()) {
      chosen = std::move(base.value());
    } else {
      auto again = compile_without(hit->passes_off, pristine);
      if (!again.ok()) return again.status();
      chosen = std::move(again.value());
    }
  } else {
    auto inputs = model_inputs(pristine);
    if (!inputs)
      return unsupported("model " + pristine.source +
                         ": aoe_config.aoe_mode=1 times whole runs, and this model has "
                         "sequence or optional inputs");
    // The graph-level choices: each fusion pass that rewrote this graph, the channels-last
    // layout pass, and its NC1HWC0 regions (NHWC instead), one at a time switched off. Scope
    // passes stay: they are the model parser's.
    std::vector<std::vector<std::string>> candidates{{}};
    for (const PassStat& ps : base->report.pass_stats)
      for (const Pass& pass : all_passes())
        if (pass.name == ps.name && ps.applied > 0 &&
            (pass.control == PassSwitch::kFusionSwitch || pass.control == PassSwitch::kAlwaysOn))
          candidates.push_back({ps.name});
    // The layout pass's NC1HWC0 regions against NHWC in their place.
    const Graph& g = base->executable->graph();
    for (size_t v = 0; v < g.values.size(); ++v)
      if (base->executable->stored_format(static_cast<int>(v)) == ActivationFormat::kNc1hwc0) {
        candidates.push_back({passes::kNc1hwc0Choice});
        break;
      }
    const int reps = settings->repetitions;
    ProgressBar progress("AOE subgraph tuning", static_cast<int>(candidates.size()) + (settings->nonhomo_split ? 1 : 0),
                         "measured", "skipped");
    auto base_ms = median_model_ms(*base->executable, *inputs, reps);
    if (!base_ms.ok()) return base_ms.status().with_context("AOE timing the model");
    progress.step(false);
    stats.subgraph_candidates.push_back({{}, *base_ms});
    chosen = std::move(base.value());
    double best_ms = *base_ms;
    for (size_t c = 1; c < candidates.size(); ++c) {
      auto exe = compile_without(candidates[c], pristine);
      if (!exe.ok()) return exe.status().with_context("AOE subgraph candidate without " + candidates[c][0]);
      auto ms = median_model_ms(*exe->executable, *inputs, reps);
      if (!ms.ok()) return ms.status().with_context("AOE timing the model without " + candidates[c][0]);
      progress.step(false);
      stats.subgraph_candidates.push_back({candidates[c], *ms});
      OPENGE_LOG_INFO("GE", "AOE subgraph candidate without " + candidates[c][0] + ": " + std::to_string(*ms) +
                                " ms (all passes: " + std::to_string(*base_ms) + " ms)");
      if (*ms < best_ms) {
        best_ms = *ms;
        stats.passes_off = candidates[c];
        chosen = std::move(exe.value());
      }
    }
    // nonhomo_split: the winner once more with tapered work splits in its parallel loops.
    if (settings->nonhomo_split) {
      std::vector<std::string> off = stats.passes_off;
      off.push_back(aoe::kUniformWorkSplitChoice);
      auto exe = compile_without(off, pristine);
      if (!exe.ok()) return exe.status().with_context("AOE subgraph candidate with tapered work splits");
      auto ms = median_model_ms(*exe->executable, *inputs, reps);
      if (!ms.ok()) return ms.status().with_context("AOE timing the model with tapered work splits");
      progress.step(false);
      stats.subgraph_candidates.push_back({off, *ms});
      OPENGE_LOG_INFO("GE", "AOE subgraph candidate with tapered work splits (nonhomo_split): " + std::to_string(*ms) +
                                " ms (uniform: " + std::to_string(best_ms) + " ms)");
      if (*ms < best_ms) {
        best_ms = *ms;
        stats.passes_off = off;
        chosen = std::move(exe.value());
      }
    }
    stats.model_before_ms = *base_ms;
    stats.model_after_ms = best_ms;
    kb.put(key, {aoe::kSubgraphEntry, {}, stats.passes_off, *base_ms * 1e3, best_ms * 1e3, {}});
    OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(settings->aoe_data));
    OPENGE_RETURN_IF_ERROR(kb.save());
  }
  stats.tuning_seconds = now_seconds() - start;
  auto record = aoe::write_subgraph_record(stats, model.empty() ? "model" : model, settings->aoe_data);
  if (!record.ok()) return record.status();
  stats.record_path = *record;
  // The chosen compile's own operator statistics (knowledge-base hits) stay.
  const aoe::TuningStats& own = chosen->report.tuning_stats;
  stats.tunable_operators = own.tunable_operators;
  stats.knowledge_base_hits = own.knowledge_base_hits;
  stats.operators = own.operators;
  chosen->report.tuning_stats = stats;
  if (report) *report = std::move(chosen->report);
  OPENGE_LOG_INFO("GE", "AOE subgraph tuning: " + std::to_string(stats.subgraph_candidates.size()) +
                            " candidates measured" + (stats.subgraph_hit ? " (knowledge-base hit)" : "") + ", record " +
                            *record);
  return std::move(chosen->executable);
}

}  // namespace openge::compiler
