// Pad (constant / reflect / edge / wrap). Each output dim gets a map from output index to input
// index (-1 = the constant), so every mode is one loop; the untouched middle of each row is a
// memcpy. Negative pads crop. Pads are an attribute before opset 11 and an input from 11
// (with the constant_value input, and the axes input of opset 18).
#include <algorithm>
#include <limits>

#include "ops/shape/shape_common.h"
#include "ops/shape/shape_util.h"
#include "base/parallel.h"

namespace openge {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

struct PadSpec {
  PadMode mode = PadMode::kConstant;
  std::vector<int64_t> begin, end;  // per input dim
  Shape out_shape;
};

// Parses mode, pads (and axes) for an input of shape `in`; `known` is false when the pads or
// axes input's value is not available yet.
template <class Ctx>
Status pad_spec(const Ctx& ctx, const Shape& in, PadSpec& spec, bool& known) {
  known = true;
  const std::string mode = ctx.attrs().get_string("mode", "constant");
  if (mode == "constant")
    spec.mode = PadMode::kConstant;
  else if (mode == "reflect")
    spec.mode = PadMode::kReflect;
  else if (mode == "edge")
    spec.mode = PadMode::kEdge;
  else if (mode == "wrap")
    spec.mode = PadMode::kWrap;
  else
    return ctx.error("mode '" + mode + "' is not one of constant, reflect, edge, wrap");
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> pads, axes;
  if (ctx.opset() < 11) {
    if (!ctx.attrs().has("pads")) return ctx.error("the 'pads' attribute is required");
    pads = ctx.attrs().get_ints("pads");
  } else {
    if (!ctx.has_input(1)) return ctx.error("the 'pads' input is required");
    const Tensor* p = input_tensor(ctx, 1);
    const Tensor* a = ctx.has_input(3) ? input_tensor(ctx, 3) : nullptr;
    if (!p || (ctx.has_input(3) && !a)) {
      known = false;
      return Status::Ok();
    }
    auto v = read_ints(ctx, *p, "the 'pads' input");
    if (!v.ok()) return v.status();
    pads = std::move(*v);
    if (a) {
      auto av = read_ints(ctx, *a, "the 'axes' input");
      if (!av.ok()) return av.status();
      auto norm = normalize_axes(ctx, *av, rank, "axis");
      if (!norm.ok()) return norm.status();
      axes = std::move(*norm);
    }
  }
  if (axes.empty() && !(ctx.opset() >= 11 && ctx.has_input(3)))
    for (int64_t k = 0; k < rank; ++k) axes.push_back(k);
  if (pads.size() != 2 * axes.size())
    return ctx.error("pads has " + std::to_string(pads.size()) + " entries; expected " +
                     std::to_string(2 * axes.size()) + " (begin and end for each of " + std::to_string(axes.size()) +
                     " axes)");
  spec.begin.assign(in.size(), 0);
  spec.end.assign(in.size(), 0);
  spec.out_shape = in;
  constexpr int64_t kLimit = kShapeArithmeticBound;
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = static_cast<size_t>(axes[i]);
    const int64_t b = pads[i], e = pads[i + axes.size()];
    if (b > kLimit || e > kLimit || b < -kLimit || e < -kLimit)
      return ctx.error("pads " + shape_to_string(pads) + " are out of range");
    const int64_t d = in[a] + b + e;
    if (d < 0)
      return ctx.error("pads " + shape_to_string(pads) + " crop more than the " + std::to_string(in[a]) +
                       " elements of axis " + std::to_string(a));
    if (spec.mode != PadMode::kConstant && in[a] == 0 && d > 0)
      return ctx.error("cannot " + mode + "-pad axis " + std::to_string(a) + " of size 0");
    spec.begin[a] = b;
    spec.end[a] = e;
    spec.out_shape[a] = d;
  }
  return Status::Ok();
}

Status infer_pad(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  if (ctx.opset() >= 11 && ctx.has_input(2) && ctx.input_dtype(2) != DType::kUndefined && dt != DType::kUndefined &&
      ctx.input_dtype(2) != dt)
    return ctx.error(std::string("constant_value dtype ") + dtype_name(ctx.input_dtype(2)) +
                     " differs from data dtype " + dtype_name(dt));
  if (!input_shape_static(ctx, 0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  PadSpec spec;
  bool known = true;
  OPENGE_RETURN_IF_ERROR(pad_spec(ctx, ctx.input_shape(0), spec, known));
  if (!known) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, spec.out_shape, dt, "the output"));
  ctx.set_output(0, dt, spec.out_shape);
  return Status::Ok();
}

// Input index for output index o of a dim of size d padded by `begin`; -1 for the constant.
int64_t source_index(PadMode mode, int64_t o, int64_t begin, int64_t d) {
  const int64_t i = o - begin;
  if (i >= 0 && i < d) return i;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return i < 0 ? 0 : d - 1;
    case PadMode::kWrap:
      return ((i % d) + d) % d;
    case PadMode::kReflect: {
      if (d == 1) return 0;
      const int64_t period = 2 * (d - 1);  // NumPy's reflect repeats for pads wider than the dim
      int64_t m = ((i % period) + period) % period;
      return m < d ? m : period - m;
    }
  }
  return -1;
}

Status pad_kernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  PadSpec spec;
  bool known = true;
  OPENGE_RETURN_IF_ERROR(pad_spec(ctx, in.shape(), spec, known));
  if (out.numel() == 0) return Status::Ok();
  const size_t es = dtype_size(in.dtype());
  // The constant, as one element of the data's dtype.
  alignas(8) unsigned char value[8] = {};
  if (spec.mode == PadMode::kConstant) {
    if (ctx.opset() < 11) {
      store_scalar(in.dtype(), ctx.attrs().get_float("value", 0.0f), value);
    } else if (ctx.has_input(2) && ctx.input(2).numel() > 0) {
      if (ctx.input(2).dtype() != in.dtype()) return ctx.error("constant_value dtype differs from data dtype");
      std::memcpy(value, ctx.input(2).raw(), es);
    }
  }
  const size_t rank = in.shape().size();
  if (rank == 0) {
    std::memcpy(out.raw(), in.raw(), es);
    return Status::Ok();
  }
  std::vector<std::vector<int64_t>> map(rank);
  for (size_t k = 0; k < rank; ++k) {
    map[k].resize(static_cast<size_t>(out.shape()[k]));
    for (int64_t o = 0; o < out.shape()[k]; ++o)
      map[k][static_cast<size_t>(o)] = source_index(spec.mode, o, spec.begin[k], in.shape()[k]);
  }
  const std::vector<int64_t> in_strides = contiguous_strides(in.shape());
  const int64_t row = out.shape().back();
  const int64_t rows = out.numel() / row;
  const int64_t d_last = in.shape().back();
  // The part of each output row copied straight from the input row.
  const int64_t mid_begin = std::clamp<int64_t>(spec.begin.back(), 0, row);
  const int64_t mid_end = std::clamp<int64_t>(spec.begin.back() + d_last, mid_begin, row);
  const std::vector<int64_t>& last_map = map.back();
  const char* src = static_cast<const char*>(in.raw());
  char* dst = static_cast<char*>(out.raw());
  visit_element_size(es, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T fill = load_elem<T>(value);
    parallel_for(rows, row + 16, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        char* out_row = dst + r * row * static_cast<int64_t>(es);
        int64_t off = 0;
        bool constant_row = false;
        for (size_t k = rank - 1, rest = static_cast<size_t>(r); k-- > 0;) {
          const int64_t o = static_cast<int64_t>(rest) % out.shape()[k];
          rest /= static_cast<size_t>(out.shape()[k]);
          const int64_t m = map[k][static_cast<size_t>(o)];
          if (m < 0)
            constant_row = true;
          else
            off += m * in_strides[k];
        }
        if (constant_row) {
          for (int64_t j = 0; j < row; ++j) store_elem<T>(out_row + j * sizeof(T), fill);
          continue;
        }
        const char* in_row = src + off * static_cast<int64_t>(es);
        auto edge = [&](int64_t j) {
          const int64_t m = last_map[static_cast<size_t>(j)];
          store_elem<T>(out_row + j * sizeof(T), m < 0 ? fill : load_elem<T>(in_row + m * sizeof(T)));
        };
        for (int64_t j = 0; j < mid_begin; ++j) edge(j);
        if (mid_end > mid_begin)
          std::memcpy(out_row + mid_begin * sizeof(T), in_row + (mid_begin - spec.begin.back()) * sizeof(T),
                      static_cast<size_t>(mid_end - mid_begin) * sizeof(T));
        for (int64_t j = mid_end; j < row; ++j) edge(j);
      }
    });
  });
  return Status::Ok();
}

}  // namespace

void register_shape_pad_ops(std::vector<OpSchema>& table) {
  table.push_back({"Pad", 1, 4, 1, 1, infer_pad, pad_kernel, false});
}

}  // namespace openge
