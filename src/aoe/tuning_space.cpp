#include "aoe/tuning_space.h"

#include <string_view>

#include "kernels/default_variant.h"
#include "ops/layout/activation_format.h"

namespace openge::aoe {
namespace {

struct TunableRow {
  std::string_view op_type;
  bool conv_algorithms = false;  // direct / Winograd, graph / blocked activations (onednn_conv.cpp)
  bool weight_layouts = false;   // packed / plain constant weights (onednn_matmul.cpp)
};

// The ops with several real implementations in this engine: the oneDNN convolutions and matmuls,
// and pooling (whose only choice is its thread plan).
constexpr TunableRow kTunableOps[] = {
    {"Conv", true, false},   {"FusedConv", true, false},
    {"MatMul", false, true}, {"FusedMatMul", false, true},
    {"Gemm", false, true},   {"MaxPool"},
    {"AveragePool"},         {"GlobalAveragePool"},
    {"GlobalMaxPool"},
};

const TunableRow* find_row(const std::string& op_type) {
  for (const TunableRow& row : kTunableOps)
    if (row.op_type == op_type) return &row;
  return nullptr;
}

}  // namespace

bool is_tunable(const std::string& op_type) { return find_row(op_type) != nullptr; }

std::vector<KernelVariant> candidate_variants(const KernelRequest& request, int threads, bool deeper) {
  const TunableRow* row = find_row(request.node.op_type);
  if (!row) return {};
  // Convolutions: direct on the graph's layout (the default), direct or Winograd on oneDNN's
  // blocked layout (Winograd has no plain-layout kernel).
  // The node's default (kernels/default_variant.h) comes first: the one the others are compared with.
  const KernelVariant by_default = default_variant(request);
  std::vector<std::pair<ConvAlgorithm, ActivationLayout>> conv{{by_default.conv_algorithm, by_default.activations}};
  // A convolution not on NHWC activations may also run on NHWC, staged.
  if (row->conv_algorithms)
    for (std::pair<ConvAlgorithm, ActivationLayout> other :
         {std::pair{ConvAlgorithm::kDirect, ActivationLayout::kGraph},
          std::pair{ConvAlgorithm::kDirect, ActivationLayout::kBlocked},
          std::pair{ConvAlgorithm::kWinograd, ActivationLayout::kBlocked},
          std::pair{ConvAlgorithm::kDirect, ActivationLayout::kChannelsLast}})
      if (other != conv.front() && (other.second != ActivationLayout::kChannelsLast ||
                                    conv_formats(request.node.attrs).y != ActivationFormat::kNhwc))
        conv.push_back(other);
  std::vector<WeightLayout> layouts{WeightLayout::kPacked};
  // Only constant weights have a layout to choose.
  if (row->weight_layouts && request.inputs.size() > 1 && request.inputs[1].value)
    layouts.push_back(WeightLayout::kPlain);
  // A node the grain table gives the team may run on one thread instead; never the other way:
  // measured alone, a team looks fast (its workers spin between the timed runs), but inside a
  // model on a loaded machine each extra team node waits at its barrier for a descheduled worker
  // (bench/RESULTS.md, "AOE tuning": MobileNetV2 ran 10x slower when tuning could add teams).
  // deeper_opat asks for that search too: the team is measured as well, and the measurement,
  // taken alone, decides (the user asked for the wider search and its risk).
  std::vector<ThreadPlan> plans{ThreadPlan::kByGrain};
  if (threads > 1) plans.push_back(ThreadPlan::kSingle);
  if (threads > 1 && deeper) plans.push_back(ThreadPlan::kTeam);
  std::vector<KernelVariant> out;
  for (ThreadPlan p : plans)
    for (const auto& [algorithm, activations] : conv)
      for (WeightLayout w : layouts) out.push_back({algorithm, activations, w, p});
  return out;
}

}  // namespace openge::aoe
