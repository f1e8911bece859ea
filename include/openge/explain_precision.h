// `openge explain-precision` as one call: the
// session runs once (a Session compiles at its first run, and running proves the chosen kernels
// work), then reports every node's compute dtype, engine and the precision rule that decided.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "openge/session.h"

namespace openge {

struct PrecisionExplanation {
  std::vector<PrecisionRecord> records;  // one per node of the compiled graph
  std::vector<std::string> warnings;     // settings the precision pass ignored, and why
  std::vector<std::string> input_notes;  // inputs given random data (fill_missing_inputs)
};

// `inputs`: one per model input; undefined entries get seeded random data (seed + index), as
// the CLI gives inputs without --input. A failing run is the error.
Result<PrecisionExplanation> explain_precision(Session& session, std::vector<Tensor> inputs, uint32_t seed = 0);

// The records and warnings as `openge explain-precision --json` prints them:
// {"nodes": [{node, op_type, ascend_type, original_dtype, input_dtype, output_dtype, engine, rule,
// impl_mode, impl_rule}...], "warnings": [...]}, indented by 2.
std::string precision_report_json(const std::vector<PrecisionRecord>& records,
                                  const std::vector<std::string>& warnings);

}  // namespace openge
