// Which model node, and which of its outputs, each output of a node is. A fusion pass that merges
// nodes gives the fused node the output of one of them (a consumer merged into its producer, or
// producers merged into the consumer that stays): the private attribute "_original_outputs"
// records it, one "<output index>:<node name>" per output, so Data Dump can name the model node
// a fused op's output belongs to (CANN's OriginalOp) and `openge compare` meet golden data by it.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"

namespace openge {

struct OriginalOutput {
  std::string node;  // the model node's name
  int index = 0;     // its output index
};

// One per output of `node`: the recorded ones, else the node itself and the slot.
std::vector<OriginalOutput> original_outputs(const Node& node);

// `into` takes over `absorbed`'s original outputs where their output values are the same (call
// after giving `into` its outputs, before `absorbed` goes).
void inherit_original_outputs(Node& into, const Node& absorbed);

}  // namespace openge
