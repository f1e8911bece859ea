// Sliding-window geometry shared by Conv, ConvTranspose, MaxPool, AveragePool and their oneDNN
// kernels: from the ONNX attributes (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
// and the input's spatial dims to resolved per-side pads and output dims. One implementation,
// so the reference engine and the fast engine can never disagree about an output size.
//
// Typical use (Conv infer, spatial rank 2, kernel dims taken from the weight tensor):
//   auto params = read_window_params(node.attrs, 2, /*kernel_from_weight=*/&weight_spatial, false);
//   if (!params.ok()) return ctx.error(params.status().message());
//   auto geom = resolve_window(*params, input_spatial);
//   if (!geom.ok()) return ctx.error(geom.status().message());
//   // geom->output, geom->pad_begin, geom->pad_end
//
// Messages in returned errors do not name the node; wrap them with ctx.error(...).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "openge/status.h"

namespace openge {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// "NOTSET" (or ""), "SAME_UPPER", "SAME_LOWER", "VALID"; nullopt for anything else.
std::optional<AutoPad> parse_auto_pad(const std::string& s);
const char* auto_pad_name(AutoPad p);

// Upper bound that keeps hostile attribute values from overflowing int64 arithmetic (not a size
// limit: output sizes go through the size-limit policy, check_output_elements). Real models are
// many orders of magnitude below it.
constexpr int64_t kMaxWindowAttr = int64_t{1} << 24;  // kernel, stride, dilation, pad, output_padding

// The window attributes of one node, validated but not yet applied to an input.
// Every vector has one entry per spatial dim.
struct WindowParams {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> kernel;     // >= 1
  std::vector<int64_t> strides;    // >= 1 (default 1)
  std::vector<int64_t> dilations;  // >= 1 (default 1)
  std::vector<int64_t> pads;       // 2*rank entries: begins then ends, >= 0 (default 0)
  bool ceil_mode = false;
  size_t rank() const { return kernel.size(); }
};

// Reads and validates kernel_shape/strides/dilations/pads/auto_pad (and ceil_mode when
// `allow_ceil_mode`) for `spatial_rank` spatial dims. The kernel comes from the kernel_shape
// attribute; for Conv/ConvTranspose pass the weight's spatial dims as `kernel_from_weight`
// (nullptr when unknown): they are used when kernel_shape is absent and must match it when
// present. Pools pass nullptr and kernel_shape is then required.
Result<WindowParams> read_window_params(const Attributes& attrs, size_t spatial_rank,
                                        const std::vector<int64_t>* kernel_from_weight, bool allow_ceil_mode);

// Resolved geometry for one input: output index o along dim i reads input positions
// o*strides[i] - pad_begin[i] + j*dilations[i], j in [0, kernel[i]).
struct WindowGeometry {
  std::vector<int64_t> kernel, strides, dilations;
  std::vector<int64_t> pad_begin, pad_end;
  std::vector<int64_t> input;   // input spatial dims
  std::vector<int64_t> output;  // output spatial dims; -1 where the input dim is unknown
  size_t rank() const { return kernel.size(); }
  int64_t effective_kernel(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
  int64_t output_size() const;  // product of output dims (-1 if any is unknown)
  int64_t kernel_size() const;  // product of kernel dims
};

// Forward windows (Conv, pools). Output dims follow ONNX:
//   NOTSET: floor_or_ceil((in + pb + pe - effective_kernel) / stride) + 1, where with ceil_mode a
//           last window that would start in the end padding is dropped (as ORT and PyTorch do);
//   VALID:  pads 0, floor((in - effective_kernel) / stride) + 1;
//   SAME_*: out = ceil(in / stride), total pad = max(0, (out-1)*stride + effective_kernel - in),
//           the odd pad goes to the end (SAME_UPPER) or the beginning (SAME_LOWER).
// Input dims < 0 are "unknown" and give output -1. Errors when a known output dim is < 1.
Result<WindowGeometry> resolve_window(const WindowParams& params, const std::vector<int64_t>& input_spatial);

// Transposed windows (ConvTranspose): output index o receives input i where
// o = i*stride - pad_begin + j*dilation. Output dims:
//   default: stride*(in-1) + output_padding + effective_kernel - pb - pe;
//   output_shape given (spatial dims only): those dims, with total pad
//           stride*(in-1) + output_padding + effective_kernel - out split as the spec says
//           (extra at the beginning, except SAME_UPPER which puts it at the end);
//   SAME_*: out = in*stride, pads split the same way.
// An output_shape larger than the full size gives pad_begin 0 and a negative pad_end: the extra
// trailing positions receive no taps.
// `output_padding` and `output_shape` may be empty (absent).
Result<WindowGeometry> resolve_transposed_window(const WindowParams& params, const std::vector<int64_t>& input_spatial,
                                                 const std::vector<int64_t>& output_padding,
                                                 const std::vector<int64_t>& output_shape);

// The size-limit policy for an output shape planned before its dtype matters
// (check_known_extent, ops/generated_size.h): negative (unknown) dims are skipped.
Status check_output_elements(const Shape& shape);

}  // namespace openge
