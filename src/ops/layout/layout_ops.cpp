// DepthToSpace and SpaceToDepth: the same bijection between a "depth" tensor
// [N, C*b*b, H, W] and a "space" tensor [N, C, H*b, W*b], walked in opposite directions:
//   space[n, c, h*b + i, w*b + j] == depth[n, depth_channel(c, i, j), h, w]
// with depth_channel = (i*b + j)*C + c for DCR (the default, and SpaceToDepth's only order) and
// c*b*b + i*b + j for CRD. Pure data movement, so every dtype moves by element size.
#include <string>

#include "base/parallel.h"
#include "ops/op_registry.h"
#include "ops/shape/shape_common.h"

namespace openge {
namespace {

enum class Direction { kDepthToSpace, kSpaceToDepth };

struct BlockLayout {
  int64_t block = 0;
  bool crd = false;
};

template <class Ctx>
Result<BlockLayout> read_block_layout(const Ctx& ctx, Direction dir) {
  BlockLayout l;
  l.block = ctx.attrs().get_int("blocksize", 0);
  // size-limit: the block is squared and multiplied into dims; 2^16 keeps that far from overflow.
  if (l.block < 1 || l.block > (int64_t{1} << 16))
    return ctx.error("blocksize must be in [1, 65536], got " + std::to_string(l.block));
  if (dir == Direction::kDepthToSpace && ctx.opset() >= 11) {
    const std::string mode = ctx.attrs().get_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") return ctx.error("mode must be DCR or CRD, got '" + mode + "'");
    l.crd = mode == "CRD";
  }
  return l;
}

// The output shape, or an error when the input does not divide.
template <class Ctx>
Result<Shape> block_output_shape(const Ctx& ctx, Direction dir, const Shape& x, int64_t b) {
  if (x.size() != 4) return ctx.error("input must be 4-D (N, C, H, W), got " + shape_to_string(x));
  if (dir == Direction::kDepthToSpace) {
    if (x[1] % (b * b) != 0)
      return ctx.error("channels " + std::to_string(x[1]) +
                       " are not divisible by blocksize^2 = " + std::to_string(b * b));
    return Shape{x[0], x[1] / (b * b), x[2] * b, x[3] * b};
  }
  if (x[2] % b != 0 || x[3] % b != 0)
    return ctx.error("spatial dims " + shape_to_string(x) + " are not divisible by blocksize " + std::to_string(b));
  return Shape{x[0], x[1] * b * b, x[2] / b, x[3] / b};
}

template <Direction kDir>
Status infer_block(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  auto layout = read_block_layout(ctx, kDir);
  if (!layout.ok()) return layout.status();
  if (!input_shape_static(ctx, 0)) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  auto out = block_output_shape(ctx, kDir, ctx.input_shape(0), layout->block);
  if (!out.ok()) return out.status();
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, *out, dt, "the output"));
  ctx.set_output(0, dt, *out);
  return Status::Ok();
}

template <Direction kDir>
Status block_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  auto layout = read_block_layout(ctx, kDir);
  if (!layout.ok()) return layout.status();
  const bool to_space = kDir == Direction::kDepthToSpace;
  const Tensor& depth = to_space ? x : y;
  const Tensor& space = to_space ? y : x;
  const int64_t b = layout->block, n_batch = depth.dim(0), depth_c = depth.dim(1), h = depth.dim(2), w = depth.dim(3);
  const int64_t c_space = space.dim(1);
  const bool crd = layout->crd;
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(y.raw());
  visit_element_size(dtype_size(x.dtype()), [&](auto tag) {
    using T = typename decltype(tag)::type;
    // One task per (n, c, h, i) row of the space tensor: w*b elements.
    parallel_for(n_batch * c_space * h * b, w * b, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t i = r % b, hh = (r / b) % h, c = (r / (b * h)) % c_space, n = r / (b * h * c_space);
        const int64_t space_row = ((n * c_space + c) * h * b + hh * b + i) * w * b;
        for (int64_t j = 0; j < b; ++j) {
          const int64_t dc = crd ? c * b * b + i * b + j : (i * b + j) * c_space + c;
          const int64_t depth_row = ((n * depth_c + dc) * h + hh) * w;
          for (int64_t ww = 0; ww < w; ++ww) {
            const int64_t s = space_row + ww * b + j, d = depth_row + ww;
            const int64_t from = to_space ? d : s, to = to_space ? s : d;
            store_elem<T>(dst + to * static_cast<int64_t>(sizeof(T)),
                          load_elem<T>(src + from * static_cast<int64_t>(sizeof(T))));
          }
        }
      }
    });
  });
  return Status::Ok();
}

}  // namespace

void register_layout_ops(std::vector<OpSchema>& table) {
  table.push_back({"DepthToSpace", 1, 1, 1, 1, infer_block<Direction::kDepthToSpace>,
                   block_kernel<Direction::kDepthToSpace>, false});
  table.push_back({"SpaceToDepth", 1, 1, 1, 1, infer_block<Direction::kSpaceToDepth>,
                   block_kernel<Direction::kSpaceToDepth>, false});
}

}  // namespace openge
