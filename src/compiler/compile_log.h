// What a compile decided, written to the log (src/logging/log.h): the fusion passes that rewrote
// the graph, the precision pass's changes and warnings, and each node's engine (AI Core, or the
// AI CPU fallback and why), and the thread plan with its digest.
#pragma once
#include <string>

namespace openge {

class Executable;
struct CompileReport;

// The first 16 hex digits of the SHA-256 of the thread plan: the grain, team or calling thread,
// each node's name and single-thread decision, and the steps that run two branches at once. Two
// compiles that made the same plan print the same digest, so starts of one model on one machine
// print one digest (the grain comes from the machine's calibration, compiler/grain_calibration.h).
std::string thread_plan_hash(const Executable& exe);

void log_compile_decisions(const Executable& exe, const CompileReport& report, bool aicore_enabled);

}  // namespace openge
