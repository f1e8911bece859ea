#include "openge/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "base/aligned_memory.h"
#include "base/size_limit.h"
#include "openge/half.h"
#include "ir/dispatch.h"

namespace openge {

int64_t shape_numel(const Shape& shape) {
  // A zero anywhere means no elements, whatever the other dims (no overflow on the way).
  for (int64_t d : shape)
    if (d == 0) return 0;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

const char* value_kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kTensor:
      return "tensor";
    case ValueKind::kSequence:
      return "sequence";
    case ValueKind::kOptional:
      return "optional";
    case ValueKind::kOptionalSequence:
      return "optional sequence";
  }
  return "unknown";
}

namespace {
const std::vector<Tensor>& no_elements() {
  static const std::vector<Tensor> kNone;
  return kNone;
}
}  // namespace

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  // Every owned allocation passes the size-limit policy; callers that know the node check the
  // shape first (run_infer), so this only fires where nobody did and is reported by the guards.
  const size_t check_size = dtype_ == DType::kString ? sizeof(std::string) : dtype_size(dtype_);
  if (Status s = check_tensor_size(shape_, check_size, "tensor"); !s.ok()) throw TensorSizeError(s);
  numel_ = shape_numel(shape_);
  if (dtype_ == DType::kString) {  // constructed strings, freed as an array
    auto* strings = new std::string[static_cast<size_t>(std::max<int64_t>(numel_, 1))];
    owner_ = std::shared_ptr<void>(strings, [](void* p) { delete[] static_cast<std::string*>(p); });
    data_ = strings;
    return;
  }
  // 64-byte alignment suits AVX-512 loads and oneDNN; at least one byte so data() is never null.
  const size_t bytes = std::max<size_t>(64, (nbytes() + 63) / 64 * 64);
  void* p = allocate_aligned(bytes);
  std::memset(p, 0, bytes);
  owner_ = std::shared_ptr<void>(p, std::free);
  data_ = p;
}

Tensor Tensor::borrow(DType dtype, Shape shape, void* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = shape_numel(t.shape_);
  t.data_ = data;
  return t;
}

Tensor Tensor::sequence(DType elem, std::vector<Tensor> elements) {
  Tensor t;
  t.dtype_ = elem;
  t.shape_ = {0};  // no bytes of its own: tensor-only code sees an empty tensor
  t.kind_ = ValueKind::kSequence;
  t.elements_ = std::make_shared<const std::vector<Tensor>>(std::move(elements));
  return t;
}

Tensor Tensor::optional(ValueKind kind, DType elem, Tensor value) {
  Tensor t;
  t.dtype_ = elem;
  t.shape_ = {0};
  t.kind_ = kind;
  std::vector<Tensor> held;
  if (value.defined()) held.push_back(std::move(value));
  t.elements_ = std::make_shared<const std::vector<Tensor>>(std::move(held));
  return t;
}

const std::vector<Tensor>& Tensor::elements() const { return elements_ ? *elements_ : no_elements(); }

Tensor Tensor::clone() const {
  if (kind_ != ValueKind::kTensor) return *this;  // elements are owned and never modified
  Tensor t(dtype_, shape_);
  if (dtype_ == DType::kString) {
    std::copy(data<std::string>(), data<std::string>() + numel_, t.data<std::string>());
    return t;
  }
  if (nbytes()) std::memcpy(t.data_, data_, nbytes());
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (kind_ != ValueKind::kTensor) return *this;  // a sequence or optional has no shape to change
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.numel_ = shape_numel(t.shape_);
  return t;
}

double Tensor::scalar_as_double(int64_t i) const {
  double v = 0;
  visit_dtype(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    v = static_cast<double>(static_cast<float_or_self_t<T>>(data<T>()[i]));
  });
  return v;
}

int64_t Tensor::scalar_as_int(int64_t i) const {
  int64_t v = 0;
  visit_dtype(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    v = static_cast<int64_t>(static_cast<float_or_self_t<T>>(data<T>()[i]));
  });
  return v;
}

std::vector<int64_t> Tensor::to_int64_vector() const {
  std::vector<int64_t> out(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) out[static_cast<size_t>(i)] = scalar_as_int(i);
  return out;
}

}  // namespace openge
