// The table of old (opset < 7) op forms, and LegacyAxisAlign, the op that gives the old
// "broadcast = 1, axis = k" binary ops their meaning under NumPy broadcasting.
#include "ops/opset_forms.h"

#include <array>

#include "ops/shape/shape_common.h"

namespace openge {
namespace {

using K = OldFormKind;

// consumed_inputs (opsets 1-5) told a runtime which inputs it may overwrite; results never depended on it.
#define OPENGE_CONSUMED_INPUTS(op) \
  { op, 1, 5, K::kIgnoredAttribute, "consumed_inputs", "", 0 }
// broadcast / axis of the binary ops (opsets 1-6), before NumPy broadcasting.
#define OPENGE_LEGACY_BROADCAST(op) \
  { op, 1, 6, K::kLegacyBroadcast, "broadcast", "", 0 }

constexpr auto kOldForms = std::to_array<OldOpsetForm>({
    OPENGE_CONSUMED_INPUTS("Abs"),
    OPENGE_CONSUMED_INPUTS("Add"),
    OPENGE_CONSUMED_INPUTS("BatchNormalization"),
    OPENGE_CONSUMED_INPUTS("Ceil"),
    OPENGE_CONSUMED_INPUTS("Clip"),
    OPENGE_CONSUMED_INPUTS("Div"),
    OPENGE_CONSUMED_INPUTS("Dropout"),
    OPENGE_CONSUMED_INPUTS("Elu"),
    OPENGE_CONSUMED_INPUTS("Exp"),
    OPENGE_CONSUMED_INPUTS("Floor"),
    OPENGE_CONSUMED_INPUTS("HardSigmoid"),
    OPENGE_CONSUMED_INPUTS("InstanceNormalization"),
    OPENGE_CONSUMED_INPUTS("LeakyRelu"),
    OPENGE_CONSUMED_INPUTS("Log"),
    OPENGE_CONSUMED_INPUTS("Max"),
    OPENGE_CONSUMED_INPUTS("Mean"),
    OPENGE_CONSUMED_INPUTS("Min"),
    OPENGE_CONSUMED_INPUTS("Mul"),
    OPENGE_CONSUMED_INPUTS("Neg"),
    OPENGE_CONSUMED_INPUTS("PRelu"),
    OPENGE_CONSUMED_INPUTS("Reciprocal"),
    OPENGE_CONSUMED_INPUTS("Relu"),
    OPENGE_CONSUMED_INPUTS("Selu"),
    OPENGE_CONSUMED_INPUTS("Sigmoid"),
    OPENGE_CONSUMED_INPUTS("Sqrt"),
    OPENGE_CONSUMED_INPUTS("Sub"),
    OPENGE_CONSUMED_INPUTS("Sum"),
    OPENGE_CONSUMED_INPUTS("Tanh"),
    {"Reshape", 1, 4, K::kIgnoredAttribute, "consumed_inputs", "", 0},  // Reshape-5 dropped it a version early

    OPENGE_LEGACY_BROADCAST("Add"),
    OPENGE_LEGACY_BROADCAST("Sub"),
    OPENGE_LEGACY_BROADCAST("Mul"),
    OPENGE_LEGACY_BROADCAST("Div"),
    OPENGE_LEGACY_BROADCAST("Pow"),
    OPENGE_LEGACY_BROADCAST("And"),
    OPENGE_LEGACY_BROADCAST("Or"),
    OPENGE_LEGACY_BROADCAST("Xor"),
    OPENGE_LEGACY_BROADCAST("Equal"),
    OPENGE_LEGACY_BROADCAST("Greater"),
    OPENGE_LEGACY_BROADCAST("Less"),
    // Gemm's C: broadcast = 0 wanted [M, N], broadcast = 1 a scalar, [N] or [M, N]; the
    // unidirectional broadcasting of opset 7 gives the same result for every one of them.
    {"Gemm", 1, 6, K::kIgnoredAttribute, "broadcast", "", 0},
    // output_sequence = 0 only allowed a runtime to skip the optional Y output.
    {"RNN", 1, 6, K::kIgnoredAttribute, "output_sequence", "", 0},
    {"GRU", 1, 6, K::kIgnoredAttribute, "output_sequence", "", 0},
    {"LSTM", 1, 6, K::kIgnoredAttribute, "output_sequence", "", 0},

    {"Concat", 1, 3, K::kDefaultAttribute, "axis", "", 1},
    // Selu-1's defaults were 4-digit roundings of Selu-6's.
    {"Selu", 1, 5, K::kDefaultFloatAttribute, "alpha", "", 0, 1.6732f},
    {"Selu", 1, 5, K::kDefaultFloatAttribute, "gamma", "", 0, 1.0507f},
    {"Pad", 1, 1, K::kRenamedAttribute, "paddings", "pads", 0},
    {"Cast", 1, 5, K::kTypeNameAttribute, "to", "", 0},
    {"Dropout", 1, 6, K::kTestModeOnly, "is_test",
     "is_test = 0 is training mode, which drops a random part of the input; an inference engine "
     "runs is_test = 1 (set it in the model)",
     0},
    {"BatchNormalization", 1, 6, K::kTestModeAsTraining, "is_test", "", 0},
    {"PRelu", 1, 6, K::kSlopeOfOneValue, "", "", 0},
    {"Upsample", 1, 6, K::kUpsampleScales, "", "", 0},
    {"Split", 1, 1, K::kConstantInputToAttribute, "split",
     "the split sizes must be a constant when given as the second input (Split-1); give them as the "
     "'split' attribute or re-export",
     1},
    {"Tile", 1, 5, K::kNotSupported, "",
     "Tile before opset 6 repeats along one axis given by an input, which OpenGE does not run; "
     "re-export with opset >= 6 (a repeats input per axis)",
     0},
});

#undef OPENGE_CONSUMED_INPUTS
#undef OPENGE_LEGACY_BROADCAST

// LegacyAxisAlign(B, A; axis): B's data with trailing 1-dims so that NumPy broadcasting puts
// B's first dim at A's `axis` (rank(A) - axis - rank(B) of them), as the old broadcast = 1 did.
Result<Shape> aligned_shape(const InferContext& ctx, const Shape& b, size_t a_rank) {
  const int64_t rank = static_cast<int64_t>(a_rank);
  int64_t axis = ctx.attrs().get_int("axis", 0);
  if (axis < 0) axis += rank;
  const int64_t trailing = rank - axis - static_cast<int64_t>(b.size());
  if (axis < 0 || trailing < 0)
    return ctx.error("broadcast axis " + std::to_string(ctx.attrs().get_int("axis", 0)) + " of " +
                     ctx.attrs().get_string("aligns_for", "the next node") + " puts B of shape " + shape_to_string(b) +
                     " outside A of rank " + std::to_string(rank));
  Shape out = b;
  out.insert(out.end(), static_cast<size_t>(trailing), 1);
  return out;
}

Status infer_legacy_axis_align(InferContext& ctx) {
  const DType dt = ctx.input_dtype(0);
  if (!input_shape_static(ctx, 0) || !ctx.input_shape_known(1)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  auto shape = aligned_shape(ctx, ctx.input_shape(0), ctx.input_shape(1).size());
  if (!shape.ok()) return shape.status();
  if (const Tensor* b = ctx.input_value(0))
    ctx.set_output_value(0, b->reshaped(*shape));
  else
    ctx.set_output(0, dt, *shape);
  return Status::Ok();
}

// Used only when the executor does not alias the output to B.
Status legacy_axis_align_kernel(KernelContext& ctx) {
  copy_bytes(ctx.output(0).raw(), ctx.input(0).raw(), ctx.output(0).nbytes());
  return Status::Ok();
}

}  // namespace

std::span<const OldOpsetForm> all_old_opset_forms() { return kOldForms; }

std::vector<const OldOpsetForm*> old_opset_forms(std::string_view op_type, int64_t opset) {
  std::vector<const OldOpsetForm*> rows;
  for (const OldOpsetForm& f : kOldForms)
    if (f.op_type == op_type && opset >= f.first_opset && opset <= f.last_opset) rows.push_back(&f);
  return rows;
}

void register_old_form_ops(std::vector<OpSchema>& table) {
  table.push_back({kLegacyAxisAlign, 2, 2, 1, 1, infer_legacy_axis_align, legacy_axis_align_kernel, true});
}

}  // namespace openge
