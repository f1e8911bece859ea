#include "ops/shape/shape_common.h"

#include "base/size_limit.h"
#include "ir/dispatch.h"
#include "base/parallel.h"

namespace openge {

bool input_shape_static(const InferContext& ctx, size_t i) {
  if (!ctx.input_shape_known(i)) return false;
  for (int64_t d : ctx.input_shape(i))
    if (d < 0) return false;
  return true;
}

Status check_shape_size(const InferContext& ctx, const Shape& shape, DType dtype, const std::string& what) {
  // The engine's one size-limit policy (base/size_limit.h): the session's max_tensor_bytes.
  return check_tensor_size(shape, dtype_size(dtype), ctx.node().op_type + " '" + ctx.node().name + "': " + what);
}

Status check_data_dtype(const InferContext& ctx, size_t i) {
  const DType t = ctx.input_dtype(i);
  if (t != DType::kUndefined && !dtype_supported(t))
    return ctx.error(std::string("input dtype ") + dtype_name(t) + " is not supported");
  return Status::Ok();
}

void store_scalar(DType dtype, double value, void* dst) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    if constexpr (std::is_same_v<T, bool>)
      v = value != 0;
    else if constexpr (is_half_v<T>)
      v = T(static_cast<float>(value));
    else
      v = static_cast<T>(value);
    std::memcpy(dst, &v, sizeof(T));
  });
}

void fill_elements(void* dst, const void* value, size_t elem_size, int64_t count) {
  visit_element_size(elem_size, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = load_elem<T>(value);
    char* out = static_cast<char*>(dst);
    parallel_for(count, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) store_elem<T>(out + i * sizeof(T), v);
    });
  });
}

void copy_bytes(void* dst, const void* src, size_t bytes) {
  if (dst == src || bytes == 0) return;
  constexpr int64_t kBlock = 1 << 16;
  const int64_t blocks = (static_cast<int64_t>(bytes) + kBlock - 1) / kBlock;
  parallel_for(blocks, kBlock / 8, [&](int64_t b, int64_t e) {
    const size_t begin = static_cast<size_t>(b * kBlock);
    const size_t end = std::min(bytes, static_cast<size_t>(e * kBlock));
    std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin, end - begin);
  });
}

}  // namespace openge
