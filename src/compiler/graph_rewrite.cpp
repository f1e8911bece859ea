// The graph rewrites of a compile (compiler/pipeline.h): the fusion passes fusion_switch_file
// leaves on (AOE subgraph tuning may switch some off), dead-node removal, the precision pass, and
// UB fusion after it; fusion_result.json and a graph dump after each group.
#include <algorithm>
#include <optional>

#include "aoe/knowledge_base.h"
#include "compiler/compile_config.h"
#include "compiler/executable_builder.h"
#include "graph_dump/graph_dumper.h"
#include "logging/log.h"
#include "passes/channels_last_layout_pass.h"
#include "passes/fusion_result.h"
#include "passes/pass.h"
#include "passes/pass_selection.h"
#include "precision/precision_pass.h"

namespace openge::compiler {

Status ExecutableBuilder::rewrite(graph_dump::GraphDumper& dump) {
  Graph& g = exe_->graph_;
  OPENGE_RETURN_IF_ERROR(infer_and_fold().with_context("model " + g.source));
  OPENGE_RETURN_IF_ERROR(check_declared_outputs().with_context("model " + g.source));
  OPENGE_RETURN_IF_ERROR(dump.dump(g, graph_dump::kAfterInferShape));
  // AOE subgraph tuning's choice of passes: a candidate's own, else the knowledge base's.
  if (options_.aoe_passes_off) {
    passes_off_ = *options_.aoe_passes_off;
    report_.subgraph_key = aoe::subgraph_key(g, exe_->num_threads_);
  } else if (options_.config && options_.run_passes) {
    read_tuned_passes(options_.config->tuning.aoe_data);
  }
  exe_->tapered_work_split_ = std::count(passes_off_.begin(), passes_off_.end(), aoe::kUniformWorkSplitChoice) > 0;
  if (exe_->tapered_work_split_)
    OPENGE_LOG_INFO("FE", std::string(aoe::kUniformWorkSplitChoice) + " off: AOE subgraph tuning (nonhomo_split" +
                              (subgraph_hit_ ? ", knowledge base)" : ")") + ": tapered work splits");
  // The precision setup, resolved when the session opened: the layout pass predicts from it, the
  // precision pass applies it (a copy: the pass takes its warnings).
  std::optional<precision::PrecisionSetup> precision_setup;
  if (options_.config && options_.config->precision) {
    precision_setup.emplace(*options_.config->precision);
    if (options_.isa_costs) precision_setup->costs = *options_.isa_costs;
  }
  const PassContext context = pass_context(precision_setup ? &*precision_setup : nullptr);
  if (options_.run_passes)
    OPENGE_RETURN_IF_ERROR(run_passes(dump, context, /*after_precision=*/false).with_context("model " + g.source));
  remove_dead_nodes();
  OPENGE_RETURN_IF_ERROR(dump.dump(g, graph_dump::kAfterPrune));
  if (precision_setup) {
    OPENGE_RETURN_IF_ERROR(apply_precision(*precision_setup).with_context("model " + g.source));
    OPENGE_RETURN_IF_ERROR(dump.dump(g, graph_dump::kAfterPrecision));
  }
  // UB fusion (TbeEltwiseFusionPass) follows the precision pass, as CANN's follows op selection.
  if (options_.run_passes)
    OPENGE_RETURN_IF_ERROR(run_passes(dump, context, /*after_precision=*/true).with_context("model " + g.source));
  // What shaped the graph (a .oge records it): the options the pass choice and the precision
  // setup read.
  if (options_.config) report_.shaping_options = options_.config->shaping_options;
  return Status::Ok();
}

PassContext ExecutableBuilder::pass_context(const precision::PrecisionSetup* precision_setup) const {
  PassContext context;
  context.nc1hwc0_regions = options_.nc1hwc0_regions;
  if (options_.isa_costs) context.costs = *options_.isa_costs;
  // AOE subgraph tuning's NHWC candidate: the layout pass makes no NC1HWC0 region.
  if (std::count(passes_off_.begin(), passes_off_.end(), passes::kNc1hwc0Choice) > 0) {
    context.nc1hwc0_regions = passes::Nc1hwc0Regions::kNever;
    OPENGE_LOG_INFO("FE", std::string(passes::kNc1hwc0Choice) + " off: AOE subgraph tuning" +
                              (subgraph_hit_ ? " (knowledge base)" : ""));
  }
  // enable_small_channel decides where the layout pass puts a small-channel stem convolution. The
  // scenario is what is compiled (docs/DECISIONS.md, graph_run_mode): a training graph follows the
  // option (training's default: off); an inference compile takes the small-channel path, as
  // online inference does, unless the user turned it off.
  const CompileConfig* config = options_.config.get();
  if (config && (options_.training_graph || config->small_channel_user_set))
    context.small_channel_stem = config->small_channel_on;
  // The layout pass runs before the precision pass and chooses formats by the dtype each
  // convolution will compute in: the precision pass's decision, predicted on the graph it sees.
  // The setup outlives the context (both belong to rewrite()).
  if (precision_setup)
    context.compute_dtypes = [precision_setup](const Graph& graph) {
      auto dtypes = precision::predict_compute_dtypes(graph, *precision_setup);
      return dtypes.ok() ? std::move(dtypes.value()) : std::vector<DType>{};
    };
  return context;
}

Status ExecutableBuilder::run_passes(graph_dump::GraphDumper& dump, const PassContext& context, bool after_precision) {
  const std::vector<Pass>& passes = all_passes();
  const CompileConfig* config = options_.config.get();
  // The choice resolved when the session opened; without a configuration (or a session that
  // resolved none) every pass is on but the scope passes that need enable_scope_fusion_passes.
  auto choices = config && config->pass_choices ? Result<std::vector<passes::PassChoice>>(*config->pass_choices)
                                                : passes::choose_passes(passes, nullptr);
  if (!choices.ok()) return choices.status();
  for (const std::string& off : passes_off_)
    for (size_t i = 0; i < passes.size(); ++i)
      if (passes[i].name == off && (*choices)[i].on && passes[i].after_precision == after_precision) {
        (*choices)[i].on = false;
        OPENGE_LOG_INFO("FE", "pass " + off + " off: AOE subgraph tuning" + (subgraph_hit_ ? " (knowledge base)" : ""));
      }
  for (size_t i = 0; i < passes.size(); ++i) {
    const Pass& pass = passes[i];
    if (pass.after_precision != after_precision) continue;
    if ((*choices)[i].on) {
      auto result = pass.run(exe_->graph_, context);
      if (!result.ok()) return result.status().with_context("pass " + std::string(pass.name));
      report_.pass_stats.push_back({std::string(pass.name), result->matched, result->applied});
      fusion_counts_.push_back({pass.name, pass.kind, result->matched, result->applied});
    }
    // A dump after each group of passes of one kind (graph fusion, then UB fusion); the passes
    // after precision show in the final dump.
    if (!after_precision &&
        (i + 1 == passes.size() || passes[i + 1].kind != pass.kind || passes[i + 1].after_precision))
      OPENGE_RETURN_IF_ERROR(dump.dump(exe_->graph_, graph_dump::after_fusion_group(pass.kind)));
  }
  // A statistics file that cannot be written does not stop the model (CANN goes on too): warned.
  // Written once, after the passes that follow the precision pass.
  if (config && after_precision)
    if (Status st = passes::write_fusion_result(config->fusion_result, dump.graph_id(), fusion_counts_); !st.ok())
      OPENGE_LOG_WARNING("FE", st.message());
  auto order = exe_->graph_.topological_order();
  if (!order.ok()) return order.status().with_context("after fusion");
  std::vector<Node> sorted;
  for (int n : *order) sorted.push_back(std::move(exe_->graph_.nodes[static_cast<size_t>(n)]));
  exe_->graph_.nodes = std::move(sorted);
  return Status::Ok();
}

Status ExecutableBuilder::apply_precision(precision::PrecisionSetup& setup) {
  auto decisions = precision::apply_precision(exe_->graph_, setup);
  if (!decisions.ok()) return decisions.status();
  report_.precision_decisions = std::move(decisions.value());
  report_.precision_warnings = std::move(setup.warnings);
  return Status::Ok();
}

void ExecutableBuilder::remove_dead_nodes() {
  Graph& g = exe_->graph_;
  std::vector<char> needed(g.values.size(), 0);
  for (int v : g.outputs) needed[static_cast<size_t>(v)] = 1;
  std::vector<char> keep(g.nodes.size(), 0);
  for (size_t n = g.nodes.size(); n-- > 0;) {
    const Node& node = g.nodes[n];
    bool live = false;
    for (int out : node.outputs)
      if (out >= 0 && needed[static_cast<size_t>(out)] && !g.values[static_cast<size_t>(out)].constant) live = true;
    if (!live) continue;
    keep[n] = 1;
    for (int in : node.inputs)
      if (in >= 0) needed[static_cast<size_t>(in)] = 1;
  }
  std::vector<Node> kept;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (keep[n]) kept.push_back(std::move(g.nodes[n]));
  g.nodes = std::move(kept);
  for (Value& v : g.values) v.producer = -1;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (int out : g.nodes[n].outputs)
      if (out >= 0) g.values[static_cast<size_t>(out)].producer = static_cast<int>(n);
}

}  // namespace openge::compiler
