// Pieces shared by the passes that recognise a decomposed normalization (LayerNormONNXFusionPass,
// ScopeLayerNormPass, ScopeInstanceNormPass): the reduction's axes and the affine constants.
#pragma once
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace openge::passes {

// The sorted, non-negative axes of a default-domain keepdims ReduceMean with an `axes`
// attribute and one input, for an input of rank `rank`; nullopt for any other node.
std::optional<std::vector<int64_t>> mean_axes(const Node& rm, int64_t rank);

// The first axis when `rm` (as mean_axes) reduces exactly the last axes; nullopt otherwise.
std::optional<int64_t> trailing_axis(const Node& rm, int64_t rank);

// `c` as LayerNormalization's Scale or B: a constant of `dtype` broadcasting into the normalized
// dims (x's dims from `axis`). Returns the value to use (reshaped without leading 1s when
// needed), or -1 when it does not fit.
int affine_input(Graph& g, int c, DType dtype, const Shape& x, int64_t axis);

// A one-element 1 of `dtype` (float dtypes): the Scale when a pattern has no Mul by gamma.
Tensor one_of(DType dtype);

}  // namespace openge::passes
