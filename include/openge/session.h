// The public entry point: open a model, run it. A Session compiles the model once per set of
// input shapes and reuses that compiled graph (the last compiled_shape_cache_size shape sets, 8
// by default); run() may be called from several threads, and a run whose shapes are compiled
// never waits for another thread's compile of new shapes.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

namespace options {
class OptionSet;
}

struct SessionOptions {
  // Threads of compiles and runs, set on the calling thread only for the call (its OpenMP
  // setting is restored after). 0: the OpenMP setting of the thread opening the session, i.e.
  // OMP_NUM_THREADS, else one per core.
  int num_threads = 0;
  bool use_aicore = true;  // false: run every op on the reference (AI CPU) engine
  bool run_passes = true;  // graph fusion passes
  // The validated npu.global_options() configuration (src/options/option_set.h); null means
  // every option at its default. The session never reads the environment itself.
  std::shared_ptr<const options::OptionSet> config;
};

struct TensorInfo {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape shape;                          // -1 for a dimension fixed only at run time
  ValueKind kind = ValueKind::kTensor;  // a sequence or optional: dtype is its elements', no shape
};

struct RunInfo {
  size_t arena_bytes = 0;         // planned intermediate memory (peak, with reuse)
  size_t peak_dynamic_bytes = 0;  // intermediates sized at run time
  int aicore_nodes = 0;
  int aicpu_nodes = 0;
};

// One row of the precision report: what the precision pass (precision_mode, mixed-precision
// lists, customize_dtypes, impl modes) decided for one node, and the rule that decided it.
struct PrecisionRecord {
  std::string node, op_type, ascend_type;  // ascend_type: the Ascend IR type the SoC table knows it by
  std::string original_dtype;              // the node's float dtype in the model ("" when it has none)
  std::string input_dtype, output_dtype;   // the dtypes it computes in
  std::string engine;                      // "AI_CORE" / "AI_CPU": where it runs
  std::string rule;                        // e.g. "precision_mode=allow_mix_precision: white list (...)"
  std::string impl_mode, impl_rule;        // "" when the kernel's default implementation runs
};

class Session {
 public:
  ~Session();
  static Result<std::unique_ptr<Session>> open(const std::string& model_path, const SessionOptions& options = {});
  // The same from a serialized ModelProto in memory (the Python package's bytes models);
  // `source_name` names it in messages, external data resolves against the working directory.
  static Result<std::unique_ptr<Session>> open_from_memory(const void* data, size_t size,
                                                           const SessionOptions& options = {},
                                                           const std::string& source_name = "<memory>");

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;

  // Inputs in the order of inputs(); outputs in the order of outputs().
  Result<std::vector<Tensor>> run(const std::vector<Tensor>& inputs, RunInfo* info = nullptr);
  // The same, writing into `outputs`: a tensor there that already has the output's dtype and
  // shape and whose storage nobody else holds (the previous run's outputs, typically) is
  // overwritten in place; the others are replaced. Once its shapes are compiled, such a run of a
  // static-shape model with profiling and dumps off allocates no memory (docs/DECISIONS.md,
  // "Allocation-free runs").
  Status run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, RunInfo* info = nullptr);

  // Profiling (profiling_config.enable_profiling / PROFILING_MODE=true in SessionOptions.config):
  // every run is an iteration of the collection folder, written when the session finishes.
  // The collection folder PROF_*, or "" when profiling is off.
  std::string profiling_dir() const;
  // Writes all pending profiling data, the info files and report.html; later runs are not
  // recorded. The destructor does it too (ignoring errors).
  Status finish_profiling();
  // While paused, runs are left out of the profile (a benchmark's warm-up); they still count as
  // iterations, so the recorded ones keep their numbers and none passes for iteration 1. No-op
  // when profiling is off.
  void pause_profiling(bool paused);
  // msproftx (profiling_options "msproftx": "on"): user markers on this thread, shown on the
  // timeline; no-ops when profiling or msproftx is off. range_pop without a push is an error.
  void range_push(const std::string& message);
  Status range_pop();
  void mark(const std::string& message);

  // Data Dump / overflow detection (dump_config.enable_dump / enable_dump_debug): the folder
  // <dump_path>/<YYYYmmddHHMMSS> of this session, or "" when both are off. Files are written in
  // the background; flush_dump() waits for them and returns the first write error (the
  // destructor waits too).
  std::string dump_dir() const;
  Status flush_dump();

  // The precision decisions of the graph compiled by the first run (empty before it, and when
  // SessionOptions.config is null), with the settings the pass ignored and why.
  std::vector<PrecisionRecord> precision_report() const;
  std::vector<std::string> precision_warnings() const;

  // Input-shape sets whose compiled graph is cached now (at most compiled_shape_cache_size).
  size_t compiled_shape_count() const;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  // open() and open_from_memory(): `data` null reads the file `name`.
  static Result<std::unique_ptr<Session>> open_model(const std::string& name, const void* data, size_t size,
                                                     const SessionOptions& options);
  std::unique_ptr<Impl> impl_;
};

}  // namespace openge
