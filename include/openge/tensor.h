// A dense, row-major tensor: dtype, shape and a byte buffer that is either owned (shared, so
// copies are cheap) or borrowed from an arena the executor manages. A string tensor (kString)
// owns an array of std::string (never borrowed, never memcpy'd; nbytes() is 0).
// The same class carries ONNX's other value kinds through the executor: a sequence of tensors,
// and an optional of a tensor or of a sequence (ValueKind). Their tensors are owned and shared,
// never modified; to code that only knows tensors they look like an empty tensor (shape [0],
// no bytes), so memory planning, dumps and the profiler pass them by.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "openge/dtype.h"

namespace openge {

using Shape = std::vector<int64_t>;

// What a value is. kOptional holds an optional tensor, kOptionalSequence an optional sequence.
enum class ValueKind : uint8_t { kTensor = 0, kSequence = 1, kOptional = 2, kOptionalSequence = 3 };
// "tensor", "sequence", "optional", "optional sequence" (for messages).
const char* value_kind_name(ValueKind kind);

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
  // A sequence whose tensors have element type `elem`; each element must own its storage.
  static Tensor sequence(DType elem, std::vector<Tensor> elements);
  // An optional (kind kOptional or kOptionalSequence) with element type `elem`, holding `value`
  // (a default Tensor: the empty optional).
  static Tensor optional(ValueKind kind, DType elem, Tensor value);

  ValueKind kind() const { return kind_; }
  bool is_tensor() const { return kind_ == ValueKind::kTensor; }
  // A sequence's tensors, or an optional's value (none or one); empty for a tensor.
  const std::vector<Tensor>& elements() const;

  bool defined() const { return dtype_ != DType::kUndefined; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * dtype_size(dtype_); }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <class T>
  T* data() {
    return static_cast<T*>(data_);
  }
  template <class T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }

  // False for a borrowed view (arena memory) that must be copied before it outlives a run.
  bool owns_storage() const { return owner_ != nullptr || kind_ != ValueKind::kTensor; }
  // A deep copy with owned storage (a sequence or optional: the same immutable elements).
  Tensor clone() const;
  // Same storage, new shape with the same element count.
  Tensor reshaped(Shape shape) const;
  // For the executor's prepared slots, which are made once and reused by every run, so that a
  // run allocates nothing: share `from`'s bytes (same byte count) under this tensor's own dtype
  // and shape, and drop them again after the run.
  void share_storage(const Tensor& from) {
    owner_ = from.owner_;
    data_ = from.data_;
  }
  void drop_storage() {
    owner_.reset();
    data_ = nullptr;
  }
  // True when nothing else holds this tensor's storage (a run may overwrite it in place).
  bool sole_owner() const { return owner_ && owner_.use_count() == 1 && kind_ == ValueKind::kTensor; }
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
  ValueKind kind_ = ValueKind::kTensor;
  std::shared_ptr<const std::vector<Tensor>> elements_;  // sequence / optional only
};

}  // namespace openge
