// The per-node precision report: what the precision pass decided for each node
// of a compiled graph, with the engine that runs it. Session::precision_report(), `openge
// explain-precision --json` and the file written beside the graph dumps all come from here.
#pragma once
#include <string>
#include <vector>

#include "openge/explain_precision.h"
#include "openge/session.h"

namespace openge {

class Executable;
struct CompileReport;

std::vector<PrecisionRecord> precision_records(const Executable& exe, const CompileReport& report);

}  // namespace openge
