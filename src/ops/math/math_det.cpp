// Det: the determinant of each trailing [M, M] matrix, [*, M, M] -> [*]. LU decomposition with
// partial pivoting in double (float types round once on store); a singular matrix gives 0.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "ops/elementwise/elementwise_common.h"

namespace openge {
namespace {

using elementwise::kFloatTypes;

Status det_infer(InferContext& ctx) {
  OPENGE_RETURN_IF_ERROR(elementwise::check_input_dtype(ctx, 0, kFloatTypes));
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, ctx.input_dtype(0));
    return Status::Ok();
  }
  const Shape& in = ctx.input_shape(0);
  const size_t r = in.size();
  if (r < 2 || (in[r - 1] >= 0 && in[r - 2] >= 0 && in[r - 1] != in[r - 2]))
    return ctx.error("input must be [*, M, M] (square matrices), got " + shape_to_string(in));
  ctx.set_output(0, ctx.input_dtype(0), Shape(in.begin(), in.end() - 2));
  return Status::Ok();
}

// Determinant of an m x m row-major matrix, destroyed in the process.
double lu_determinant(std::vector<double>& a, int64_t m) {
  double det = 1.0;
  for (int64_t c = 0; c < m; ++c) {
    int64_t pivot = c;
    for (int64_t r = c + 1; r < m; ++r)
      if (std::fabs(a[static_cast<size_t>(r * m + c)]) > std::fabs(a[static_cast<size_t>(pivot * m + c)])) pivot = r;
    const double p = a[static_cast<size_t>(pivot * m + c)];
    if (p == 0.0) return 0.0;
    if (pivot != c) {
      for (int64_t k = 0; k < m; ++k)
        std::swap(a[static_cast<size_t>(c * m + k)], a[static_cast<size_t>(pivot * m + k)]);
      det = -det;
    }
    det *= p;
    for (int64_t r = c + 1; r < m; ++r) {
      const double f = a[static_cast<size_t>(r * m + c)] / p;
      if (f == 0.0) continue;
      for (int64_t k = c; k < m; ++k) a[static_cast<size_t>(r * m + k)] -= f * a[static_cast<size_t>(c * m + k)];
    }
  }
  return det;
}

Status det_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2))
    return ctx.error("input must be [*, M, M] (square matrices), got " + shape_to_string(x.shape()));
  const int64_t m = x.dim(x.rank() - 1);
  const int64_t count = y.numel();
  const bool ok = elementwise::visit_dtype_in<kFloatTypes>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = x.data<T>();
    T* py = y.data<T>();
    parallel_for(count, m * m * m + 1, [&](int64_t begin, int64_t end) {
      std::vector<double> a(static_cast<size_t>(m * m));
      for (int64_t i = begin; i < end; ++i) {
        for (int64_t k = 0; k < m * m; ++k) a[static_cast<size_t>(k)] = static_cast<double>(px[i * m * m + k]);
        py[i] = elementwise::to_storage<T>(lu_determinant(a, m));  // m == 0: the empty product, 1
      }
    });
  });
  return ok ? Status::Ok() : ctx.error(std::string("unsupported dtype ") + dtype_name(x.dtype()));
}

}  // namespace

void register_linalg_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"Det", 1, 1, 1, 1, &det_infer, &det_kernel, false});
}

}  // namespace openge
