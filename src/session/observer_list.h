// The RunObservers of one run (the profiler's iteration, the Data Dump, a data-parallel step's
// gradient hand-over), called in the order given; null entries are skipped. Held in place, not on
// the heap: a run allocates nothing (docs/DECISIONS.md, "allocation-free runs").
#pragma once
#include <array>
#include <initializer_list>

#include "runtime/executable.h"

namespace openge {

class ObserverList : public RunObserver {
 public:
  static constexpr size_t kMax = 3;
  ObserverList(std::initializer_list<RunObserver*> observers) {
    for (RunObserver* o : observers)
      if (o && count_ < kMax) observers_[count_++] = o;
  }
  // The one observer a run needs: null for none, the observer itself for one, this list otherwise.
  RunObserver* get() { return count_ == 0 ? nullptr : count_ == 1 ? observers_[0] : this; }

  void on_node_start(size_t index, const CompiledNode& node) override {
    for (size_t i = 0; i < count_; ++i) observers_[i]->on_node_start(index, node);
  }
  void on_node_end(size_t index, const CompiledNode& node, const std::vector<const Tensor*>& inputs,
                   const std::vector<const Tensor*>& outputs) override {
    for (size_t i = 0; i < count_; ++i) observers_[i]->on_node_end(index, node, inputs, outputs);
  }
  void on_outputs_start() override {
    for (size_t i = 0; i < count_; ++i) observers_[i]->on_outputs_start();
  }
  void on_outputs_end(size_t copied_bytes) override {
    for (size_t i = 0; i < count_; ++i) observers_[i]->on_outputs_end(copied_bytes);
  }

 private:
  std::array<RunObserver*, kMax> observers_{};
  size_t count_ = 0;
};

}  // namespace openge
