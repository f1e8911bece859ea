#include "session/observed_run.h"

#include "dump/data_dumper.h"
#include "profiling/clock.h"
#include "profiling/profiler.h"
#include "session/observer_list.h"

namespace openge {

Status run_observed(const Executable& exe, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                    profiling::Profiler* profiler, dump::DataDumper* dumper, RunStats* stats, const char* api_name,
                    const std::function<Status()>& after_run, RunObserver* also) {
  Status ran;
  std::unique_ptr<RunObserver> dump_observer = dumper ? dumper->begin_iteration(exe) : nullptr;
  if (profiler) {
    const int64_t execute_start = profiling::steady_now_ns();
    auto iteration = profiler->begin_iteration(&exe, exe.nodes().size());
    ObserverList observers({iteration.get(), dump_observer.get(), also});
    ran = exe.run_into(inputs, outputs, stats, observers.get());
    // Recorded before the iteration closes so that it lands on this iteration's timeline.
    profiler->record_api(api_name, execute_start, profiling::steady_now_ns());
    if (ran.ok() && after_run) ran = after_run();
    Status recorded = profiler->end_iteration(std::move(iteration), ran.ok());
    if (ran.ok() && !recorded.ok()) return recorded.with_context("profiling");
  } else {
    ObserverList observers({dump_observer.get(), also});
    ran = exe.run_into(inputs, outputs, stats, observers.get());
    if (ran.ok() && after_run) ran = after_run();
  }
  if (dumper) {
    Status dumped = dumper->end_iteration(std::move(dump_observer));
    if (ran.ok() && !dumped.ok()) return dumped.with_context("dump_config.dump_path");
  }
  return ran;
}

}  // namespace openge
