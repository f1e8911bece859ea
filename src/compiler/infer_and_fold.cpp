// Shape inference and constant folding, the first stage of a compile (compiler/pipeline.h); for
// a .oge, the check that every stored type is what its node computes.
#include <algorithm>
#include <iterator>
#include <string_view>

#include "compiler/executable_builder.h"
#include "ops/graph_infer.h"
#include "ops/node_eval.h"
#include "runtime/control_flow.h"

namespace openge::compiler {
namespace {

// Folding larger results would trade a run-time op for a big constant nobody asked for.
constexpr size_t kMaxFoldBytes = size_t{64} << 20;

// The ops the precision pass may leave "float16 in, float32 out": the cube ops whose SoC
// profiles list a float16 -> float32 column (Conv2D, DepthwiseConv2D, Conv2DTranspose,
// Conv2DBackpropFilter, MatMul(V2), BatchMatMul(V2), Einsum) and OpenGE's fused forms of them.
// Their kernels write float32 from narrow inputs; any other op's kernel writes its input's
// dtype, so a .oge storing float32 there over float16 inputs was edited after openge compile
// and would read half the output buffer as floats.
constexpr std::string_view kFloat32OutputOps[] = {"Conv",        "FusedConv", "ConvTranspose",  "ConvGrad", "MatMul",
                                                  "FusedMatMul", "Gemm",      "FusedAttention", "Einsum"};

bool may_widen_output(const std::string& op_type) {
  return std::find(std::begin(kFloat32OutputOps), std::end(kFloat32OutputOps), op_type) != std::end(kFloat32OutputOps);
}

}  // namespace

Status ExecutableBuilder::infer_and_fold() {
  Graph& g = exe_->graph_;
  OPENGE_RETURN_IF_ERROR(sort_topologically(g));
  return infer_and_fold_nodes(g, kMaxFoldBytes);
}

Status ExecutableBuilder::check_precompiled() {
  // The rewrites ran when the .oge was compiled; only infer runs here, as a check that every
  // stored type is what its node computes from its inputs, so that a file not written by openge
  // compile cannot hand a kernel buffers of the wrong size. A stored float32 where infer says
  // float16 / bfloat16 is the precision pass's "float16 in, float32 out" of cube ops, and stays.
  Graph& g = exe_->graph_;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    const OpSchema* schema = find_op_schema(node.op_type);
    if (!schema) return unsupported("node " + g.node_label(static_cast<int>(n)) + ": op is not supported");
    std::vector<ValueInfo> infos;
    std::vector<const ValueInfo*> ptrs;
    input_infos(g, node, infos, ptrs);
    InferContext ctx(node, g.opset, ptrs, node.outputs.size());
    OPENGE_RETURN_IF_ERROR(run_infer(*schema, ctx));
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] < 0) continue;
      Value& v = g.values[static_cast<size_t>(node.outputs[o])];
      const ValueInfo& info = ctx.output(o);
      const bool widened_output = v.dtype == DType::kFloat32 && may_widen_output(node.op_type) &&
                                  (info.dtype == DType::kFloat16 || info.dtype == DType::kBFloat16);
      if (v.dtype != DType::kUndefined && v.dtype != info.dtype && !widened_output)
        return invalid_model("node " + g.node_label(static_cast<int>(n)) + ": output '" + v.name + "' is stored as " +
                             dtype_name(v.dtype) + " but the op computes " + dtype_name(info.dtype) +
                             " (not written by openge compile): recompile it");
      if (v.dtype == DType::kUndefined) v.dtype = info.dtype;
      if (info.shape_known && shape_is_static(v.shape) && *v.shape != info.shape)
        return invalid_model("node " + g.node_label(static_cast<int>(n)) + ": output '" + v.name +
                             "' is stored with shape " + shape_to_string(*v.shape) + " but the op computes " +
                             shape_to_string(info.shape) + " (not written by openge compile): recompile it");
      v.shape = info.shape_known ? std::optional<Shape>(info.shape) : std::nullopt;
      if (o < ctx.folded().size() && ctx.folded()[o].defined()) v.constant = ctx.folded()[o];
    }
  }
  return check_declared_outputs();
}

Status ExecutableBuilder::check_declared_outputs() const {
  const Graph& g = exe_->graph_;
  for (size_t i = 0; i < g.outputs.size() && i < g.declared_outputs.size(); ++i) {
    const Value& v = g.values[static_cast<size_t>(g.outputs[i])];
    const Graph::DeclaredType& declared = g.declared_outputs[i];
    if (declared.dtype != DType::kUndefined && v.dtype != DType::kUndefined && declared.kind != v.kind)
      return invalid_model("graph output '" + v.name + "' is declared a " + value_kind_name(declared.kind) +
                           " but the graph computes a " + value_kind_name(v.kind));
    if (declared.dtype != DType::kUndefined && v.dtype != DType::kUndefined && declared.dtype != v.dtype)
      return invalid_model("graph output '" + v.name + "' is declared " + dtype_name(declared.dtype) +
                           " but the graph computes " + dtype_name(v.dtype));
    if (!declared.shape || !shape_is_static(v.shape)) continue;
    bool matches = declared.shape->size() == v.shape->size();
    for (size_t d = 0; matches && d < v.shape->size(); ++d)
      matches = (*declared.shape)[d] < 0 || (*declared.shape)[d] == (*v.shape)[d];
    if (!matches)
      return invalid_model("graph output '" + v.name + "' is declared with shape " + shape_to_string(*declared.shape) +
                           " but the graph computes " + shape_to_string(*v.shape));
  }
  return Status::Ok();
}

}  // namespace openge::compiler
