// Frees a compiled graph's constants that no kernel reads at run time any more.
//
// A convolution or matmul with constant weights reorders them at compile time into a buffer of its
// own (oneDNN's packed layout, or a copy placed where gemm runs fastest). The graph's copy is then
// dead weight: BERT-base would hold its 340 MB of weights twice. During kernel selection this
// counts, for every tensor constant, the node inputs that read it; as each node's kernel is built,
// the inputs it keeps a packed copy of are ticked off, and a constant whose readers are all ticked
// off is replaced by a stand-in with its dtype and shape and no data, so its memory goes as soon
// as nothing else holds it. Any other reader — a reference kernel, a kernel that reads the input
// each run, a subgraph, a graph output — keeps it.
//
// Only for graphs whose constants nobody will read again: the Session asks for it when no Data
// Dump is configured (a dump writes node inputs), and the Executable when no exception dump is.
#pragma once
#include <cstddef>
#include <vector>

#include "ir/graph.h"

namespace openge {

struct CompiledNode;

class PackedConstantRelease {
 public:
  explicit PackedConstantRelease(Graph& graph);
  // After `node`'s kernel was chosen (nodes in any order, each once).
  void node_built(const CompiledNode& node);
  size_t released_bytes() const { return released_bytes_; }

 private:
  void release(size_t value);
  Graph& graph_;
  std::vector<int> readers_left_;  // per value; -1: not a releasable constant, or kept
  size_t released_bytes_ = 0;
};

// The stand-in left where a constant's data was: same dtype and shape, no storage.
Tensor released_constant(const Tensor& constant);

// A copy of `graph` whose tensor constants are all stand-ins: what a Session keeps of a model it
// compiles only once (session.cpp).
Graph without_constant_data(const Graph& graph);

}  // namespace openge
