#include "openge/explain_precision.h"

#include "openge/random_inputs.h"

namespace openge {

Result<PrecisionExplanation> explain_precision(Session& session, std::vector<Tensor> inputs, uint32_t seed) {
  PrecisionExplanation out;
  out.input_notes = fill_missing_inputs(session.inputs(), inputs, seed);
  auto outputs = session.run(inputs);
  if (!outputs.ok()) return outputs.status();
  out.records = session.precision_report();
  out.warnings = session.precision_warnings();
  return out;
}

}  // namespace openge
