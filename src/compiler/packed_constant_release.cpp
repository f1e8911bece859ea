#include "compiler/packed_constant_release.h"

#include "runtime/executable.h"

namespace openge {

namespace {
// Tensors of plain bytes only: a string tensor or a sequence is never packed by a kernel.
bool releasable(const Value& value) {
  return value.constant && value.constant->is_tensor() && value.constant->dtype() != DType::kString &&
         value.constant->raw() != nullptr;
}
}  // namespace

Tensor released_constant(const Tensor& constant) { return Tensor::borrow(constant.dtype(), constant.shape(), nullptr); }

Graph without_constant_data(const Graph& graph) {
  Graph out = graph;
  for (Value& value : out.values)
    if (releasable(value)) value.constant = released_constant(*value.constant);
  return out;
}

PackedConstantRelease::PackedConstantRelease(Graph& graph) : graph_(graph), readers_left_(graph.values.size(), -1) {
  for (size_t v = 0; v < graph.values.size(); ++v)
    if (releasable(graph.values[v])) readers_left_[v] = 0;
  for (const Node& node : graph.nodes)
    for (int in : node.inputs)
      if (in >= 0 && readers_left_[static_cast<size_t>(in)] >= 0) ++readers_left_[static_cast<size_t>(in)];
  for (int out : graph.outputs)
    if (out >= 0) readers_left_[static_cast<size_t>(out)] = -1;
  // A constant nothing reads stays as it was: the passes left it, so someone may want it.
  for (int& left : readers_left_)
    if (left == 0) left = -1;
}

void PackedConstantRelease::node_built(const CompiledNode& cn) {
  for (size_t i = 0; i < cn.node.inputs.size(); ++i) {
    const int v = cn.node.inputs[i];
    if (v < 0 || readers_left_[static_cast<size_t>(v)] < 0) continue;
    int& left = readers_left_[static_cast<size_t>(v)];
    if (!cn.kernel || cn.kernel->reads_input_at_run_time(i)) {
      left = -1;  // kept
    } else if (--left == 0) {
      release(static_cast<size_t>(v));
    }
  }
}

void PackedConstantRelease::release(size_t v) {
  Tensor& constant = *graph_.values[v].constant;
  released_bytes_ += constant.nbytes();
  constant = released_constant(constant);
  readers_left_[v] = -1;
}

}  // namespace openge
