// The AI Core engine's coverage: one row per op type with the factory that builds its kernel.
// A factory returns nullptr for forms it does not cover (dtype, rank, dynamic weights …), and
// the node then runs on the AI CPU engine.
#include <string_view>

#include "kernels/aicore_coverage.h"
#include "kernels/bilinear_resize_kernel.h"
#include "ops/kernel.h"
#include "kernels/fixed_plan_kernel.h"
#include "kernels/fused_attention_kernel.h"
#include "kernels/onednn_conv.h"
#include "kernels/onednn_conv_train.h"
#include "kernels/onednn_layer_norm.h"
#include "kernels/onednn_matmul.h"
#include "kernels/onednn_pool.h"
#include "kernels/onednn_qlinear.h"
#include "kernels/onednn_reorder.h"
#include "kernels/small_batch_rnn_kernel.h"
#include "kernels/widened_kernel.h"

namespace openge {
namespace {

using Factory = Result<std::unique_ptr<CompiledKernel>> (*)(const KernelRequest&);

// How a row runs float16/bfloat16 tensors when oneDNN has no native kernel for them on this CPU:
// cube ops widen to their float32 kernel (narrow in, float32 accumulate, narrow out, like the
// NPU); data movement and pooling leave them to the AI CPU kernels, which handle them natively.
enum class Narrow { kAiCpu, kWiden };
// Whether the kernel adds up partial results (a K or input-channel reduction) in an order that
// oneDNN may pick by thread count: those get a one-thread plan under deterministic=1.
enum class Reduces { kNo, kYes };

struct AiCoreRow {
  std::string_view op_type;
  Factory make;
  Narrow narrow = Narrow::kAiCpu;
  Reduces reduces = Reduces::kNo;
};

constexpr AiCoreRow kAiCoreOps[] = {
    {"Conv", onednn::make_conv_kernel, Narrow::kWiden, Reduces::kYes},
    {"FusedConv", onednn::make_conv_kernel, Narrow::kWiden, Reduces::kYes},
    {"ConvGrad", onednn::make_conv_grad_kernel, Narrow::kAiCpu, Reduces::kYes},
    {"MatMul", onednn::make_matmul_kernel, Narrow::kWiden, Reduces::kYes},
    {"FusedMatMul", onednn::make_matmul_kernel, Narrow::kWiden, Reduces::kYes},
    {"Gemm", onednn::make_gemm_kernel, Narrow::kWiden, Reduces::kYes},
    {"FusedAttention", onednn::make_fused_attention_kernel, Narrow::kWiden, Reduces::kYes},
    {"MaxPool", onednn::make_pool_kernel},
    {"AveragePool", onednn::make_pool_kernel},
    {"GlobalAveragePool", onednn::make_pool_kernel},
    {"GlobalMaxPool", onednn::make_pool_kernel},
    {"LayerNormalization", onednn::make_layer_norm_kernel, Narrow::kAiCpu, Reduces::kYes},
    {"Transpose", onednn::make_transpose_kernel},
    {"Resize", make_bilinear_resize_kernel},
    {"Upsample", make_bilinear_resize_kernel},
    {"QLinearConv", onednn::make_qlinear_conv_kernel},
    {"QLinearConvAdd", onednn::make_qlinear_conv_kernel},
    {"QLinearMatMul", onednn::make_qlinear_matmul_kernel},
    {"RNN", make_recurrent_kernel, Narrow::kWiden, Reduces::kYes},
    {"GRU", make_recurrent_kernel, Narrow::kWiden, Reduces::kYes},
    {"LSTM", make_recurrent_kernel, Narrow::kWiden, Reduces::kYes},
};

Result<std::unique_ptr<CompiledKernel>> make_row_kernel(const AiCoreRow& row, const KernelRequest& request) {
  if (row.narrow == Narrow::kWiden && has_narrow_float(request)) {
    // A native bf16 primitive where the CPU has one; oneDNN refuses it (an exception) on
    // CPUs without, and the widened float32 kernel runs instead.
    try {
      auto native = row.make(request);
      if (native.ok() && *native) return native;
    } catch (const std::exception&) {
    }
    return make_widened_kernel(request, row.make);
  }
  return row.make(request);
}

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_aicore_kernel(const KernelRequest& request) {
  for (const AiCoreRow& row : kAiCoreOps) {
    if (row.op_type != request.node.op_type) continue;
    try {
      if (request.deterministic && row.reduces == Reduces::kYes)
        return make_fixed_plan_kernel([&] { return make_row_kernel(row, request); });
      return make_row_kernel(row, request);
    } catch (const std::exception& e) {
      return internal_error(request.node.op_type + " '" + request.node.name +
                            "': AI Core kernel creation failed: " + e.what());
    }
  }
  return std::unique_ptr<CompiledKernel>();
}

bool has_aicore_kernel(std::string_view op_type) {
  for (const AiCoreRow& row : kAiCoreOps)
    if (row.op_type == op_type) return true;
  return false;
}

}  // namespace openge
