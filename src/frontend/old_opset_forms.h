// Gives the nodes of an opset 1-6 model the form OpenGE's kernels implement, by the rows of
// src/ops/opset_forms.cpp: each rewrite keeps the node's results exactly as the old opset
// defines them; an old form with no exact equivalent is one error naming the node, op and opset.
#pragma once
#include "ir/graph.h"
#include "openge/status.h"

namespace openge {

// Runs on a loaded graph whose Constant nodes are already folded; may add LegacyAxisAlign nodes.
Status apply_old_opset_forms(Graph& graph);

// The refusal of an old form OpenGE does not run (a kNotSupported row), before anything else
// checks the node (its old inputs would otherwise read as a wrong input count).
Status check_old_form_supported(const Node& node, int64_t opset);

}  // namespace openge
