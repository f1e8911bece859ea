// Helpers shared by the neural-network op family (nn_*.cpp): dtype checks, viewing a tensor as
// the compute type (float for fp16/bf16/fp32, double for fp64), storing results with one
// rounding, and the per-file registration hooks that register_nn_ops() calls.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/dispatch.h"
#include "ops/op_context.h"
#include "ops/op_registry.h"

namespace openge {

void register_nn_conv_ops(std::vector<OpSchema>& table);    // Conv, ConvTranspose
void register_nn_pool_ops(std::vector<OpSchema>& table);    // MaxPool, AveragePool, Global*Pool
void register_nn_norm_ops(std::vector<OpSchema>& table);    // BatchNormalization, Instance-, LayerNormalization
void register_nn_resize_ops(std::vector<OpSchema>& table);  // Resize, Upsample

// The type a kernel for element type T computes in: double for fp64, float otherwise.
template <class T>
using nn_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

inline bool is_nn_float(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat64;
}

// Error unless input `i` (when present) has a float dtype equal to input 0's.
inline Status check_float_input(const InferContext& ctx, size_t i, const char* what) {
  if (!ctx.has_input(i)) return Status::Ok();
  const DType t = ctx.input_dtype(i);
  if (!is_nn_float(t))
    return ctx.error(std::string(what) + " has dtype " + dtype_name(t) +
                     "; expected float16, bfloat16, float32 or float64");
  if (i != 0 && t != ctx.input_dtype(0))
    return ctx.error(std::string(what) + " has dtype " + dtype_name(t) + " but input 0 has " +
                     dtype_name(ctx.input_dtype(0)));
  return Status::Ok();
}

// A tensor's elements as Acc: borrowed when the tensor already holds Acc, converted otherwise
// (any numeric dtype).
template <class Acc>
class AccView {
 public:
  explicit AccView(const Tensor& t) {
    if (t.dtype() == (std::is_same_v<Acc, double> ? DType::kFloat64 : DType::kFloat32)) {
      data_ = t.data<Acc>();
      return;
    }
    storage_.resize(static_cast<size_t>(t.numel()));
    visit_dtype(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = t.data<T>();
      for (int64_t i = 0; i < t.numel(); ++i)
        storage_[static_cast<size_t>(i)] = static_cast<Acc>(static_cast<float_or_self_t<T>>(src[i]));
    });
    data_ = storage_.data();
  }
  const Acc* data() const { return data_; }
  Acc operator[](int64_t i) const { return data_[i]; }

 private:
  const Acc* data_ = nullptr;
  std::vector<Acc> storage_;
};

// One rounding from the compute type to the storage type.
template <class T, class Acc>
inline T nn_store(Acc v) {
  if constexpr (is_half_v<T>)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// Where a kernel writes Acc results: straight into the output when it holds Acc, into a scratch
// buffer otherwise; finish() rounds the scratch into the output once.
template <class T, class Acc>
class AccOutput {
 public:
  explicit AccOutput(Tensor& out) : out_(out) {
    if constexpr (std::is_same_v<T, Acc>) {
      data_ = out.data<Acc>();
    } else {
      storage_.assign(static_cast<size_t>(out.numel()), Acc(0));
      data_ = storage_.data();
    }
  }
  Acc* data() { return data_; }
  void finish() {
    if constexpr (!std::is_same_v<T, Acc>) {
      T* dst = out_.data<T>();
      for (int64_t i = 0; i < out_.numel(); ++i) dst[i] = nn_store<T>(data_[i]);
    }
  }

 private:
  Tensor& out_;
  Acc* data_ = nullptr;
  std::vector<Acc> storage_;
};

// The spatial dims of an N x C x D1 x ... shape.
inline std::vector<int64_t> spatial_dims(const Shape& s) {
  return s.size() > 2 ? std::vector<int64_t>(s.begin() + 2, s.end()) : std::vector<int64_t>{};
}

// True when every dim is known (>= 0).
inline bool dims_known(const Shape& s) {
  for (int64_t d : s)
    if (d < 0) return false;
  return true;
}

}  // namespace openge
