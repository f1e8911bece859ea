#include "ops/elementwise/elementwise_common.h"

#include <cstring>

#include "base/parallel.h"

namespace openge::elementwise {

std::string dtype_set_names(DTypeSet set) {
  std::string names;
  for (int n = 0; n < 32; ++n) {
    const DType t = static_cast<DType>(n);
    if ((set & dtype_bit(t)) == 0 || !dtype_supported(t)) continue;
    if (!names.empty()) names += ", ";
    names += dtype_name(t);
  }
  return names;
}

Status check_input_dtype(const InferContext& ctx, size_t i, DTypeSet allowed) {
  if (!ctx.has_input(i)) return Status::Ok();
  const DType t = ctx.input_dtype(i);
  if ((allowed & dtype_bit(t)) != 0) return Status::Ok();
  return ctx.error("input " + std::to_string(i) + " has dtype " + dtype_name(t) + "; " + ctx.node().op_type +
                   " takes " + dtype_set_names(allowed));
}

Status check_same_dtype(const InferContext& ctx, size_t i, size_t j) {
  if (!ctx.has_input(i) || !ctx.has_input(j) || ctx.input_dtype(i) == ctx.input_dtype(j)) return Status::Ok();
  return ctx.error("inputs " + std::to_string(i) + " and " + std::to_string(j) + " must have the same dtype, got " +
                   dtype_name(ctx.input_dtype(i)) + " and " + dtype_name(ctx.input_dtype(j)));
}

std::optional<Shape> broadcast_all(const std::vector<const Shape*>& shapes) {
  size_t rank = 0;
  for (const Shape* s : shapes) rank = std::max(rank, s->size());
  Shape out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    bool unknown = false;
    for (const Shape* s : shapes) {
      if (i < rank - s->size()) continue;  // implicit leading 1
      const int64_t d = (*s)[i - (rank - s->size())];
      if (d < 0)
        unknown = true;
      else if (d != 1) {
        if (out[i] != 1 && out[i] != d) return std::nullopt;
        out[i] = d;
      }
    }
    // An unknown dim is either 1 or the known one; with no known dim > 1 it stays unknown.
    if (unknown && out[i] == 1) out[i] = -1;
  }
  return out;
}

Status infer_broadcast(InferContext& ctx, size_t first, size_t count, DType out_dtype) {
  std::vector<const Shape*> shapes;
  for (size_t i = first; i < first + count; ++i) {
    if (!ctx.has_input(i)) continue;
    if (!ctx.input_shape_known(i)) {
      ctx.set_output_dtype(0, out_dtype);
      return Status::Ok();
    }
    shapes.push_back(&ctx.input_shape(i));
  }
  std::optional<Shape> out = broadcast_all(shapes);
  if (!out) {
    std::string list;
    for (const Shape* s : shapes) list += (list.empty() ? "" : " and ") + shape_to_string(*s);
    return ctx.error("input shapes " + list + " do not broadcast");
  }
  ctx.set_output(0, out_dtype, std::move(*out));
  return Status::Ok();
}

void infer_like_input0(InferContext& ctx, size_t out, DType dtype) {
  if (ctx.input_shape_known(0))
    ctx.set_output(out, dtype, ctx.input_shape(0));
  else
    ctx.set_output_dtype(out, dtype);
}

void copy_bytes(void* dst, const void* src, size_t bytes) {
  if (dst == src || bytes == 0) return;
  constexpr int64_t kBlock = 1 << 16;
  const int64_t blocks = (static_cast<int64_t>(bytes) + kBlock - 1) / kBlock;
  parallel_for(blocks, kBlock / 8, [&](int64_t begin, int64_t end) {
    const size_t from = static_cast<size_t>(begin * kBlock);
    const size_t to = std::min(bytes, static_cast<size_t>(end * kBlock));
    std::memcpy(static_cast<char*>(dst) + from, static_cast<const char*>(src) + from, to - from);
  });
}

}  // namespace openge::elementwise
