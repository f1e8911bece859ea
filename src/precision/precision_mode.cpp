#include "precision/precision_mode.h"

#include "options/option_set.h"

namespace openge::precision {
namespace {

struct ModeRow {
  std::string_view option;
  std::string_view value;
  Policy policy;
  DType low;
};

constexpr ModeRow kModes[] = {
    {"precision_mode", "must_keep_origin_dtype", Policy::kKeepOrigin, DType::kFloat16},
    {"precision_mode", "allow_fp32_to_fp16", Policy::kCubeLowVectorKeep, DType::kFloat16},
    {"precision_mode", "allow_fp32_to_bf16", Policy::kCubeLowVectorKeep, DType::kBFloat16},
    {"precision_mode", "force_fp16", Policy::kForceLow, DType::kFloat16},
    {"precision_mode", "cube_fp16in_fp32out", Policy::kCubeFp16InFp32Out, DType::kFloat16},
    {"precision_mode", "force_fp32", Policy::kCubeFp16InFp32Out, DType::kFloat16},
    {"precision_mode", "allow_mix_precision", Policy::kMixed, DType::kFloat16},
    {"precision_mode", "allow_mix_precision_fp16", Policy::kMixed, DType::kFloat16},
    {"precision_mode", "allow_mix_precision_bf16", Policy::kMixed, DType::kBFloat16},
    {"precision_mode_v2", "origin", Policy::kKeepOrigin, DType::kFloat16},
    {"precision_mode_v2", "fp16", Policy::kForceLow, DType::kFloat16},
    {"precision_mode_v2", "cube_fp16in_fp32out", Policy::kCubeFp16InFp32Out, DType::kFloat16},
    {"precision_mode_v2", "mixed_float16", Policy::kMixed, DType::kFloat16},
    {"precision_mode_v2", "mixed_bfloat16", Policy::kMixed, DType::kBFloat16},
};

}  // namespace

Result<PrecisionMode> precision_mode_from(std::string_view option, std::string_view value) {
  for (const ModeRow& row : kModes)
    if (row.option == option && row.value == value)
      return PrecisionMode{std::string(option), std::string(value), row.policy, row.low};
  return invalid_argument(std::string(option) + "='" + std::string(value) + "' is not a precision mode OpenGE knows");
}

Result<PrecisionMode> effective_precision_mode(const options::OptionSet& config) {
  if (config.user_set("precision_mode_v2") && config.has_value("precision_mode_v2"))
    return precision_mode_from("precision_mode_v2", config.get("precision_mode_v2"));
  const std::string value = config.get("precision_mode");
  return precision_mode_from("precision_mode", value.empty() ? "must_keep_origin_dtype" : value);
}

}  // namespace openge::precision
