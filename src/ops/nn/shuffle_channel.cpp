#include "ops/nn/shuffle_channel.h"

#include <cstdint>
#include <cstring>

#include "base/parallel.h"
#include "ops/fused/fused_ops.h"

namespace openge {
namespace {

struct ShuffleGeometry {
  int64_t outer = 0;     // N (NCHW) or N*H*W (NHWC): independent blocks of channels
  int64_t channels = 0;  // C
  int64_t inner = 0;     // H*W (NCHW) or 1 (NHWC): contiguous elements per channel
  int64_t group = 0;
};

Result<ShuffleGeometry> geometry(const Attributes& attrs, const Shape& x) {
  if (x.size() != 4) return invalid_argument("needs a 4-D input, got " + shape_to_string(x));
  const bool channels_last = attrs.get_int("channels_last", 0) != 0;
  ShuffleGeometry g;
  g.group = attrs.get_int("group", 0);
  g.channels = channels_last ? x[3] : x[1];
  g.outer = channels_last ? x[0] * x[1] * x[2] : x[0];
  g.inner = channels_last ? 1 : x[2] * x[3];
  if (g.group <= 0 || g.channels % g.group != 0)
    return invalid_argument("group " + std::to_string(g.group) + " must be positive and divide the " +
                            std::to_string(g.channels) + " channels");
  return g;
}

Status infer_shuffle_channel(InferContext& ctx) {
  if (ctx.input_dtype(0) == DType::kString) return ctx.error("moves numbers, not strings");
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, ctx.input_dtype(0));
    return Status::Ok();
  }
  auto g = geometry(ctx.attrs(), ctx.input_shape(0));
  if (!g.ok()) return ctx.error(g.status().message());
  ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
  return Status::Ok();
}

// One block of C channels: out channel i * g + j <- in channel j * (C/g) + i, each channel
// `run` bytes. Channels of one element (NHWC, `run` 1-8 bytes) are copied as typed values, so
// the loop compiles to moves rather than a memcpy call per element.
// With the group count a compile-time constant (2 in ShuffleNet v2, 4 in some v1 variants) the
// inner loop unrolls and the compiler vectorises the outer one as an interleaving of G streams;
// with it a runtime value, the same loop runs about one element per nanosecond.
template <class Unit, int64_t G>
void shuffle_block_fixed(const Unit* __restrict src, Unit* __restrict dst, int64_t per_group) {
  for (int64_t i = 0; i < per_group; ++i)
    for (int64_t j = 0; j < G; ++j) dst[i * G + j] = src[j * per_group + i];
}

template <class Unit>
void shuffle_block(const char* in, char* out, int64_t groups, int64_t per_group) {
  const Unit* src = reinterpret_cast<const Unit*>(in);
  Unit* dst = reinterpret_cast<Unit*>(out);
  if (groups == 2) return shuffle_block_fixed<Unit, 2>(src, dst, per_group);
  if (groups == 4) return shuffle_block_fixed<Unit, 4>(src, dst, per_group);
  for (int64_t i = 0; i < per_group; ++i)
    for (int64_t j = 0; j < groups; ++j) dst[i * groups + j] = src[j * per_group + i];
}

void shuffle_block_bytes(const char* in, char* out, int64_t groups, int64_t per_group, size_t run) {
  for (int64_t i = 0; i < per_group; ++i)
    for (int64_t j = 0; j < groups; ++j)
      std::memcpy(out + static_cast<size_t>(i * groups + j) * run, in + static_cast<size_t>(j * per_group + i) * run,
                  run);
}

Status shuffle_channel_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  auto geo = geometry(ctx.attrs(), x.shape());
  if (!geo.ok()) return ctx.error(geo.status().message());
  const ShuffleGeometry g = *geo;
  const int64_t per_group = g.channels / g.group;
  const size_t run = static_cast<size_t>(g.inner) * dtype_size(x.dtype());  // bytes per channel
  const size_t block = static_cast<size_t>(g.channels) * run;
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(y.raw());
  parallel_for(g.outer, g.channels * g.inner, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      const char* in = src + static_cast<size_t>(o) * block;
      char* out = dst + static_cast<size_t>(o) * block;
      switch (run) {
        case 1:
          shuffle_block<uint8_t>(in, out, g.group, per_group);
          break;
        case 2:
          shuffle_block<uint16_t>(in, out, g.group, per_group);
          break;
        case 4:
          shuffle_block<uint32_t>(in, out, g.group, per_group);
          break;
        case 8:
          shuffle_block<uint64_t>(in, out, g.group, per_group);
          break;
        default:
          shuffle_block_bytes(in, out, g.group, per_group, run);
      }
    }
  });
  return Status::Ok();
}

}  // namespace

void register_shuffle_channel_ops(std::vector<OpSchema>& table) {
  table.push_back({"ShuffleChannel", 1, 1, 1, 1, infer_shuffle_channel, shuffle_channel_kernel});
}

}  // namespace openge
