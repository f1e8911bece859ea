// Per-tensor statistics of the stats Data Dump (dump_data=stats, OPT-dump_config.dump_data-2)
// and their CSV file, in the column names of CANN's device-side stats (docs/FORMATS.md, "Data Dump: stats CSV").
#pragma once
#include <cstdint>
#include <string>

#include "dump/dump_file.h"
#include "openge/tensor.h"

namespace openge::dump {

// Max, Min, Avg and L2 norm are taken over the finite elements (NaN and ±Inf are counted
// apart, so one NaN does not hide the rest); NaN when the tensor has no finite element.
// Integers and bool count as their values; every sum is in double.
struct TensorStats {
  int64_t count = 0;
  double max = 0, min = 0, avg = 0, l2norm = 0;
  int64_t nan = 0, neg_inf = 0, pos_inf = 0;
};

TensorStats compute_stats(const Tensor& t);

// The CSV of one dump file's tensors: a header line, then one row per tensor (inputs first).
std::string stats_csv(const DumpRecord& record);

// The CSV header line (without the newline), for readers and tests.
const char* stats_csv_header();

}  // namespace openge::dump
