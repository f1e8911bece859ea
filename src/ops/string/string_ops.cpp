// String tensors: StringNormalizer, and Cast between strings and numbers (cast_strings, called by
// Cast's kernel in elementwise_cast.cpp). A string tensor's elements are std::string
// (openge/tensor.h); the executor allocates them like any tensor output, outside the arena.
#include "ops/string/string_ops.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <set>
#include <string>

#include "ir/dispatch.h"
#include "ops/op_registry.h"

namespace openge {
namespace {

// ASCII case mapping: OpenGE ignores the `locale` attribute (what ONNX Runtime does for the
// default "en_US" on ASCII text).
std::string mapped(std::string s, int (*fn)(int)) {
  for (char& c : s) c = static_cast<char>(fn(static_cast<unsigned char>(c)));
  return s;
}

struct NormalizerSettings {
  std::string action;  // NONE, LOWER, UPPER
  bool case_sensitive = false;
  std::set<std::string> stopwords;  // lower-cased when matching ignores case
};

Status read_settings(const Attributes& attrs, const std::string& label, NormalizerSettings* out) {
  out->action = attrs.get_string("case_change_action", "NONE");
  if (out->action != "NONE" && out->action != "LOWER" && out->action != "UPPER")
    return invalid_model(label + ": case_change_action must be NONE, LOWER or UPPER, got '" + out->action + "'");
  out->case_sensitive = attrs.get_int("is_case_sensitive", 0) != 0;
  if (const Attribute* words = attrs.find("stopwords"))
    for (const std::string& w : words->strings) out->stopwords.insert(out->case_sensitive ? w : mapped(w, ::tolower));
  return Status::Ok();
}

// The kept strings of X ([C] or [1, C]), stopwords removed, case changed.
std::vector<std::string> normalize(const Tensor& x, const NormalizerSettings& s) {
  std::vector<std::string> kept;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const std::string& word = x.data<std::string>()[i];
    if (s.stopwords.count(s.case_sensitive ? word : mapped(word, ::tolower))) continue;
    kept.push_back(s.action == "LOWER"   ? mapped(word, ::tolower)
                   : s.action == "UPPER" ? mapped(word, ::toupper)
                                         : word);
  }
  return kept;
}

// Everything filtered out leaves one empty string (ONNX's rule), so the output is never empty.
Shape normalized_shape(const Shape& in, size_t kept) {
  const int64_t n = std::max<int64_t>(1, static_cast<int64_t>(kept));
  return in.size() == 2 ? Shape{1, n} : Shape{n};
}

Status string_normalizer_infer(InferContext& ctx) {
  const std::string label = ctx.node().op_type + " '" + ctx.node().name + "'";
  if (ctx.input_dtype(0) != DType::kString)
    return ctx.error(std::string("input 0 must be a string tensor, got ") + dtype_name(ctx.input_dtype(0)));
  if (ctx.input_shape_known(0)) {
    const Shape& s = ctx.input_shape(0);
    if (!(s.size() == 1 || (s.size() == 2 && s[0] == 1)))
      return ctx.error("input 0 must have shape [C] or [1, C], got " + shape_to_string(s));
  }
  NormalizerSettings settings;
  OPENGE_RETURN_IF_ERROR(read_settings(ctx.attrs(), label, &settings));
  const Tensor* x = ctx.input_value(0);
  if (!x) {
    ctx.set_output_dtype(0, DType::kString);
    return Status::Ok();
  }
  ctx.set_output(0, DType::kString, normalized_shape(x->shape(), normalize(*x, settings).size()));
  return Status::Ok();
}

Status string_normalizer_kernel(KernelContext& ctx) {
  NormalizerSettings settings;
  OPENGE_RETURN_IF_ERROR(read_settings(ctx.attrs(), ctx.node().op_type + " '" + ctx.node().name + "'", &settings));
  std::vector<std::string> kept = normalize(ctx.input(0), settings);
  Tensor& y = ctx.output(0);
  if (y.numel() != std::max<int64_t>(1, static_cast<int64_t>(kept.size())))
    return ctx.error("the output size changed after inference");
  for (size_t i = 0; i < kept.size(); ++i) y.data<std::string>()[i] = std::move(kept[i]);
  return Status::Ok();
}

// NumPy's str() of a float: the shortest text that reads back as the same value, with ".0" on
// integral values ("1.0", "0.039187793", "1e-05"), which is what ONNX's Cast tests expect.
template <class F>
std::string float_text(F v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";  // not nan / inf / exponent
  return s;
}

template <class T>
std::string number_text(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? "True" : "False";
  else if constexpr (std::is_same_v<T, double>)
    return float_text(v);
  else if constexpr (std::is_floating_point_v<T> || is_half_v<T>)
    return float_text(static_cast<float>(v));
  else
    return std::to_string(v);
}

// The whole string as a number ("inf", "-INF", "NaN" included); false when it is not one.
template <class T>
bool parse_number(const std::string& text, T* out) {
  const char* begin = text.c_str();
  char* end = nullptr;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    errno = 0;
    if constexpr (std::is_signed_v<T>)
      *out = static_cast<T>(std::strtoll(begin, &end, 10));
    else
      *out = static_cast<T>(std::strtoull(begin, &end, 10));
    if (errno == ERANGE) return false;
  } else if constexpr (std::is_same_v<T, double>) {
    *out = std::strtod(begin, &end);
  } else {
    const float f = std::strtof(begin, &end);
    if constexpr (std::is_same_v<T, bool>)
      *out = f != 0.0f;
    else
      *out = static_cast<T>(f);
  }
  return end != begin && *end == '\0';
}

}  // namespace

Status cast_strings(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (x.dtype() == DType::kString && y.dtype() == DType::kString) {
    std::copy(x.data<std::string>(), x.data<std::string>() + x.numel(), y.data<std::string>());
    return Status::Ok();
  }
  if (y.dtype() == DType::kString) {
    const bool ok = visit_dtype(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0; i < x.numel(); ++i) y.data<std::string>()[i] = number_text(x.data<T>()[i]);
    });
    return ok ? Status::Ok() : ctx.error(std::string("cannot cast ") + dtype_name(x.dtype()) + " to string");
  }
  Status status;
  const bool ok = visit_dtype(y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < x.numel() && status.ok(); ++i) {
      const std::string& text = x.data<std::string>()[i];
      if constexpr (is_half_v<T>) {
        float f = 0;
        if (!parse_number(text, &f))
          status = ctx.error("element " + std::to_string(i) + " '" + text + "' is not a number");
        y.data<T>()[i] = T(f);
      } else {
        if (!parse_number(text, &y.data<T>()[i]))
          status = ctx.error("element " + std::to_string(i) + " '" + text + "' is not a number");
      }
    }
  });
  if (!ok) return ctx.error(std::string("cannot cast string to ") + dtype_name(y.dtype()));
  return status;
}

void register_string_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"StringNormalizer", 1, 1, 1, 1, string_normalizer_infer, string_normalizer_kernel});
}

}  // namespace openge
