// Two RunObservers of one run (the profiler's iteration and the Data Dump), called in order.
#pragma once
#include "runtime/executable.h"

namespace openge {

class ObserverPair : public RunObserver {
 public:
  ObserverPair(RunObserver* first, RunObserver* second) : first_(first), second_(second) {}
  void on_node_start(size_t index, const CompiledNode& node) override {
    first_->on_node_start(index, node);
    second_->on_node_start(index, node);
  }
  void on_node_end(size_t index, const CompiledNode& node, const std::vector<const Tensor*>& inputs,
                   const std::vector<const Tensor*>& outputs) override {
    first_->on_node_end(index, node, inputs, outputs);
    second_->on_node_end(index, node, inputs, outputs);
  }
  void on_outputs_start() override {
    first_->on_outputs_start();
    second_->on_outputs_start();
  }
  void on_outputs_end(size_t copied_bytes) override {
    first_->on_outputs_end(copied_bytes);
    second_->on_outputs_end(copied_bytes);
  }

 private:
  RunObserver* first_;
  RunObserver* second_;
};

}  // namespace openge
