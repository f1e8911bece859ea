#include "openge/tensor.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

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

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  // Every owned allocation passes the size-limit policy; callers that know the node check the
  // shape first (run_infer), so this only fires where nobody did and is reported by the guards.
  if (Status s = check_tensor_size(shape_, dtype_size(dtype_), "tensor"); !s.ok()) throw TensorSizeError(s);
  numel_ = shape_numel(shape_);
  // 64-byte alignment suits AVX-512 loads and oneDNN; at least one byte so data() is never null.
  const size_t bytes = std::max<size_t>(64, (nbytes() + 63) / 64 * 64);
  void* p = std::aligned_alloc(64, bytes);
  if (!p) throw std::bad_alloc();
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

Tensor Tensor::clone() const {
  Tensor t(dtype_, shape_);
  if (nbytes()) std::memcpy(t.data_, data_, nbytes());
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
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
