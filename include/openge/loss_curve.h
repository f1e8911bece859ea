// The record of a training run: one row per step (epoch, step, loss, samples/s) and one per
// epoch's evaluation, written as CSV and as a self-contained HTML page with the loss curve as
// inline SVG (no script, no network). Both files are written atomically.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge::training {

struct StepRecord {
  int64_t epoch = 0, step = 0;
  double loss = 0;
  double samples_per_second = 0;
};

struct EpochRecord {
  int64_t epoch = 0;
  double mean_loss = 0;
  double accuracy = -1;  // -1: no evaluation data
};

class LossCurve {
 public:
  void add_step(const StepRecord& r) { steps_.push_back(r); }
  void add_epoch(const EpochRecord& r) { epochs_.push_back(r); }
  const std::vector<StepRecord>& steps() const { return steps_; }
  const std::vector<EpochRecord>& epochs() const { return epochs_; }

  // CSV: "epoch,step,loss,samples_per_s" rows.
  Status write_csv(const std::string& path) const;
  // HTML: the loss per step as a line, the epochs' accuracy in a table; `title` names the model.
  Status write_html(const std::string& path, const std::string& title) const;

 private:
  std::vector<StepRecord> steps_;
  std::vector<EpochRecord> epochs_;
};

}  // namespace openge::training
