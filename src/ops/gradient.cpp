#include "ops/gradient.h"

#include "ir/dispatch.h"

namespace openge {

Shape GradientBuilder::shape_of(int v) const { return value(v).shape.value_or(Shape{}); }

Result<int> GradientBuilder::emit1(std::string_view op_type, std::vector<int> inputs, Attributes attrs,
                                   std::string_view domain) {
  auto out = emit(op_type, std::move(inputs), std::move(attrs), 1, domain);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

int GradientBuilder::scalar(DType dtype, double v) {
  Tensor t(dtype, {});
  visit_numeric_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_half_v<T>)
      t.data<T>()[0] = T(static_cast<float>(v));
    else
      t.data<T>()[0] = static_cast<T>(v);
  });
  return constant(std::move(t));
}

int GradientBuilder::int64s(const std::vector<int64_t>& values) {
  Tensor t(DType::kInt64, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.data<int64_t>()[i] = values[i];
  return constant(std::move(t));
}

Status GradientBuilder::error(const std::string& message) const {
  return unsupported(node().op_type + " '" + node().name + "': " + message);
}

}  // namespace openge
