// A dense, row-major tensor: dtype, shape and a byte buffer that is either owned (shared, so
// copies are cheap) or borrowed from an arena the executor manages.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "openge/dtype.h"

namespace openge {

using Shape = std::vector<int64_t>;

// Number of elements; 1 for a scalar (empty shape).
int64_t shape_numel(const Shape& shape);
std::string shape_to_string(const Shape& shape);  // "[1,3,224,224]"

class Tensor {
 public:
  Tensor() = default;
  // Owned, zero-filled storage.
  Tensor(DType dtype, Shape shape);
  // Borrowed storage: the caller keeps `data` alive for as long as the tensor is used.
  static Tensor borrow(DType dtype, Shape shape, void* data);

  bool defined() const { return dtype_ != DType::kUndefined; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * dtype_size(dtype_); }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <class T> T* data() { return static_cast<T*>(data_); }
  template <class T> const T* data() const { return static_cast<const T*>(data_); }

  // False for a borrowed view (arena memory) that must be copied before it outlives a run.
  bool owns_storage() const { return owner_ != nullptr; }
  // A deep copy with owned storage.
  Tensor clone() const;
  // Same storage, new shape with the same element count.
  Tensor reshaped(Shape shape) const;
  // Element i converted to double / int64 (for small shape-like tensors and tests).
  double scalar_as_double(int64_t i = 0) const;
  int64_t scalar_as_int(int64_t i = 0) const;
  // All elements as int64 (for shape/axes/pads inputs); requires an integer dtype.
  std::vector<int64_t> to_int64_vector() const;

 private:
  DType dtype_ = DType::kUndefined;
  Shape shape_;
  int64_t numel_ = 0;
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
};

}  // namespace openge
