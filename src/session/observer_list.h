// The RunObservers of one run (the profiler's iteration, the Data Dump, a data-parallel step's
// gradient hand-over), called in the order given; null entries are skipped.
#pragma once
#include <vector>

#include "runtime/executable.h"

namespace openge {

class ObserverList : public RunObserver {
 public:
  explicit ObserverList(std::vector<RunObserver*> observers) {
    for (RunObserver* o : observers)
      if (o) observers_.push_back(o);
  }
  // The one observer a run needs: null for none, the observer itself for one, this list otherwise.
  RunObserver* get() { return observers_.empty() ? nullptr : observers_.size() == 1 ? observers_[0] : this; }

  void on_node_start(size_t index, const CompiledNode& node) override {
    for (RunObserver* o : observers_) o->on_node_start(index, node);
  }
  void on_node_end(size_t index, const CompiledNode& node, const std::vector<const Tensor*>& inputs,
                   const std::vector<const Tensor*>& outputs) override {
    for (RunObserver* o : observers_) o->on_node_end(index, node, inputs, outputs);
  }
  void on_outputs_start() override {
    for (RunObserver* o : observers_) o->on_outputs_start();
  }
  void on_outputs_end(size_t copied_bytes) override {
    for (RunObserver* o : observers_) o->on_outputs_end(copied_bytes);
  }

 private:
  std::vector<RunObserver*> observers_;
};

}  // namespace openge
