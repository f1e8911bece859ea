// Gathers a model's inputs for the CLI: --input NAME=FILE or --input FILE[,FILE...] in input
// order (.npy, .pb or raw .bin), --inputs DIR (input_<i>.pb / input_<i>.npy / NAME.npy for every
// input not given otherwise, or an error), and seeded random data for inputs given neither way
// (which the CLI announces).
#pragma once
#include <string>
#include <vector>

#include "cli_args.h"
#include "openge/session.h"

namespace openge::cli {

struct GatheredInputs {
  std::vector<Tensor> tensors;
  std::vector<std::string> notes;  // "input 'x': random float32 [1,3,224,224] (seed 0)"
};

Result<GatheredInputs> gather_inputs(const Session& session, const Args& args, uint32_t seed);

// The demo model shipped with OpenGE, or an error saying where it was looked for.
Result<std::string> find_demo_model();
// --model, or the demo model when the flag is absent.
Result<std::string> model_flag_or_demo(const Args& args);

}  // namespace openge::cli
