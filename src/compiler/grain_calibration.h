// The threading grain's calibration, done once per machine and kept beside the operator compile
// cache. A grain measured at every compile followed the machine's load at that moment: one
// unlucky probe put every node of a model on one thread for the life of the process, and two
// starts of the same model made different plans (bench/RESULTS.md, "Thread plan digest"). The
// calibration instead measures what a team fork/join costs on this CPU itself (the lowest of
// several probes' tenth percentiles, which a loaded machine does not move much) and writes it to a small file in the
// compile-cache folder; every later compile at that thread count on that CPU reads the same number, so the same model
// gets the same thread plan at every start. The cost of a busy machine is borne at run time
// instead: parallel_for hands out its chunks dynamically (base/parallel.h).
//
// The file, <compile cache folder>/thread_calibration_<threads>.txt, is written to a temporary name
// and renamed. One written for another CPU (model name or instruction sets), another thread count
// or in another format, or one that does not parse, is ignored with a warning and calibrated anew.
// With the cache disabled (op_compiler_cache_mode=disable) or no options at all, nothing is read or
// written and the grain comes from kDefaultForkJoinUs: also the same at every start.
#pragma once
#include <string>

#include "openge/status.h"
#include "runtime/run_threads.h"

namespace openge::options {
class OptionSet;
}

namespace openge::compiler {

// A team fork/join on a quiet 2-core AMD EPYC (Zen 5) measured 2.1-3.1 us (bench/RESULTS.md,
// "the measured threading grain"): the grain used where no calibration can be kept.
inline constexpr double kDefaultForkJoinUs = 3.0;

// What identifies the CPU a calibration holds for: its model name and instruction sets.
std::string cpu_identity();

// The calibration file's name for `threads` threads in the compile-cache folder `cache_root`.
std::string calibration_path(const std::string& cache_root, int threads);

// The file's text for a fork/join of `fork_join_us` at `threads` threads on the CPU `cpu`.
std::string calibration_text(const std::string& cpu, int threads, double fork_join_us);

// The fork/join in `text` when it was written for `cpu` and `threads`; otherwise an error that
// says what does not match or does not parse.
Result<double> parse_calibration(const std::string& text, const std::string& cpu, int threads);

// Times empty parallel regions of `threads` threads: several probes of a few milliseconds, the
// lowest of their tenth percentiles. Takes about 60 ms.
double calibrate_fork_join_us(int threads);

// The grain for a compile at `threads` threads (2 or more): the calibration in the compile-cache
// folder `cache_root` (CompileConfig::grain_cache_root), made there first when missing or
// unusable, or the default when it is "" (no cache folder in use). Read once per process and folder.
ThreadingGrain calibrated_threading_grain(int threads, const std::string& cache_root);
// The folder calibrated_threading_grain keeps its calibration in under `options`: the compile
// cache's, "" when the cache is off or its settings do not resolve.
std::string grain_cache_root(const options::OptionSet& options);

}  // namespace openge::compiler
