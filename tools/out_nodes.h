// ATC's --out_nodes="node:0;node2:1": a copy of the model whose graph outputs are those nodes'
// outputs, in that order, without the nodes no output needs. The copy is written beside the model
// (its external data files still resolve) under a hidden name; the caller removes it.
#pragma once
#include <string>

#include "openge/status.h"

namespace openge::cli {

// The copy's path; errors name the node or output index that the model lacks.
Result<std::string> model_with_out_nodes(const std::string& model_path, const std::string& out_nodes);

}  // namespace openge::cli
