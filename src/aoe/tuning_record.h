// The record of one tuning run (ENV-2: task name, tuning time, model and operator times before
// and after, knowledge-base hits), in the layout of CANN's operator-tuning result
// (docs/FORMATS.md, "AOE: tuning records"): aoe_result_opat_<YYYYmmddHHMMSSmmm>_pid<pid>.json in the aoe_data
// folder, one object {"report_<timestamp>_<tid>": [{"basic": ...}, {"OPAT": ...}]}, written
// atomically.
#pragma once
#include <string>

#include "aoe/tuning_stats.h"
#include "openge/status.h"
#include "paths/artifact_paths.h"

namespace openge::aoe {

// The record's JSON text for a run of model `model_name` (what write_tuning_record writes).
std::string tuning_record_json(const TuningStats& stats, const std::string& model_name, const std::string& timestamp);

// Writes the record into `aoe_data` (its folder prepared as the artifact chain says) and returns
// the file's path.
Result<std::string> write_tuning_record(const TuningStats& stats, const std::string& model_name,
                                        const paths::ResolvedPath& aoe_data);

// aoe_mode 1: aoe_result_sgat_<timestamp>_pid<pid>.json, {"report_...": [{"basic": ...},
// {"SGAT": {candidates with their model times, the passes switched off, knowledge base}}]}.
std::string subgraph_record_json(const TuningStats& stats, const std::string& model_name, const std::string& timestamp);
Result<std::string> write_subgraph_record(const TuningStats& stats, const std::string& model_name,
                                          const paths::ResolvedPath& aoe_data);

// aoe_mode 4: aoe_result_gdat_<timestamp>_pid<pid>.json, {"report_...": [{"basic": ...},
// {"GDAT": {every split measured with its step time, the split chosen as set_split_strategy_by_idx
// takes it, the rank count, knowledge base}}]}.
std::string gradient_split_record_json(const TuningStats& stats, const std::string& model_name,
                                       const std::string& timestamp);
Result<std::string> write_gradient_split_record(const TuningStats& stats, const std::string& model_name,
                                                const paths::ResolvedPath& aoe_data);

}  // namespace openge::aoe
