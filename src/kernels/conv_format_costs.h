// What a convolution costs in each activation format, per compute dtype and instruction-set
// class: the table ChannelsLastLayoutPass reads to choose a region's format (NHWC or NC1HWC0)
// knowing the dtype its convolutions will compute in. oneDNN 2.6 runs different kernels per
// format: on nChw16c its direct / Winograd AVX-512 ones, on NHWC its brgemm ones, which are the
// only ones that use AMX. Which is faster depends on the dtype and the ISA, not on "AVX-512".
#pragma once
#include <span>
#include <string_view>

#include "openge/dtype.h"

namespace openge {

// The instruction-set classes that change which convolution kernels oneDNN has, oldest first.
enum class CpuIsa { kAvx2, kAvx512, kAvx512Vnni, kAvx512Bf16, kAmx };

std::string_view isa_name(CpuIsa isa);

// The class of the CPU this process runs on, as oneDNN sees it (ONEDNN_MAX_CPU_ISA caps it).
CpuIsa cpu_isa();

// One row: the relative time per multiply-accumulate of oneDNN's kernel for `op` computing in
// `dtype` on `isa`, on NHWC and on NC1HWC0 activations; 0 where oneDNN has no kernel for that
// format (the format is never chosen). Only the two costs of one row are compared with each
// other and with the float32 row of the same ISA (float32 NHWC is 1 on every ISA).
struct FormatCostRow {
  std::string_view op;  // "Conv" (FusedConv too)
  CpuIsa isa;
  DType dtype;
  double nhwc, nc1hwc0;
  std::string_view source;  // where the numbers come from (measured, or why they are assumed)
};

using FormatCostTable = std::span<const FormatCostRow>;

// OpenGE's table (conv_format_costs.cpp).
FormatCostTable default_format_costs();

// The row for (op, isa, dtype); a dtype without a row of its own (float16, computed widened to
// float32) takes the float32 row; nullptr when neither exists.
const FormatCostRow* find_format_cost(FormatCostTable table, std::string_view op, CpuIsa isa, DType dtype);

// The cheaper of a row's formats (0 when neither has a kernel).
double best_format_cost(const FormatCostRow& row);

// The ISA and the table that compile decisions read (the layout pass through its PassContext,
// the precision pass through its PrecisionSetup): by default this CPU's class (cpu_isa()) and
// OpenGE's table; tests and benchmarks hand in others (CompileOptions::isa_costs).
struct IsaCosts {
  CpuIsa isa;
  FormatCostTable table;
};
IsaCosts isa_costs();

}  // namespace openge
