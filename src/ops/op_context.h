// What an op implementation sees. Shape/dtype inference and computation are separate: an op's
// `infer` function is the single place that decides output dtypes and shapes (it runs at
// compile time on what is known, and again at run time on real tensors when a shape depended
// on data), and its kernel only fills outputs that the executor has already allocated.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"
#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

// What is known about one value during inference.
// A sequence or optional (kind) has no shape; dtype is its elements', value the whole thing.
struct ValueInfo {
  DType dtype = DType::kUndefined;
  bool shape_known = false;
  Shape shape;
  const Tensor* value = nullptr;  // the data, when known (constants, or at run time)
  ValueKind kind = ValueKind::kTensor;
};

// The precision pass sets a node's impl mode (op_select_implmode / op_precision_mode). Kernels
// with two implementations run the fast approximation by default and the exact one (libm, in
// the accumulation type) under "high_precision", as CANN's high-precision kernels do.
inline bool high_precision_impl(const Node& node) { return node.impl_mode == "high_precision"; }

class InferContext {
 public:
  InferContext(const Node& node, int64_t opset, std::vector<const ValueInfo*> inputs, size_t num_outputs)
      : node_(node), opset_(opset), inputs_(std::move(inputs)), outputs_(num_outputs) {}

  const Node& node() const { return node_; }
  const Attributes& attrs() const { return node_.attrs; }
  int64_t opset() const { return opset_; }

  size_t num_inputs() const { return inputs_.size(); }
  // False for an omitted optional input (and for indices past the end).
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  const ValueInfo& input(size_t i) const { return *inputs_[i]; }
  DType input_dtype(size_t i) const { return inputs_[i]->dtype; }
  ValueKind input_kind(size_t i) const { return inputs_[i]->kind; }
  bool input_shape_known(size_t i) const { return has_input(i) && inputs_[i]->shape_known; }
  const Shape& input_shape(size_t i) const { return inputs_[i]->shape; }
  const Tensor* input_value(size_t i) const { return has_input(i) ? inputs_[i]->value : nullptr; }

  size_t num_outputs() const { return outputs_.size(); }
  void set_output(size_t i, DType dtype, Shape shape) {
    outputs_[i].dtype = dtype;
    outputs_[i].shape = std::move(shape);
    outputs_[i].shape_known = true;
  }
  // The dtype is known but the shape depends on data not available yet.
  void set_output_dtype(size_t i, DType dtype) {
    outputs_[i].dtype = dtype;
    outputs_[i].shape_known = false;
  }
  // A sequence or optional output (no shape) with element type `elem`.
  void set_output_kind(size_t i, ValueKind kind, DType elem) {
    outputs_[i].kind = kind;
    outputs_[i].dtype = elem;
    outputs_[i].shape_known = false;
  }
  // An output whose value inference already knows (Shape, Size of static inputs).
  void set_output_value(size_t i, Tensor value) {
    set_output(i, value.dtype(), value.shape());
    folded_.resize(outputs_.size());
    folded_[i] = std::move(value);
  }
  const ValueInfo& output(size_t i) const { return outputs_[i]; }
  const std::vector<Tensor>& folded() const { return folded_; }

  // An error that names the node: "Conv 'conv1': <message>".
  Status error(const std::string& message) const {
    return invalid_model(node_.op_type + " '" + node_.name + "': " + message);
  }

 private:
  const Node& node_;
  int64_t opset_;
  std::vector<const ValueInfo*> inputs_;
  std::vector<ValueInfo> outputs_;
  std::vector<Tensor> folded_;
};

// Mutable state that a prepared kernel keeps for one run at a time (oneDNN memory objects and
// argument lists …). CompiledKernel::make_state makes it once per run state of an executor, so a
// run allocates nothing; a kernel run without one (tests, constant folding) makes its own.
struct KernelState {
  virtual ~KernelState() = default;
};

class KernelContext {
 public:
  KernelContext(const Node& node, int64_t opset, std::vector<const Tensor*> inputs, std::vector<Tensor*> outputs)
      : node_(node), opset_(opset), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}

  const Node& node() const { return node_; }
  const Attributes& attrs() const { return node_.attrs; }
  int64_t opset() const { return opset_; }

  size_t num_inputs() const { return inputs_.size(); }
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  const Tensor& input(size_t i) const { return *inputs_[i]; }
  size_t num_outputs() const { return outputs_.size(); }
  bool has_output(size_t i) const { return i < outputs_.size() && outputs_[i] != nullptr; }
  // Already allocated with the inferred dtype and shape.
  Tensor& output(size_t i) { return *outputs_[i]; }

  Status error(const std::string& message) const {
    return invalid_argument(node_.op_type + " '" + node_.name + "': " + message);
  }

  // What the executor prepared for this node's kernel: arena scratch of the kernel's
  // scratch_bytes() (null when it asked for none or runs outside an executor) and its state
  // (null outside an executor: the kernel then makes a temporary one).
  void* scratch() const { return scratch_; }
  KernelState* state() const { return state_; }
  void set_prepared(void* scratch, KernelState* state) {
    scratch_ = scratch;
    state_ = state;
  }

 private:
  const Node& node_;
  int64_t opset_;
  std::vector<const Tensor*> inputs_;
  std::vector<Tensor*> outputs_;
  void* scratch_ = nullptr;
  KernelState* state_ = nullptr;
};

}  // namespace openge
