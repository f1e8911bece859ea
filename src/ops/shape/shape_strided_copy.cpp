#include "ops/shape/shape_strided_copy.h"

#include <algorithm>
#include <cstring>

#include "ops/shape/shape_common.h"
#include "base/parallel.h"

namespace openge {
namespace {

using View = StridedCopyPlan;

// Drops size-1 dims and merges each dim into its outer neighbour when the pair walks memory
// as one dim would; the contiguous destination layout is unchanged by both.
void simplify(const Shape& shape, const std::vector<int64_t>& strides, View& v) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!v.size.empty() && v.stride.back() == strides[i] * shape[i]) {
      v.size.back() *= shape[i];
      v.stride.back() = strides[i];
    } else {
      v.size.push_back(shape[i]);
      v.stride.push_back(strides[i]);
    }
  }
}

template <class T>
void copy_row(const char* src, char* dst, int64_t n, int64_t stride) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
  } else if (stride == 0) {
    const T v = load_elem<T>(src);
    for (int64_t i = 0; i < n; ++i) store_elem<T>(dst + i * sizeof(T), v);
  } else {
    // Signed byte steps: a negative stride (a reversed slice) must move the pointer back, not by
    // a wrapped-around unsigned offset.
    const int64_t step = stride * static_cast<int64_t>(sizeof(T));
    for (int64_t i = 0; i < n; ++i) store_elem<T>(dst + i * sizeof(T), load_elem<T>(src + i * step));
  }
}

// Row by row over the last dim; the outer index is advanced like an odometer.
template <class T>
void copy_rows(const char* src, char* dst, const View& v) {
  const int64_t inner = v.size.back();
  const int64_t inner_stride = v.stride.back();
  const size_t outer_rank = v.size.size() - 1;
  int64_t rows = 1;
  for (size_t k = 0; k < outer_rank; ++k) rows *= v.size[k];
  parallel_for(rows, inner * static_cast<int64_t>(sizeof(T)) / 4 + 8, [&](int64_t begin, int64_t end) {
    // The odometer on the stack unless the merged rank is unusually high.
    constexpr size_t kInlineRank = 16;
    int64_t idx_inline[kInlineRank] = {};
    std::vector<int64_t> idx_heap;
    if (outer_rank > kInlineRank) idx_heap.assign(outer_rank, 0);
    int64_t* idx = outer_rank > kInlineRank ? idx_heap.data() : idx_inline;
    int64_t off = 0;
    for (size_t k = outer_rank, r = static_cast<size_t>(begin); k-- > 0;) {
      idx[k] = static_cast<int64_t>(r) % v.size[k];
      r /= static_cast<size_t>(v.size[k]);
      off += idx[k] * v.stride[k];
    }
    for (int64_t row = begin; row < end; ++row) {
      copy_row<T>(src + off * static_cast<int64_t>(sizeof(T)), dst + row * inner * static_cast<int64_t>(sizeof(T)),
                  inner, inner_stride);
      for (size_t k = outer_rank; k-- > 0;) {
        ++idx[k];
        off += v.stride[k];
        if (idx[k] < v.size[k]) break;
        off -= v.stride[k] * v.size[k];
        idx[k] = 0;
      }
    }
  });
}

// A transpose-like view: dim `a` has unit source stride, the last dim does not. Copies (a, last)
// planes in tiles of one cache line square: each tile's source lines are read once into a local
// buffer, then written out as whole destination lines. Touching every line once is what keeps
// power-of-two strides (which map all rows of a tile to one cache set) from thrashing.
// Its batch dims (all but `a` and the last), decided with the plan.
void plan_tiled(View& v, size_t a) {
  const size_t rank = v.size.size();
  v.tiled_axis = static_cast<int>(a);
  v.dst_stride.assign(rank, 0);
  for (size_t k = rank, s = 1; k-- > 0;) {
    v.dst_stride[k] = static_cast<int64_t>(s);
    s *= static_cast<size_t>(v.size[k]);
  }
  // The remaining ("batch") dims, walked per tile row.
  for (size_t k = 0; k + 1 < rank; ++k)
    if (k != a) {
      v.bsize.push_back(v.size[k]);
      v.bsrc.push_back(v.stride[k]);
      v.bdst.push_back(v.dst_stride[k]);
    }
}

template <class T>
void copy_tiled(const char* src, char* dst, const View& v, size_t a) {
  constexpr int64_t kTile = std::max<int64_t>(8, 64 / static_cast<int64_t>(sizeof(T)));
  const std::vector<int64_t>& dst_stride = v.dst_stride;
  const std::vector<int64_t>& bsize = v.bsize;
  const std::vector<int64_t>& bsrc = v.bsrc;
  const std::vector<int64_t>& bdst = v.bdst;
  int64_t batches = 1;
  for (int64_t s : bsize) batches *= s;
  const int64_t na = v.size[a], da = dst_stride[a];
  const int64_t nl = v.size.back(), sl = v.stride.back();
  // Work items are (batch, block of kTile source lines); within one, the source is read as
  // kTile sequential streams (prefetch-friendly) and destination lines are written whole.
  const int64_t l_blocks = (nl + kTile - 1) / kTile;
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  parallel_for(batches * l_blocks, kTile * na, [&](int64_t begin, int64_t end) {
    T buf[kTile][kTile];
    for (int64_t t = begin; t < end; ++t) {
      int64_t batch = t / l_blocks, soff = 0, doff = 0;
      for (size_t k = bsize.size(); k-- > 0;) {
        const int64_t i = batch % bsize[k];
        batch /= bsize[k];
        soff += i * bsrc[k];
        doff += i * bdst[k];
      }
      const int64_t j0 = (t % l_blocks) * kTile, nj = std::min(kTile, nl - j0);
      for (int64_t i0 = 0; i0 < na; i0 += kTile) {
        const int64_t ni = std::min(kTile, na - i0);
        for (int64_t j = 0; j < nj; ++j) {  // source line j0 + j: elements i0 .. i0 + ni
          const T* sp = s + soff + i0 + (j0 + j) * sl;
          for (int64_t i = 0; i < ni; ++i) buf[i][j] = sp[i];
        }
        for (int64_t i = 0; i < ni; ++i) {  // destination line i0 + i: elements j0 .. j0 + nj
          T* dp = d + doff + (i0 + i) * da + j0;
          for (int64_t j = 0; j < nj; ++j) dp[j] = buf[i][j];
        }
      }
    }
  });
}

}  // namespace

StridedCopyPlan plan_strided_copy(size_t elem_size, const Shape& shape, const std::vector<int64_t>& src_strides) {
  StridedCopyPlan v;
  v.elem_size = elem_size;
  v.empty = shape_numel(shape) == 0;
  if (v.empty) return v;
  simplify(shape, src_strides, v);
  if (v.size.size() < 2) return v;
  const int64_t last_stride = v.stride.back();
  if (last_stride != 1 && last_stride != 0 && v.size.back() >= 4) {
    for (size_t a = 0; a + 1 < v.size.size(); ++a)
      if (v.stride[a] == 1 && v.size[a] >= 4) {
        plan_tiled(v, a);
        break;
      }
  }
  return v;
}

void run_strided_copy(const StridedCopyPlan& v, const void* src, void* dst) {
  if (v.empty) return;
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  if (v.size.empty()) {  // a single element
    std::memcpy(d, s, v.elem_size);
    return;
  }
  if (v.size.size() == 1 && v.stride[0] == 1) {
    copy_bytes(d, s, static_cast<size_t>(v.size[0]) * v.elem_size);
    return;
  }
  visit_element_size(v.elem_size, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (v.tiled_axis >= 0)
      copy_tiled<T>(s, d, v, static_cast<size_t>(v.tiled_axis));
    else
      copy_rows<T>(s, d, v);
  });
}

void strided_copy(const void* src, void* dst, size_t elem_size, const Shape& shape,
                  const std::vector<int64_t>& src_strides) {
  run_strided_copy(plan_strided_copy(elem_size, shape, src_strides), src, dst);
}

namespace {

class PreparedStridedCopy final : public PreparedKernel {
 public:
  PreparedStridedCopy(StridedCopyPlan plan, int64_t offset_bytes)
      : plan_(std::move(plan)), offset_bytes_(offset_bytes) {}
  Status run(KernelContext& ctx) const override {
    run_strided_copy(plan_, static_cast<const char*>(ctx.input(0).raw()) + offset_bytes_, ctx.output(0).raw());
    return Status::Ok();
  }

 private:
  StridedCopyPlan plan_;
  int64_t offset_bytes_;
};

}  // namespace

std::unique_ptr<CompiledKernel> make_prepared_strided_copy(size_t elem_size, const Shape& out_shape,
                                                           const std::vector<int64_t>& src_strides, int64_t offset) {
  return std::make_unique<PreparedStridedCopy>(plan_strided_copy(elem_size, out_shape, src_strides),
                                               offset * static_cast<int64_t>(elem_size));
}

}  // namespace openge
