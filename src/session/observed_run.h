// One run of a compiled graph under the artifacts a configuration asked for: the profiler's
// iteration (timeline, op summary, step trace) and the Data Dump's, both at once when both are
// on. What a Session's run and a Trainer's step share.
#pragma once
#include <functional>
#include <vector>

#include "runtime/executable.h"

namespace openge {
namespace profiling {
class Profiler;
}
namespace dump {
class DataDumper;
}

// Runs `exe` into `outputs`; `profiler` and `dumper` may be null. `api_name` is the host API the
// profile records the run as (runtime_api). `after_run`, when given, runs after a good run and
// inside the iteration (a training step's optimizer update: the step trace's Iteration Refresh).
// `also`, when given, observes the run too (a data-parallel step's gradient hand-over).
// The run's error comes first; an artifact error after a good run is returned with the option it
// concerns.
Status run_observed(const Executable& exe, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                    profiling::Profiler* profiler, dump::DataDumper* dumper, RunStats* stats, const char* api_name,
                    const std::function<Status()>& after_run = nullptr, RunObserver* also = nullptr);

}  // namespace openge
