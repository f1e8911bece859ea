#include "kernels/conv_format_costs.h"

#include <dnnl.hpp>

namespace openge {
namespace {

constexpr DType f32 = DType::kFloat32, bf16 = DType::kBFloat16;

// Each row says where its numbers come from (bench/RESULTS.md, "2026-12-07, low precision", for
// the rows measured on this project's machine, an AMD EPYC with AVX512_BF16 and no AMX; the
// classes below it were measured there by capping oneDNN with ONEDNN_MAX_CPU_ISA). float32 on NC1HWC0: oneDNN's
// Winograd and nChw16c direct kernels without a reorder in and out, and Concats of whole blocks in place (0.94-0.96 of
// NHWC on ResNet).
constexpr FormatCostRow kRows[] = {
    {"Conv", CpuIsa::kAvx2, f32, 1.0, 0.0, "oneDNN's nChw16c kernels are AVX-512 ones"},
    {"Conv", CpuIsa::kAvx2, bf16, 1.2, 0.0,
     "no bf16 kernel, widened to float32 (widened_kernel.h); ResNet-18 here under ONEDNN_MAX_CPU_ISA=AVX2"},
    {"Conv", CpuIsa::kAvx512, f32, 1.0, 0.95, "NC1HWC0 regions, 2026-12-02 (session 11)"},
    {"Conv", CpuIsa::kAvx512, bf16, 2.64, 2.68,
     "oneDNN emulates the bf16 dot product; ResNet-18 here under ONEDNN_MAX_CPU_ISA=AVX512_CORE"},
    {"Conv", CpuIsa::kAvx512Vnni, f32, 1.0, 0.95, "NC1HWC0 regions, 2026-12-02 (session 11)"},
    {"Conv", CpuIsa::kAvx512Vnni, bf16, 2.64, 2.68, "the avx512_core row: the same emulated kernels (not measured)"},
    {"Conv", CpuIsa::kAvx512Bf16, f32, 1.0, 0.95, "NC1HWC0 regions, 2026-12-02 (session 11)"},
    {"Conv", CpuIsa::kAvx512Bf16, bf16, 0.52, 0.565,
     "ResNet-18 here (AMD EPYC, AVX512_BF16): brgemm on NHWC, jit on nChw16c (2026-12-07, low precision)"},
    {"Conv", CpuIsa::kAmx, f32, 1.0, 0.95, "float32 does not use AMX: the AVX-512 rows"},
    // Measured on a 2-core Xeon with AMX (not this project's machine): its AVX512_BF16 dot products
    // run at half the float32 FMA rate, which is all nChw16c gets; oneDNN's AMX brgemm convolution
    // on NHWC was 2.4-12x faster per layer (the lower end taken).
    {"Conv", CpuIsa::kAmx, bf16, 0.83, 2.0, "AMX brgemm on NHWC only (Xeon with AMX, not measured here)"},
};

}  // namespace

std::string_view isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx2:
      return "avx2";
    case CpuIsa::kAvx512:
      return "avx512_core";
    case CpuIsa::kAvx512Vnni:
      return "avx512_core_vnni";
    case CpuIsa::kAvx512Bf16:
      return "avx512_core_bf16";
    case CpuIsa::kAmx:
      return "avx512_core_amx";
  }
  return "avx2";
}

CpuIsa cpu_isa() {
  using isa = dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case isa::avx512_core:
      return CpuIsa::kAvx512;
    case isa::avx512_core_vnni:
      return CpuIsa::kAvx512Vnni;
    case isa::avx512_core_bf16:
      return CpuIsa::kAvx512Bf16;
    case isa::avx512_core_amx:
      return CpuIsa::kAmx;
    default:
      return CpuIsa::kAvx2;  // AVX2 and older, AVX2-VNNI: no nChw16c kernels
  }
}

FormatCostTable default_format_costs() { return kRows; }

double best_format_cost(const FormatCostRow& row) {
  if (row.nhwc <= 0) return row.nc1hwc0 > 0 ? row.nc1hwc0 : 0;
  return row.nc1hwc0 > 0 && row.nc1hwc0 < row.nhwc ? row.nc1hwc0 : row.nhwc;
}

IsaCosts isa_costs() {
  static const CpuIsa isa = cpu_isa();
  return {isa, default_format_costs()};
}

const FormatCostRow* find_format_cost(FormatCostTable table, std::string_view op, CpuIsa isa, DType dtype) {
  for (DType t : {dtype, f32})
    for (const FormatCostRow& row : table)
      if (row.op == op && row.isa == isa && row.dtype == t) return &row;
  return nullptr;
}

}  // namespace openge
