// The precision modes of page 002 as a table: each value of precision_mode and precision_mode_v2
// maps to one policy (how cube and vector ops choose their compute dtype) and its narrow type.
#pragma once
#include <string>
#include <string_view>

#include "openge/dtype.h"
#include "openge/status.h"

namespace openge::options {
class OptionSet;
}

namespace openge::precision {

enum class Policy {
  kKeepOrigin,         // must_keep_origin_dtype / origin (OPT-precision_mode-9/10)
  kCubeLowVectorKeep,  // allow_fp32_to_fp16 / allow_fp32_to_bf16 (OPT-precision_mode-2/15)
  kForceLow,           // force_fp16 / fp16 (OPT-precision_mode-3, OPT-precision_mode_v2-2)
  kCubeFp16InFp32Out,  // cube_fp16in_fp32out / force_fp32 (OPT-precision_mode-4..8)
  kMixed,              // allow_mix_precision* / mixed_float16 / mixed_bfloat16 (OPT-precision_mode-11..13)
};

struct PrecisionMode {
  std::string option;  // "precision_mode" or "precision_mode_v2": the option that decided
  std::string value;   // its value, e.g. "allow_mix_precision"
  Policy policy = Policy::kKeepOrigin;
  DType low = DType::kFloat16;  // the narrow type the policy lowers to
  bool mixed() const { return policy == Policy::kMixed; }
  bool keeps_origin() const { return policy == Policy::kKeepOrigin; }
  std::string label() const { return option + "=" + value; }
};

// The row of one option value; an error for a value no row has.
Result<PrecisionMode> precision_mode_from(std::string_view option, std::string_view value);

// The mode in force: precision_mode_v2 when the user set it (AMB-12: the two are exclusive),
// otherwise precision_mode (whose default depends on soc_version and graph_run_mode).
Result<PrecisionMode> effective_precision_mode(const options::OptionSet& config);

}  // namespace openge::precision
