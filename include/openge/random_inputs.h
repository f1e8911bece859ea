// Seeded random model inputs: what `openge run`/`bench`/`explain-precision` feed an input the
// user gave no data for, and what the Python explain_precision() does the same way.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "openge/session.h"

namespace openge {

// A tensor of the given type and shape filled from a seeded generator: floats in [-1, 1),
// integers in [0, 10), bools at random.
Tensor random_tensor(DType dtype, const Shape& shape, uint32_t seed);

// Fills every undefined entry of `inputs` (one per entry of `infos`, resized to it) with
// random_tensor(seed + index); symbolic dimensions become 1. Returns one note per filled input:
// "input 'x': random float32 [1,3,224,224] (seed 0)".
std::vector<std::string> fill_missing_inputs(const std::vector<TensorInfo>& infos, std::vector<Tensor>& inputs,
                                             uint32_t seed);

}  // namespace openge
