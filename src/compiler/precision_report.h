// The per-node precision report: what the precision pass decided for each node
// of a compiled graph, with the engine that runs it. Session::precision_report(), `openge
// explain-precision --json` and the file written beside the graph dumps all come from here.
#pragma once
#include <string>
#include <vector>

#include "openge/session.h"

namespace openge {

class Executable;
struct CompileReport;

std::vector<PrecisionRecord> precision_records(const Executable& exe, const CompileReport& report);
// {"nodes": [{node, op_type, ascend_type, original_dtype, input_dtype, output_dtype, engine, rule,
// impl_mode, impl_rule}...], "warnings": [...]}, indented by 2.
std::string precision_report_json(const std::vector<PrecisionRecord>& records,
                                  const std::vector<std::string>& warnings);

}  // namespace openge
