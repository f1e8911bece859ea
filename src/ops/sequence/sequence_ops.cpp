// Sequences and optionals: SequenceConstruct, SequenceEmpty, SequenceAt, SequenceInsert,
// SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence, Optional,
// OptionalHasElement, OptionalGetElement.
//
// A sequence or optional is a Tensor of that kind (openge/tensor.h) whose elements are owned,
// shared and never modified: an op that "changes" a sequence makes a new one holding the same
// element tensors, so nothing is copied but the list. Tensors taken from inputs are cloned when
// they go into a sequence (an input may be a view of the run's arena, reused after the node).
// A sequence-valued output has no shape: infer says its kind and element type
// (set_output_kind), the kernel assigns the whole value. A tensor taken out of a sequence gets
// its shape from the element at run time.
#include <cstring>
#include <string>
#include <vector>

#include "base/size_limit.h"
#include "ops/op_registry.h"

namespace openge {
namespace {

Status require_kind(const InferContext& ctx, size_t i, ValueKind kind) {
  if (!ctx.has_input(i)) return ctx.error("input " + std::to_string(i) + " is missing");
  if (ctx.input_kind(i) != kind)
    return ctx.error("input " + std::to_string(i) + " must be a " + value_kind_name(kind) + ", got a " +
                     value_kind_name(ctx.input_kind(i)));
  return Status::Ok();
}

Status require_tensor(const InferContext& ctx, size_t i) { return require_kind(ctx, i, ValueKind::kTensor); }

// A position input (int32 / int64 scalar or one-element tensor), when its value is known.
Status read_position(const InferContext& ctx, size_t i, const Tensor** value) {
  *value = nullptr;
  if (!ctx.has_input(i)) return Status::Ok();
  OPENGE_RETURN_IF_ERROR(require_tensor(ctx, i));
  const DType t = ctx.input_dtype(i);
  if (t != DType::kInt32 && t != DType::kInt64)
    return ctx.error("the position (input " + std::to_string(i) + ") must be int32 or int64, got " + dtype_name(t));
  if (ctx.input_shape_known(i) && shape_numel(ctx.input_shape(i)) != 1)
    return ctx.error("the position (input " + std::to_string(i) + ") must hold one element, got shape " +
                     shape_to_string(ctx.input_shape(i)));
  *value = ctx.input_value(i);
  return Status::Ok();
}

// `pos` in [-n, n - 1] (or [-n, n] when `may_be_end`), normalised; an error outside.
Status normalize_position(const InferContext& ctx, int64_t pos, int64_t n, bool may_be_end, int64_t* out) {
  const int64_t hi = may_be_end ? n : n - 1;
  if (pos < -n || pos > hi)
    return ctx.error("position " + std::to_string(pos) + " is out of range for a sequence of " + std::to_string(n) +
                     " tensors (valid: " + std::to_string(-n) + " to " + std::to_string(hi) + ")");
  *out = pos < 0 ? pos + n : pos;
  return Status::Ok();
}

// Copies a tensor's data into an output already allocated with its shape and dtype.
void copy_into(const Tensor& src, Tensor& dst) {
  if (src.dtype() == DType::kString) {
    std::copy(src.data<std::string>(), src.data<std::string>() + src.numel(), dst.data<std::string>());
    return;
  }
  if (src.nbytes()) std::memcpy(dst.raw(), src.raw(), src.nbytes());
}

const std::vector<Tensor>& elements_of(const KernelContext& ctx, size_t i) { return ctx.input(i).elements(); }

// ---- SequenceConstruct / SequenceEmpty -------------------------------------------------------

Status sequence_construct_infer(InferContext& ctx) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    OPENGE_RETURN_IF_ERROR(require_tensor(ctx, i));
    if (ctx.input_dtype(i) != ctx.input_dtype(0))
      return ctx.error("every input must have the same dtype; input 0 is " +
                       std::string(dtype_name(ctx.input_dtype(0))) + ", input " + std::to_string(i) + " is " +
                       dtype_name(ctx.input_dtype(i)));
  }
  ctx.set_output_kind(0, ValueKind::kSequence, ctx.input_dtype(0));
  return Status::Ok();
}

Status sequence_construct_kernel(KernelContext& ctx) {
  std::vector<Tensor> elements;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) elements.push_back(ctx.input(i).clone());
  ctx.output(0) = Tensor::sequence(ctx.input(0).dtype(), std::move(elements));
  return Status::Ok();
}

DType sequence_empty_dtype(const Attributes& attrs) {
  return static_cast<DType>(attrs.get_int("dtype", static_cast<int64_t>(DType::kFloat32)));
}

Status sequence_empty_infer(InferContext& ctx) {
  const DType dtype = sequence_empty_dtype(ctx.attrs());
  if (!dtype_supported(dtype) && dtype != DType::kString)
    return ctx.error("attribute dtype " + std::to_string(static_cast<int>(dtype)) + " is not a type OpenGE holds");
  ctx.set_output_kind(0, ValueKind::kSequence, dtype);
  return Status::Ok();
}

Status sequence_empty_kernel(KernelContext& ctx) {
  ctx.output(0) = Tensor::sequence(sequence_empty_dtype(ctx.attrs()), {});
  return Status::Ok();
}

// ---- SequenceAt / SequenceLength -------------------------------------------------------------

Status sequence_at_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(require_kind(ctx, 0, ValueKind::kSequence));
  const Tensor* pos = nullptr;
  OPENGE_RETURN_IF_ERROR(read_position(ctx, 1, &pos));
  const Tensor* seq = ctx.input_value(0);
  if (!seq || !pos) {
    ctx.set_output_dtype(0, ctx.input_dtype(0));
    return Status::Ok();
  }
  int64_t index = 0;
  OPENGE_RETURN_IF_ERROR(
      normalize_position(ctx, pos->scalar_as_int(), static_cast<int64_t>(seq->elements().size()), false, &index));
  const Tensor& element = seq->elements()[static_cast<size_t>(index)];
  ctx.set_output(0, element.dtype(), element.shape());
  return Status::Ok();
}

Status sequence_at_kernel(KernelContext& ctx) {
  const std::vector<Tensor>& elements = elements_of(ctx, 0);
  const int64_t n = static_cast<int64_t>(elements.size());
  int64_t pos = ctx.input(1).scalar_as_int();
  if (pos < -n || pos >= n) return ctx.error("position " + std::to_string(pos) + " is out of range");
  if (pos < 0) pos += n;
  const Tensor& element = elements[static_cast<size_t>(pos)];
  if (element.shape() != ctx.output(0).shape()) return ctx.error("the element's shape changed after inference");
  copy_into(element, ctx.output(0));
  return Status::Ok();
}

Status sequence_length_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(require_kind(ctx, 0, ValueKind::kSequence));
  ctx.set_output(0, DType::kInt64, {});
  return Status::Ok();
}

Status sequence_length_kernel(KernelContext& ctx) {
  *ctx.output(0).data<int64_t>() = static_cast<int64_t>(elements_of(ctx, 0).size());
  return Status::Ok();
}

// ---- SequenceInsert / SequenceErase ----------------------------------------------------------

Status sequence_insert_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(require_kind(ctx, 0, ValueKind::kSequence));
  OPENGE_RETURN_IF_ERROR(require_tensor(ctx, 1));
  if (ctx.input_dtype(1) != ctx.input_dtype(0))
    return ctx.error(std::string("the tensor is ") + dtype_name(ctx.input_dtype(1)) + " but the sequence holds " +
                     dtype_name(ctx.input_dtype(0)));
  const Tensor* pos = nullptr;
  OPENGE_RETURN_IF_ERROR(read_position(ctx, 2, &pos));
  ctx.set_output_kind(0, ValueKind::kSequence, ctx.input_dtype(0));
  return Status::Ok();
}

// Reads the position of a kernel's input `i` (default `fallback`), normalised like infer does.
Status kernel_position(KernelContext& ctx, size_t i, int64_t n, bool may_be_end, int64_t fallback, int64_t* out) {
  int64_t pos = ctx.has_input(i) ? ctx.input(i).scalar_as_int() : fallback;
  const int64_t hi = may_be_end ? n : n - 1;
  if (pos < -n || pos > hi)
    return ctx.error("position " + std::to_string(pos) + " is out of range for a sequence of " + std::to_string(n) +
                     " tensors (valid: " + std::to_string(-n) + " to " + std::to_string(hi) + ")");
  *out = pos < 0 ? pos + n : pos;
  return Status::Ok();
}

Status sequence_insert_kernel(KernelContext& ctx) {
  std::vector<Tensor> elements = elements_of(ctx, 0);
  const int64_t n = static_cast<int64_t>(elements.size());
  int64_t pos = 0;
  OPENGE_RETURN_IF_ERROR(kernel_position(ctx, 2, n, true, n, &pos));
  elements.insert(elements.begin() + pos, ctx.input(1).clone());
  ctx.output(0) = Tensor::sequence(ctx.input(0).dtype(), std::move(elements));
  return Status::Ok();
}

Status sequence_erase_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(require_kind(ctx, 0, ValueKind::kSequence));
  const Tensor* pos = nullptr;
  OPENGE_RETURN_IF_ERROR(read_position(ctx, 1, &pos));
  ctx.set_output_kind(0, ValueKind::kSequence, ctx.input_dtype(0));
  return Status::Ok();
}

Status sequence_erase_kernel(KernelContext& ctx) {
  std::vector<Tensor> elements = elements_of(ctx, 0);
  const int64_t n = static_cast<int64_t>(elements.size());
  if (n == 0) return ctx.error("cannot erase from an empty sequence");
  int64_t pos = 0;
  OPENGE_RETURN_IF_ERROR(kernel_position(ctx, 1, n, false, n - 1, &pos));
  elements.erase(elements.begin() + pos);
  ctx.output(0) = Tensor::sequence(ctx.input(0).dtype(), std::move(elements));
  return Status::Ok();
}

// ---- SplitToSequence -------------------------------------------------------------------------

// The lengths of the pieces along the axis: split absent (pieces of 1), a scalar (pieces of that
// size, the last one shorter), or a 1-D list (which must add up to the axis).
// Every piece is a tensor of its own (a header and at least one 64-byte block): their number is
// checked against the size limit before any is made.
Status check_piece_count(const std::string& label, int64_t count) {
  return check_tensor_size({count}, sizeof(Tensor) + 64,
                           label + ": the sequence of " + std::to_string(count) + " pieces");
}

Status split_lengths(const std::string& label, const Tensor* split, int64_t dim, std::vector<int64_t>* lengths) {
  lengths->clear();
  if (!split) {
    OPENGE_RETURN_IF_ERROR(check_piece_count(label, dim));
    lengths->assign(static_cast<size_t>(dim), 1);
    return Status::Ok();
  }
  if (split->rank() == 0) {
    const int64_t size = split->scalar_as_int();
    if (size <= 0) return invalid_argument(label + ": split must be positive, got " + std::to_string(size));
    OPENGE_RETURN_IF_ERROR(check_piece_count(label, dim / size + 1));
    for (int64_t start = 0; start < dim; start += size) lengths->push_back(std::min(size, dim - start));
    return Status::Ok();
  }
  if (split->rank() != 1)
    return invalid_argument(label + ": split must be a scalar or 1-D, got shape " + shape_to_string(split->shape()));
  OPENGE_RETURN_IF_ERROR(check_piece_count(label, split->numel()));
  int64_t total = 0;
  for (int64_t v : split->to_int64_vector()) {
    if (v < 0) return invalid_argument(label + ": split lengths must not be negative, got " + std::to_string(v));
    total += v;
    if (total > dim) break;
    lengths->push_back(v);
  }
  if (total != dim || static_cast<int64_t>(lengths->size()) != split->numel())
    return invalid_argument(label + ": the split lengths must add up to " + std::to_string(dim) +
                            ", the size of the axis");
  return Status::Ok();
}

Status split_to_sequence_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(require_tensor(ctx, 0));
  if (ctx.has_input(1)) {
    OPENGE_RETURN_IF_ERROR(require_tensor(ctx, 1));
    if (ctx.input_dtype(1) != DType::kInt32 && ctx.input_dtype(1) != DType::kInt64)
      return ctx.error(std::string("split must be int32 or int64, got ") + dtype_name(ctx.input_dtype(1)));
  }
  if (ctx.input_shape_known(0)) {
    const int64_t rank = static_cast<int64_t>(ctx.input_shape(0).size());
    const int64_t axis = ctx.attrs().get_int("axis", 0);
    if (axis < -rank || axis >= rank)
      return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  ctx.set_output_kind(0, ValueKind::kSequence, ctx.input_dtype(0));
  return Status::Ok();
}

Status split_to_sequence_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int64_t rank = x.rank();
  int64_t axis = ctx.attrs().get_int("axis", 0);
  if (axis < -rank || axis >= rank) return ctx.error("axis " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += rank;
  const Tensor* split = ctx.has_input(1) ? &ctx.input(1) : nullptr;
  const bool squeeze = !split && ctx.attrs().get_int("keepdims", 1) == 0;
  std::vector<int64_t> lengths;
  OPENGE_RETURN_IF_ERROR(
      split_lengths(ctx.node().op_type + " '" + ctx.node().name + "'", split, x.dim(axis), &lengths));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.dim(d);
  const size_t elem = x.dtype() == DType::kString ? 0 : dtype_size(x.dtype());
  std::vector<Tensor> pieces;
  int64_t start = 0;
  for (int64_t len : lengths) {
    Shape shape = x.shape();
    shape[static_cast<size_t>(axis)] = len;
    if (squeeze) shape.erase(shape.begin() + axis);
    Tensor piece(x.dtype(), shape);
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t src = (o * x.dim(axis) + start) * inner, dst = o * len * inner, count = len * inner;
      if (x.dtype() == DType::kString)
        std::copy(x.data<std::string>() + src, x.data<std::string>() + src + count, piece.data<std::string>() + dst);
      else if (count)
        std::memcpy(static_cast<char*>(piece.raw()) + dst * elem, static_cast<const char*>(x.raw()) + src * elem,
                    static_cast<size_t>(count) * elem);
    }
    pieces.push_back(std::move(piece));
    start += len;
  }
  ctx.output(0) = Tensor::sequence(x.dtype(), std::move(pieces));
  return Status::Ok();
}

// ---- ConcatFromSequence ----------------------------------------------------------------------

// The output shape, checked: every element has the first one's shape except along `axis`
// (new_axis = 0), or exactly its shape (new_axis = 1: stacked along a new axis).
Status concat_shape(const InferContext& ctx, const std::vector<Tensor>& elements, int64_t* axis_out, Shape* shape) {
  if (elements.empty()) return ctx.error("cannot concatenate an empty sequence (the output's shape is unknown)");
  const bool new_axis = ctx.attrs().get_int("new_axis", 0) != 0;
  const Attribute* axis_attr = ctx.attrs().find("axis");
  if (!axis_attr) return ctx.error("attribute 'axis' is required");
  const Shape& first = elements.front().shape();
  const int64_t rank = static_cast<int64_t>(first.size()) + (new_axis ? 1 : 0);
  int64_t axis = axis_attr->i;
  if (axis < -rank || axis >= rank || rank == 0)
    return ctx.error("axis " + std::to_string(axis) + " is out of range for " + std::to_string(rank) + "-D output");
  if (axis < 0) axis += rank;
  int64_t total = 0;
  for (size_t e = 0; e < elements.size(); ++e) {
    const Shape& s = elements[e].shape();
    // Stacked: identical shapes. Concatenated: identical but along the axis.
    bool same = s.size() == first.size();
    for (size_t d = 0; same && d < s.size(); ++d)
      same = (!new_axis && static_cast<int64_t>(d) == axis) || s[d] == first[d];
    if (!same)
      return ctx.error("element " + std::to_string(e) + " has shape " + shape_to_string(s) +
                       ", incompatible with element 0's " + shape_to_string(first));
    total += new_axis ? 1 : s[static_cast<size_t>(axis)];
  }
  *shape = first;
  if (new_axis)
    shape->insert(shape->begin() + axis, total);
  else
    (*shape)[static_cast<size_t>(axis)] = total;
  *axis_out = axis;
  return check_tensor_size(
      *shape, elements.front().dtype() == DType::kString ? sizeof(std::string) : dtype_size(elements.front().dtype()),
      ctx.node().op_type + " '" + ctx.node().name + "': output");
}

Status concat_from_sequence_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(require_kind(ctx, 0, ValueKind::kSequence));
  if (!ctx.attrs().find("axis")) return ctx.error("attribute 'axis' is required");
  const Tensor* seq = ctx.input_value(0);
  if (!seq) {
    ctx.set_output_dtype(0, ctx.input_dtype(0));
    return Status::Ok();
  }
  int64_t axis = 0;
  Shape shape;
  OPENGE_RETURN_IF_ERROR(concat_shape(ctx, seq->elements(), &axis, &shape));
  ctx.set_output(0, ctx.input_dtype(0), shape);
  return Status::Ok();
}

Status concat_from_sequence_kernel(KernelContext& ctx) {
  const std::vector<Tensor>& elements = elements_of(ctx, 0);
  Tensor& y = ctx.output(0);
  int64_t axis = ctx.attrs().get_int("axis", 0);
  if (elements.empty()) return ctx.error("cannot concatenate an empty sequence");
  if (axis < 0) axis += y.rank();
  if (axis < 0 || axis >= y.rank()) return ctx.error("axis is out of range");
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= y.dim(d);
  const int64_t y_row = y.numel() / std::max<int64_t>(outer, 1);  // elements per outer index in y
  const size_t elem = y.dtype() == DType::kString ? 0 : dtype_size(y.dtype());
  int64_t offset = 0;
  for (const Tensor& t : elements) {
    if (t.dtype() != y.dtype()) return ctx.error("an element's dtype differs from the sequence's");
    const int64_t row = outer ? t.numel() / outer : 0;  // this element's elements per outer index
    if (outer * row != t.numel() || offset + row > y_row) return ctx.error("element shapes changed after inference");
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t src = o * row, dst = o * y_row + offset;
      if (y.dtype() == DType::kString)
        std::copy(t.data<std::string>() + src, t.data<std::string>() + src + row, y.data<std::string>() + dst);
      else if (row)
        std::memcpy(static_cast<char*>(y.raw()) + dst * elem, static_cast<const char*>(t.raw()) + src * elem,
                    static_cast<size_t>(row) * elem);
    }
    offset += row;
  }
  return Status::Ok();
}

// ---- Optional / OptionalHasElement / OptionalGetElement --------------------------------------

bool is_optional(ValueKind k) { return k == ValueKind::kOptional || k == ValueKind::kOptionalSequence; }

Status optional_infer(InferContext& ctx) {
  if (ctx.has_input(0)) {
    const ValueKind in = ctx.input_kind(0);
    if (is_optional(in)) return ctx.error("input 0 is already an optional; Optional takes a tensor or a sequence");
    ctx.set_output_kind(0, in == ValueKind::kSequence ? ValueKind::kOptionalSequence : ValueKind::kOptional,
                        ctx.input_dtype(0));
    return Status::Ok();
  }
  const Attribute* type = ctx.attrs().find("type");
  if (!type || type->kind != Attribute::Kind::kType)
    return ctx.error("an Optional without input needs the attribute 'type'");
  if (is_optional(type->type_kind)) return ctx.error("attribute 'type' must be a tensor or sequence type");
  ctx.set_output_kind(0, type->type_kind == ValueKind::kSequence ? ValueKind::kOptionalSequence : ValueKind::kOptional,
                      type->type_dtype);
  return Status::Ok();
}

Status optional_kernel(KernelContext& ctx) {
  if (!ctx.has_input(0)) {
    const Attribute* type = ctx.attrs().find("type");
    const bool of_sequence = type && type->type_kind == ValueKind::kSequence;
    ctx.output(0) = Tensor::optional(of_sequence ? ValueKind::kOptionalSequence : ValueKind::kOptional,
                                     type ? type->type_dtype : DType::kUndefined, Tensor());
    return Status::Ok();
  }
  const Tensor& x = ctx.input(0);
  const ValueKind kind = x.kind() == ValueKind::kSequence ? ValueKind::kOptionalSequence : ValueKind::kOptional;
  ctx.output(0) = Tensor::optional(kind, x.dtype(), x.clone());
  return Status::Ok();
}

Status optional_has_element_infer(InferContext& ctx) {
  // Opset 18 also takes a plain tensor or sequence (always present) and no input at all.
  if (ctx.has_input(0) && !is_optional(ctx.input_kind(0)) && ctx.opset() < 18)
    return ctx.error("input 0 must be an optional, got a " + std::string(value_kind_name(ctx.input_kind(0))));
  if (!ctx.has_input(0) && ctx.opset() < 18) return ctx.error("input 0 is missing");
  ctx.set_output(0, DType::kBool, {});
  return Status::Ok();
}

Status optional_has_element_kernel(KernelContext& ctx) {
  bool has = ctx.has_input(0);
  if (has && is_optional(ctx.input(0).kind())) has = !ctx.input(0).elements().empty();
  *ctx.output(0).data<bool>() = has;
  return Status::Ok();
}

Status optional_get_element_infer(InferContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("input 0 is missing");
  const ValueKind in = ctx.input_kind(0);
  if (!is_optional(in) && ctx.opset() < 18)
    return ctx.error("input 0 must be an optional, got a " + std::string(value_kind_name(in)));
  const bool sequence = in == ValueKind::kOptionalSequence || in == ValueKind::kSequence;
  if (sequence) {
    ctx.set_output_kind(0, ValueKind::kSequence, ctx.input_dtype(0));
    return Status::Ok();
  }
  const Tensor* value = ctx.input_value(0);
  if (in == ValueKind::kTensor) {  // opset 18: a tensor passes through
    if (ctx.input_shape_known(0))
      ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
    else
      ctx.set_output_dtype(0, ctx.input_dtype(0));
    return Status::Ok();
  }
  if (!value) {
    ctx.set_output_dtype(0, ctx.input_dtype(0));
    return Status::Ok();
  }
  if (value->elements().empty()) return ctx.error("the optional is empty (check it with OptionalHasElement first)");
  ctx.set_output(0, value->elements().front().dtype(), value->elements().front().shape());
  return Status::Ok();
}

Status optional_get_element_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.kind() == ValueKind::kTensor) {
    copy_into(x, ctx.output(0));
    return Status::Ok();
  }
  if (x.kind() == ValueKind::kSequence) {
    ctx.output(0) = x;
    return Status::Ok();
  }
  if (x.elements().empty()) return ctx.error("the optional is empty (check it with OptionalHasElement first)");
  const Tensor& value = x.elements().front();
  if (value.kind() == ValueKind::kSequence) {
    ctx.output(0) = value;
    return Status::Ok();
  }
  if (value.shape() != ctx.output(0).shape()) return ctx.error("the optional's shape changed after inference");
  copy_into(value, ctx.output(0));
  return Status::Ok();
}

}  // namespace

void register_sequence_ops(std::vector<OpSchema>& table) {
  constexpr int kAny = -1;
  auto row = [](std::string_view op, int min_in, int max_in, InferFn infer, KernelFn kernel) {
    OpSchema s{op, min_in, max_in, 1, 1, infer, kernel};
    s.takes_any_value = true;
    return s;
  };
  table.push_back(row("SequenceConstruct", 1, kAny, sequence_construct_infer, sequence_construct_kernel));
  table.push_back(row("SequenceEmpty", 0, 0, sequence_empty_infer, sequence_empty_kernel));
  table.push_back(row("SequenceAt", 2, 2, sequence_at_infer, sequence_at_kernel));
  table.push_back(row("SequenceLength", 1, 1, sequence_length_infer, sequence_length_kernel));
  table.push_back(row("SequenceInsert", 2, 3, sequence_insert_infer, sequence_insert_kernel));
  table.push_back(row("SequenceErase", 1, 2, sequence_erase_infer, sequence_erase_kernel));
  table.push_back(row("SplitToSequence", 1, 2, split_to_sequence_infer, split_to_sequence_kernel));
  table.push_back(row("ConcatFromSequence", 1, 1, concat_from_sequence_infer, concat_from_sequence_kernel));
  table.push_back(row("Optional", 0, 1, optional_infer, optional_kernel));
  table.push_back(row("OptionalHasElement", 0, 1, optional_has_element_infer, optional_has_element_kernel));
  table.push_back(row("OptionalGetElement", 1, 1, optional_get_element_infer, optional_get_element_kernel));
}

}  // namespace openge
