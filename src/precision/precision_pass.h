// The precision pass: gives every node its compute dtype from precision_mode / precision_mode_v2,
// the SoC profile, the mixed-precision lists and customize_dtypes, and its implementation mode
// from op_precision_mode / op_select_implmode; then rewrites the graph so that each node reads
// and writes that dtype. Casts go only where a value's dtype changes (one per value and dtype,
// shared by every consumer); constants are converted here, once, never by a run-time Cast.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kernels/conv_format_costs.h"
#include "options/config_files.h"
#include "precision/mix_lists.h"
#include "precision/precision_mode.h"

namespace openge::options {
class OptionSet;
}

namespace openge::precision {

// What the pass decided for one node of the model, and why (the precision report).
struct PrecisionDecision {
  std::string node_name, op_type, ascend_type;
  DType original = DType::kUndefined;  // the node's float dtype in the model (kUndefined: none)
  DType input_dtype = DType::kUndefined, output_dtype = DType::kUndefined;  // chosen
  bool aicpu_only = false;                                                  // moved to the AI CPU engine by the rules
  std::string rule;                                                         // the rule that decided the dtype
  std::string impl_mode, impl_rule;  // "" when the kernel's default implementation runs
  bool changed() const { return input_dtype != original || output_dtype != original; }
};

// Everything the pass reads, loaded and checked once per session.
struct PrecisionSetup {
  PrecisionMode mode;
  SocProfile profile;
  MixLists lists;
  std::vector<options::CustomDtypeRule> custom_dtypes;
  std::string custom_dtypes_file;
  options::OpPrecisionModes op_precision_modes;
  bool has_op_precision_mode = false;
  std::string select_implmode;                 // op_select_implmode ("" unset)
  std::vector<std::string> implmode_op_types;  // optypelist_for_implmode (empty: every op)
  std::vector<std::string> warnings;           // ignored settings, unknown mixlist names
  // Whether a lowered convolution would be slower than float32 on the CPU compiled for: the allow_*
  // modes then keep float32 (kernels/conv_format_costs.h).
  IsaCosts costs = isa_costs();
};

Result<PrecisionSetup> load_precision_setup(const options::OptionSet& config);

// Rewrites `graph` (inferred, folded, fused; nodes in topological order). Errors are the ones
// page 002 states (e.g. must_keep_origin_dtype on an op that lacks float32 on AI Core).
Result<std::vector<PrecisionDecision>> apply_precision(Graph& graph, const PrecisionSetup& setup);

// The dtype each node of `graph` would compute in (its float inputs' dtype; kUndefined for a
// node without floating-point tensors), indexed by node, decided as apply_precision decides but
// without rewriting the graph. The layout pass runs before the precision pass and needs it: a
// format fast for float32 convolutions may be slow for bfloat16 ones.
Result<std::vector<DType>> predict_compute_dtypes(const Graph& graph, const PrecisionSetup& setup);

}  // namespace openge::precision
