#include "output_summary.h"

#include <algorithm>
#include <cstdio>

namespace openge::cli {

std::string summarize_tensor(const Tensor& t) {
  if (!t.is_tensor())
    return std::string(value_kind_name(t.kind())) + " of " + dtype_name(t.dtype()) + " holding " +
           std::to_string(t.elements().size()) + (t.elements().size() == 1 ? " tensor" : " tensors");
  std::string s = std::string(dtype_name(t.dtype())) + " " + shape_to_string(t.shape());
  if (t.numel() == 0) return s + " (empty)";
  if (t.dtype() == DType::kString) return s + " first \"" + t.data<std::string>()[0] + "\"";
  double lo = t.scalar_as_double(0), hi = lo, sum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.scalar_as_double(i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, " min %.6g max %.6g mean %.6g first [", lo, hi, sum / static_cast<double>(t.numel()));
  s += buf;
  const int64_t shown = std::min<int64_t>(5, t.numel());
  for (int64_t i = 0; i < shown; ++i) {
    std::snprintf(buf, sizeof buf, "%s%.6g", i ? ", " : "", t.scalar_as_double(i));
    s += buf;
  }
  return s + (t.numel() > shown ? ", ...]" : "]");
}

}  // namespace openge::cli
