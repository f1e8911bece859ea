// What a compile decided, written to the log (src/logging/log.h): the fusion passes that rewrote
// the graph, the precision pass's changes and warnings, and each node's engine (AI Core, or the
// AI CPU fallback and why).
#pragma once

namespace openge {

class Executable;
struct CompileReport;

void log_compile_decisions(const Executable& exe, const CompileReport& report, bool aicore_enabled);

}  // namespace openge
