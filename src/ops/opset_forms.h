// What changed in the default-domain ops before opset 7, as data: one row per op and opset range
// whose old form differs from the form OpenGE's kernels implement. The loader
// (src/frontend/old_opset_forms.cpp) applies the rows of a model's opset to each node, turning
// the old form into an equivalent current one, or refusing it with one error naming the node, the
// op and the opset. An op with no row here means the same at every opset ONNX defines it, or its
// kernel reads ctx.opset() itself (Reshape's shape attribute, Slice/Pad/Clip/TopK attributes,
// Upsample's scales, Softmax's axis, BatchNormalization's spatial …).
#pragma once
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ops/op_registry.h"

namespace openge {

enum class OldFormKind {
  kIgnoredAttribute,          // no effect on results (consumed_inputs: a memory-reuse hint): removed
  kDefaultAttribute,          // optional then, required now: `value` is set when the model omits it
  kDefaultFloatAttribute,     // a float attribute whose default was `float_value` then
  kRenamedAttribute,          // same meaning under the name `detail`
  kTypeNameAttribute,         // a data type given by name ("FLOAT") where later opsets give the enum
  kLegacyBroadcast,           // broadcast/axis of the binary ops: equal shapes, or B aligned at axis
  kTestModeOnly,              // `attribute` must be non-zero: training mode (0) draws a random mask
  kTestModeAsTraining,        // is_test = 0 selects batch statistics: becomes training_mode = 1
  kSlopeOfOneValue,           // PRelu: opset < 7 does not say how a slope broadcasts; one value only
  kUpsampleScales,            // height_scale/width_scale and "bilinear" of Upsample-1
  kConstantInputToAttribute,  // input `value` given as a constant becomes attribute `attribute`;
                              // a computed one is refused (`detail` says why)
  kNotSupported,              // an old form OpenGE does not run (with more than `value` inputs when
                              // `value` > 0); `detail` says why
};

struct OldOpsetForm {
  std::string_view op_type;
  int64_t first_opset = 1;
  int64_t last_opset = 6;
  OldFormKind kind = OldFormKind::kIgnoredAttribute;
  std::string_view attribute;
  std::string_view detail;
  int64_t value = 0;
  float float_value = 0.0f;
};

std::span<const OldOpsetForm> all_old_opset_forms();
// The rows that apply to `op_type` at `opset`, in table order.
std::vector<const OldOpsetForm*> old_opset_forms(std::string_view op_type, int64_t opset);

// The internal op the kLegacyBroadcast rows need (domain "openge").
constexpr std::string_view kLegacyAxisAlign = "LegacyAxisAlign";
void register_old_form_ops(std::vector<OpSchema>& table);

}  // namespace openge
