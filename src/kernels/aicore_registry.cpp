// The AI Core engine's coverage: one row per op type with the factory that builds its kernel.
// A factory returns nullptr for forms it does not cover (dtype, rank, dynamic weights …), and
// the node then runs on the AI CPU engine.
#include <string_view>

#include "kernels/compiled_kernel.h"
#include "kernels/onednn_conv.h"
#include "kernels/onednn_matmul.h"
#include "kernels/onednn_pool.h"
#include "kernels/onednn_reorder.h"

namespace openge {
namespace {

using Factory = Result<std::unique_ptr<CompiledKernel>> (*)(const KernelRequest&);

struct AiCoreRow {
  std::string_view op_type;
  Factory make;
};

constexpr AiCoreRow kAiCoreOps[] = {
    {"Conv", onednn::make_conv_kernel},
    {"FusedConv", onednn::make_conv_kernel},
    {"MatMul", onednn::make_matmul_kernel},
    {"FusedMatMul", onednn::make_matmul_kernel},
    {"Gemm", onednn::make_gemm_kernel},
    {"MaxPool", onednn::make_pool_kernel},
    {"AveragePool", onednn::make_pool_kernel},
    {"GlobalAveragePool", onednn::make_pool_kernel},
    {"GlobalMaxPool", onednn::make_pool_kernel},
    {"NhwcMaxPool", onednn::make_pool_kernel},
    {"NhwcAveragePool", onednn::make_pool_kernel},
    {"NhwcGlobalAveragePool", onednn::make_pool_kernel},
    {"NhwcGlobalMaxPool", onednn::make_pool_kernel},
    {"Transpose", onednn::make_transpose_kernel},
};

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_aicore_kernel(const KernelRequest& request) {
  for (const AiCoreRow& row : kAiCoreOps) {
    if (row.op_type != request.node.op_type) continue;
    try {
      return row.make(request);
    } catch (const std::exception& e) {
      return internal_error(request.node.op_type + " '" + request.node.name + "': AI Core kernel creation failed: " +
                            e.what());
    }
  }
  return std::unique_ptr<CompiledKernel>();
}

}  // namespace openge
