// NonZero, Compress, Unique: ops whose output size depends on the input's values. At compile
// time (data unknown) `infer` gives only the dtypes; at run time it sees the data, counts, and
// checks the count against the size limit before the executor allocates anything. The kernels
// then fill the already-sized outputs.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "ir/dispatch.h"
#include "ops/shape/index_util.h"
#include "ops/op_registry.h"

namespace openge {
namespace {

// True when element i of `t` is non-zero (fp16/bf16 compared as float, so -0 is zero).
bool element_nonzero(const Tensor& t, int64_t i) {
  bool nz = false;
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    nz = static_cast<float_or_self_t<T>>(t.data<T>()[i]) != float_or_self_t<T>(0);
  });
  return nz;
}

int64_t count_nonzero(const Tensor& t) {
  int64_t n = 0;
  for (int64_t i = 0; i < t.numel(); ++i) n += element_nonzero(t, i);
  return n;
}

// --- NonZero: int64 [rank, count], the coordinates of each non-zero element in row-major order --
// A scalar is read as a 1-element vector (as NumPy's nonzero does).
Status infer_nonzero(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const Tensor* x = ctx.input_value(0);
  if (!x) {
    ctx.set_output_dtype(0, DType::kInt64);
    return Status::Ok();
  }
  const Shape out{std::max<int64_t>(1, x->rank()), count_nonzero(*x)};
  OPENGE_RETURN_IF_ERROR(check_data_sized_output(ctx, out, DType::kInt64, "the output"));
  ctx.set_output(0, DType::kInt64, out);
  return Status::Ok();
}

Status nonzero_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  const Shape shape = x.rank() == 0 ? Shape{1} : x.shape();
  const int64_t count = out.rank() == 2 ? out.dim(1) : 0;
  int64_t* o = out.data<int64_t>();
  std::vector<int64_t> coord(shape.size(), 0);
  int64_t j = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (element_nonzero(x, i)) {
      if (j >= count) return ctx.error("the input changed after its output was sized");
      for (size_t d = 0; d < shape.size(); ++d) o[static_cast<int64_t>(d) * count + j] = coord[d];
      ++j;
    }
    for (size_t d = shape.size(); d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
  return Status::Ok();
}

// --- Compress: the slices along `axis` (or the flattened input's elements) where condition ----
// is true. A condition shorter than the axis leaves the remaining slices out (ONNX, NumPy).
struct CompressPlan {
  bool flatten = false;
  size_t axis = 0;
  std::vector<int64_t> kept;  // kept slice indices along the axis
  Shape out;
};

template <class Ctx>
Result<CompressPlan> plan_compress(const Ctx& ctx, const Shape& x, const Tensor& cond) {
  CompressPlan p;
  p.flatten = !ctx.attrs().has("axis");
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t dim = shape_numel(x);
  if (!p.flatten) {
    const int64_t axis = ctx.attrs().get_int("axis", 0);
    if (axis < -rank || axis >= rank)
      return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    p.axis = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    dim = x[p.axis];
  }
  if (cond.dtype() != DType::kBool)
    return ctx.error(std::string("condition must be bool, got ") + dtype_name(cond.dtype()));
  if (cond.rank() != 1) return ctx.error("condition must be 1-D, got " + shape_to_string(cond.shape()));
  if (cond.numel() > dim)
    return ctx.error("condition has " + std::to_string(cond.numel()) + " entries but the " +
                     (p.flatten ? std::string("flattened input has ") : "axis has ") + std::to_string(dim));
  for (int64_t i = 0; i < cond.numel(); ++i)
    if (cond.data<bool>()[i]) p.kept.push_back(i);
  if (p.flatten) {
    p.out = {static_cast<int64_t>(p.kept.size())};
  } else {
    p.out = x;
    p.out[p.axis] = static_cast<int64_t>(p.kept.size());
  }
  return p;
}

Status infer_compress(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  const Tensor* cond = ctx.input_value(1);
  if (!ctx.input_shape_known(0) || !cond) {
    ctx.set_output_dtype(0, dt);
    return Status::Ok();
  }
  auto plan = plan_compress(ctx, ctx.input_shape(0), *cond);
  if (!plan.ok()) return plan.status();
  OPENGE_RETURN_IF_ERROR(check_data_sized_output(ctx, plan->out, dt, "the output"));
  ctx.set_output(0, dt, plan->out);
  return Status::Ok();
}

Status compress_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto plan = plan_compress(ctx, x.shape(), ctx.input(1));
  if (!plan.ok()) return plan.status();
  const size_t es = dtype_size(x.dtype());
  const int64_t outer = plan->flatten ? 1 : product(x.shape(), 0, plan->axis);
  const int64_t dim = plan->flatten ? x.numel() : x.dim(static_cast<int64_t>(plan->axis));
  const size_t inner =
      (plan->flatten ? 1 : static_cast<size_t>(product(x.shape(), plan->axis + 1, x.shape().size()))) * es;
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(ctx.output(0).raw());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : plan->kept) {
      std::memcpy(dst, src + static_cast<size_t>(o * dim + k) * inner, inner);
      dst += inner;
    }
  return Status::Ok();
}

// --- Unique: distinct elements (or slices along `axis`), sorted or in order of first occurrence,
// with the first-occurrence index of each, the inverse map and the counts (all int64).
struct UniquePlan {
  int64_t slices = 0;            // number of slices compared (elements when flattened)
  std::vector<int64_t> first;    // first occurrence of each unique slice, in output order
  std::vector<int64_t> inverse;  // per input slice: its unique slice's output position
  std::vector<int64_t> counts;
  bool flatten = true;
  size_t axis = 0;
  Shape y_shape;
};

template <class Ctx>
Result<UniquePlan> plan_unique(const Ctx& ctx, const Tensor& x) {
  UniquePlan p;
  p.flatten = !ctx.attrs().has("axis");
  const int64_t rank = x.rank();
  int64_t outer = 1, inner = 1;
  if (p.flatten) {
    p.slices = x.numel();
  } else {
    const int64_t axis = ctx.attrs().get_int("axis", 0);
    if (axis < -rank || axis >= rank)
      return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    p.axis = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    p.slices = x.dim(static_cast<int64_t>(p.axis));
    outer = product(x.shape(), 0, p.axis);
    inner = product(x.shape(), p.axis + 1, x.shape().size());
  }
  const int64_t sorted = ctx.attrs().get_int("sorted", 1);
  if (sorted != 0 && sorted != 1) return ctx.error("sorted must be 0 or 1, got " + std::to_string(sorted));
  // Slice s is the elements (o, s, i) for all o, i; compared lexicographically in that order
  // (NumPy's unique(axis=...) order), element-wise as float for fp16/bf16.
  std::vector<int64_t> order(static_cast<size_t>(p.slices));
  std::iota(order.begin(), order.end(), 0);
  bool ok = visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = float_or_self_t<T>;
    const T* d = x.data<T>();
    auto cmp = [&](int64_t a, int64_t b) {  // -1, 0, 1
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const C va = static_cast<C>(d[(o * p.slices + a) * inner + i]);
          const C vb = static_cast<C>(d[(o * p.slices + b) * inner + i]);
          if (va < vb) return -1;
          if (vb < va) return 1;
        }
      return 0;
    };
    // Stable: equal slices keep input order, so each group starts at its first occurrence.
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
    std::vector<int64_t> group_of(static_cast<size_t>(p.slices));  // group in sorted order
    std::vector<int64_t> group_first, group_count;
    for (size_t r = 0; r < order.size(); ++r) {
      if (r == 0 || cmp(order[r - 1], order[r]) != 0) {
        group_first.push_back(order[r]);
        group_count.push_back(0);
      }
      group_of[static_cast<size_t>(order[r])] = static_cast<int64_t>(group_first.size() - 1);
      ++group_count.back();
    }
    // Output position of each group: sorted order, or order of first occurrence.
    std::vector<int64_t> position(group_first.size());
    std::iota(position.begin(), position.end(), 0);
    if (sorted == 0) {
      std::vector<int64_t> by_first(group_first.size());
      std::iota(by_first.begin(), by_first.end(), 0);
      std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) {
        return group_first[static_cast<size_t>(a)] < group_first[static_cast<size_t>(b)];
      });
      for (size_t k = 0; k < by_first.size(); ++k) position[static_cast<size_t>(by_first[k])] = static_cast<int64_t>(k);
    }
    p.first.assign(group_first.size(), 0);
    p.counts.assign(group_first.size(), 0);
    for (size_t g = 0; g < group_first.size(); ++g) {
      p.first[static_cast<size_t>(position[g])] = group_first[g];
      p.counts[static_cast<size_t>(position[g])] = group_count[g];
    }
    p.inverse.resize(static_cast<size_t>(p.slices));
    for (int64_t s = 0; s < p.slices; ++s)
      p.inverse[static_cast<size_t>(s)] = position[static_cast<size_t>(group_of[static_cast<size_t>(s)])];
  });
  if (!ok) return ctx.error(std::string("dtype ") + dtype_name(x.dtype()) + " is not supported");
  const int64_t n = static_cast<int64_t>(p.first.size());
  if (p.flatten) {
    p.y_shape = {n};
  } else {
    p.y_shape = x.shape();
    p.y_shape[p.axis] = n;
  }
  return p;
}

Status infer_unique(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(check_data_dtype(ctx, 0));
  const DType dt = ctx.input_dtype(0);
  const Tensor* x = ctx.input_value(0);
  if (!x) {
    ctx.set_output_dtype(0, dt);
    for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output_dtype(i, DType::kInt64);
    return Status::Ok();
  }
  auto plan = plan_unique(ctx, *x);
  if (!plan.ok()) return plan.status();
  // The unique count never exceeds the input's, so the input's size already passed the limit;
  // checked anyway because the output shape comes from data.
  OPENGE_RETURN_IF_ERROR(check_data_sized_output(ctx, plan->y_shape, dt, "output Y"));
  const int64_t n = static_cast<int64_t>(plan->first.size());
  ctx.set_output(0, dt, plan->y_shape);
  if (ctx.num_outputs() > 1) ctx.set_output(1, DType::kInt64, {n});
  if (ctx.num_outputs() > 2) ctx.set_output(2, DType::kInt64, {plan->slices});
  if (ctx.num_outputs() > 3) ctx.set_output(3, DType::kInt64, {n});
  return Status::Ok();
}

Status unique_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto plan = plan_unique(ctx, x);
  if (!plan.ok()) return plan.status();
  const size_t es = dtype_size(x.dtype());
  const int64_t outer = plan->flatten ? 1 : product(x.shape(), 0, plan->axis);
  const size_t inner =
      (plan->flatten ? 1 : static_cast<size_t>(product(x.shape(), plan->axis + 1, x.shape().size()))) * es;
  const int64_t n = static_cast<int64_t>(plan->first.size());
  if (ctx.output(0).numel() != outer * n * static_cast<int64_t>(inner / std::max<size_t>(es, 1)))
    return ctx.error("the input changed after its outputs were sized");
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(ctx.output(0).raw());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t s : plan->first) {
      std::memcpy(dst, src + static_cast<size_t>(o * plan->slices + s) * inner, inner);
      dst += inner;
    }
  const std::vector<int64_t>* lists[] = {&plan->first, &plan->inverse, &plan->counts};
  for (size_t i = 1; i < 4; ++i)
    if (ctx.has_output(i)) std::copy(lists[i - 1]->begin(), lists[i - 1]->end(), ctx.output(i).data<int64_t>());
  return Status::Ok();
}

}  // namespace

void register_select_ops(std::vector<OpSchema>& table) {
  table.push_back({"NonZero", 1, 1, 1, 1, infer_nonzero, nonzero_kernel, false});
  table.push_back({"Compress", 2, 2, 1, 1, infer_compress, compress_kernel, false});
  table.push_back({"Unique", 1, 1, 1, 4, infer_unique, unique_kernel, false});
}

}  // namespace openge
