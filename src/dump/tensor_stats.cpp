#include "dump/tensor_stats.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "ir/dispatch.h"

namespace openge::dump {

TensorStats compute_stats(const Tensor& t) {
  TensorStats s;
  s.count = t.numel();
  double max = -std::numeric_limits<double>::infinity(), min = std::numeric_limits<double>::infinity();
  double sum = 0, squares = 0;
  int64_t finite = 0;
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (int64_t i = 0; i < s.count; ++i) {
      double v;
      if constexpr (std::is_same_v<T, bool>)
        v = p[i] ? 1.0 : 0.0;
      else
        v = static_cast<double>(static_cast<float_or_self_t<T>>(p[i]));
      if (std::isnan(v)) {
        ++s.nan;
      } else if (std::isinf(v)) {
        ++(v > 0 ? s.pos_inf : s.neg_inf);
      } else {
        max = std::max(max, v);
        min = std::min(min, v);
        sum += v;
        squares += v * v;
        ++finite;
      }
    }
  });
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.max = finite ? max : nan;
  s.min = finite ? min : nan;
  s.avg = finite ? sum / static_cast<double>(finite) : nan;
  s.l2norm = finite ? std::sqrt(squares) : nan;
  return s;
}

const char* stats_csv_header() {
  return "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Max Value,Min Value,Avg Value,L2Norm Value,"
         "NaN Count,Negative Inf Count,Positive Inf Count";
}

namespace {

const char* cann_dtype_name(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "DT_FLOAT";
    case DType::kFloat16:
      return "DT_FLOAT16";
    case DType::kBFloat16:
      return "DT_BF16";
    case DType::kFloat64:
      return "DT_DOUBLE";
    case DType::kInt8:
      return "DT_INT8";
    case DType::kInt16:
      return "DT_INT16";
    case DType::kInt32:
      return "DT_INT32";
    case DType::kInt64:
      return "DT_INT64";
    case DType::kUInt8:
      return "DT_UINT8";
    case DType::kUInt16:
      return "DT_UINT16";
    case DType::kUInt32:
      return "DT_UINT32";
    case DType::kUInt64:
      return "DT_UINT64";
    case DType::kBool:
      return "DT_BOOL";
    default:
      return "DT_UNDEFINED";
  }
}

// %.17g round-trips a double exactly; NaN as CANN prints it.
std::string number(double v) {
  if (std::isnan(v)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

void append_row(std::string& out, const char* kind, size_t index, const Tensor& t) {
  std::string shape;
  for (int64_t d : t.shape()) shape += (shape.empty() ? "" : ",") + std::to_string(d);
  const TensorStats s = compute_stats(t);
  out += std::string(kind) + "," + std::to_string(index) + "," + std::to_string(t.nbytes()) + "," +
         cann_dtype_name(t.dtype()) + "," + (t.rank() == 4 ? "NCHW" : "ND") + ",\"" + shape + "\"," +
         std::to_string(s.count) + "," + number(s.max) + "," + number(s.min) + "," + number(s.avg) + "," +
         number(s.l2norm) + "," + std::to_string(s.nan) + "," + std::to_string(s.neg_inf) + "," +
         std::to_string(s.pos_inf) + "\n";
}

}  // namespace

std::string stats_csv(const DumpRecord& record) {
  std::string out = std::string(stats_csv_header()) + "\n";
  for (size_t i = 0; i < record.inputs.size(); ++i)
    if (record.inputs[i].defined()) append_row(out, "Input", i, record.inputs[i]);
  for (size_t o = 0; o < record.outputs.size(); ++o)
    if (record.outputs[o].defined()) append_row(out, "Output", o, record.outputs[o]);
  return out;
}

}  // namespace openge::dump
