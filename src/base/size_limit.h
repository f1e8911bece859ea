// The size-limit policy: the one place that decides how large a single tensor OpenGE will
// allocate, and the checked shape arithmetic every size computation goes through. A model
// whose sizes are computed from data (ConstantOfShape of a constant, Expand, Tile, Range …) can
// ask for any number of bytes; it gets an error naming the node, the shape and the limit instead
// of exhausting the machine's memory.
//
// Where it is enforced: the Tensor constructor (every owned allocation: initializers, folded
// constants, run-time outputs, clones) refuses a tensor over the limit by throwing
// TensorSizeError, and every inferred output shape is checked by run_infer (ops/node_eval.h)
// at compile and run time, which is where the node's name is known. The Session boundary turns
// anything that still escapes into an error Status (base/guard.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge {

// Default limit of one tensor allocation: 4 GiB. Real models stay far below it: BERT-large's
// largest initializer (the 30522x1024 fp32 word embedding) is 125 MB, a BERT-base with its
// embeddings merged into one initializer 340 MB, GPT-2 XL's embedding 320 MB; ResNet-50's
// largest activation at batch 64 is 205 MB. It is well under the memory of the machines OpenGE
// runs on, so a hostile model is stopped before the kernel's OOM killer would be. The option
// max_tensor_bytes (env OPENGE_MAX_TENSOR_BYTES) overrides it per session.
inline constexpr uint64_t kDefaultMaxTensorBytes = uint64_t{4} << 30;

// Most iterations one Loop node runs (runtime/control_flow.cpp): a hostile trip count with a
// condition that never turns false must end in an error, not hang. Ten million iterations of
// even a one-op body take seconds; exported sequence loops run hundreds.
inline constexpr int64_t kMaxLoopIterations = 10'000'000;

// The limit in force on the calling thread: that of the innermost ScopedMaxTensorBytes (a
// Session sets its own around open/compile/run), else kDefaultMaxTensorBytes.
uint64_t max_tensor_bytes();

// Sets the calling thread's limit for the lifetime of the object (0 keeps the current one).
class ScopedMaxTensorBytes {
 public:
  explicit ScopedMaxTensorBytes(uint64_t limit);
  ~ScopedMaxTensorBytes();
  ScopedMaxTensorBytes(const ScopedMaxTensorBytes&) = delete;
  ScopedMaxTensorBytes& operator=(const ScopedMaxTensorBytes&) = delete;

 private:
  uint64_t previous_;
};

// Element count of a tensor with these dims (1 for a scalar). An error for a negative dim and
// for a product that overflows int64. The product of the non-zero dims must fit too: code that
// computes strides multiplies dims before it meets a zero, so [2^62, 2^62, 0] is refused.
Result<int64_t> checked_numel(const std::vector<int64_t>& dims);

// Bytes of a tensor with these dims and `elem_size`-byte elements, with the same checks.
Result<uint64_t> checked_nbytes(const std::vector<int64_t>& dims, size_t elem_size);

// Ok when a tensor with these dims fits under max_tensor_bytes(): dims non-negative, no
// overflow, and the extent (the product of the non-zero dims, so that an empty tensor cannot
// carry absurd dims either) times elem_size at most the limit. The error (code
// kResourceExhausted, or kInvalidModel for a negative dim) starts with `what` and gives the
// shape, the bytes and the limit.
Status check_tensor_size(const std::vector<int64_t>& dims, size_t elem_size, const std::string& what);

// "[1,3,224,224]", without depending on tensor.h.
std::string dims_to_string(const std::vector<int64_t>& dims);

// Thrown where a size check cannot return a Status (the Tensor constructor). The Session
// boundary and the per-node guards (base/guard.h) turn it into an error naming the node.
class TensorSizeError : public std::length_error {
 public:
  explicit TensorSizeError(Status status) : std::length_error(status.message()), status_(std::move(status)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

}  // namespace openge
