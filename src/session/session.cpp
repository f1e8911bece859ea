#include "openge/session.h"

#include <atomic>

#include <filesystem>
#include <map>
#include <optional>
#include <mutex>
#include <set>

#include <omp.h>

#include "base/guard.h"
#include "base/size_limit.h"
#include "dump/data_dumper.h"
#include "dump/exception_dump.h"
#include "frontend/onnx_loader.h"
#include "logging/log.h"
#include "oge/oge_compat.h"
#include "oge/oge_file.h"
#include "options/option_set.h"
#include "precheck/check_report.h"
#include "profiling/profiler.h"
#include "compiler/pipeline.h"
#include "session/compile_config_resolver.h"
#include "session/external_weights.h"
#include "session/observed_run.h"
#include "compiler/packed_constant_release.h"
#include "compiler/precision_report.h"
#include "compiler/prebuilt_kernels.h"
#include "session/shape_cache.h"

namespace openge {

struct Session::Impl {
  // external_weight=True: the files the graph's weights are mapped from. Declared first so that it
  // is destroyed last: the graph and every compiled graph hold views of its mappings.
  std::unique_ptr<ExternalWeights> external_weights;
  Graph graph;
  bool precompiled = false;  // the graph came from a .oge: compiles skip the rewrites
  // The generated kernels the .oge carries (compiler/prebuilt_kernels.h); null: none.
  std::shared_ptr<const compiler::PrebuiltKernels> prebuilt_kernels;
  SessionOptions options;
  // options.config resolved for the compiles (compiler/compile_config.h); null without options.
  std::shared_ptr<const compiler::CompileConfig> compile_config;
  std::vector<TensorInfo> inputs, outputs;
  // Threads of every compile and run: SessionOptions.num_threads, or (0) the OpenMP setting of
  // the thread that opened the session (OMP_NUM_THREADS, else one per core).
  int num_threads = 1;
  // One compiled graph per distinct set of input shapes, bounded (option compiled_shape_cache_size).
  std::unique_ptr<ShapeCache> compiled;
  // With profiling on, every graph a run used, kept past its eviction from `compiled`: the
  // profiler's records point into it until the profiler is destroyed.
  std::mutex profiled_mutex;
  std::set<std::shared_ptr<Executable>> profiled;
  // Declared after `compiled` so that it is destroyed first: its records point into the
  // compiled graphs, and its destructor writes them.
  std::unique_ptr<profiling::Profiler> profiler;
  std::atomic<bool> profiling_paused{false};
  // Data Dump / overflow detection (dump_config.*); null while both are off.
  std::unique_ptr<dump::DataDumper> dumper;
  // The exception dump (enable_exception_dump) every compiled graph tells of a failing node; null
  // while it is off.
  std::shared_ptr<const NodeFailureHook> failure_hook;
  // The first successful compile and its report (precision report and warnings describe it).
  std::mutex first_mutex;
  std::shared_ptr<Executable> first_exe;
  std::shared_ptr<const CompileReport> first_report;
  uint64_t max_tensor_bytes = kDefaultMaxTensorBytes;  // option max_tensor_bytes
  std::string source;                                  // graph.source, read without graph_mutex

  // A model whose inputs all have fixed shapes is compiled once. Its first compile takes `graph`,
  // weights and all, and the session keeps a copy without constant data: the weights then live
  // only in the compiled graph, which drops those its kernels packed (packed_constant_release.h),
  // so a large model's weights are never held twice.
  std::mutex graph_mutex;
  bool graph_handed_over = false;
  std::vector<Shape> handed_over_shapes;
  Status handed_over_failure;  // why that compile failed: every later run gets the same error

  Result<Graph> graph_for_compile(const std::vector<Shape>& shapes);
  bool graph_handed_over_for(const std::vector<Shape>& shapes) {
    std::lock_guard<std::mutex> lock(graph_mutex);
    return graph_handed_over && shapes == handed_over_shapes;
  }
  void compile_failed(const std::vector<Shape>& shapes, const Status& status);
};

namespace {

// Whether `shapes` are the only shapes the graph's inputs can have (all tensors, all dims fixed).
bool fixed_input_shapes(const Graph& g, const std::vector<Shape>& shapes) {
  if (shapes.size() != g.inputs.size()) return false;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Value& v = g.values[static_cast<size_t>(g.inputs[i])];
    if (v.kind != ValueKind::kTensor || !v.shape || *v.shape != shapes[i]) return false;
    for (int64_t d : *v.shape)
      if (d < 0) return false;
  }
  return true;
}

}  // namespace

Result<Graph> Session::Impl::graph_for_compile(const std::vector<Shape>& shapes) {
  std::lock_guard<std::mutex> lock(graph_mutex);
  // Other shapes of a fixed-shape model: the compile refuses them before it reads a constant.
  if (graph_handed_over)
    return shapes == handed_over_shapes ? Result<Graph>(handed_over_failure) : Result<Graph>(graph);
  if (!fixed_input_shapes(graph, shapes)) return graph;  // a copy: constants are shared, not copied
  Graph full = std::move(graph);
  graph = without_constant_data(full);
  graph_handed_over = true;
  handed_over_shapes = shapes;
  return full;
}

void Session::Impl::compile_failed(const std::vector<Shape>& shapes, const Status& status) {
  std::lock_guard<std::mutex> lock(graph_mutex);
  if (graph_handed_over && shapes == handed_over_shapes && handed_over_failure.ok()) handed_over_failure = status;
}

namespace {

// The session's size limit (base/size_limit.h): option max_tensor_bytes, else the default.
uint64_t max_tensor_bytes_of(const SessionOptions& options) {
  const int64_t v = options.config ? options.config->get_int("max_tensor_bytes", 0) : 0;
  return v > 0 ? static_cast<uint64_t>(v) : kDefaultMaxTensorBytes;
}

// Every error that leaves the session lands in the log (and flushes the atrace ring).
template <class T>
Result<T> logged(Result<T> result) {
  if (!result.ok()) OPENGE_LOG_ERROR("GE", result.status().message());
  return result;
}
Status logged(Status status) {
  if (!status.ok()) OPENGE_LOG_ERROR("GE", status.message());
  return status;
}

// Option compiled_shape_cache_size: how many input-shape sets keep their compiled graph.
size_t compiled_shape_cache_size_of(const SessionOptions& options) {
  const int64_t v = options.config ? options.config->get_int("compiled_shape_cache_size", 0) : 0;
  return static_cast<size_t>(v > 0 ? v : kDefaultShapeCacheSize);
}

// A .oge written by openge compile (oge/oge_file.h): read, and refused unless it fits this engine,
// this CPU and the session's options (oge/oge_compat.h).
Result<Graph> load_compiled_model(const std::string& name, const void* data, size_t size, const SessionOptions& options,
                                  std::shared_ptr<const compiler::PrebuiltKernels>& kernels) {
  auto model = data ? oge::parse_oge(data, size, name) : oge::read_oge_file(name);
  if (!model.ok()) return model.status();
  OPENGE_RETURN_IF_ERROR(
      oge::check_compatible(model->header, name, oge::this_environment(options.config.get(), options.run_passes)));
  OPENGE_LOG_INFO("GE", "compiled model " + name + " (compiled from " + model->header.source_model + " by OpenGE " +
                            model->header.engine_version + "): the fusion and precision passes do not run again");
  if (!model->header.kernels.empty())
    kernels = std::make_shared<const compiler::PrebuiltKernels>(
        compiler::PrebuiltKernels{model->header.kernel_isa, std::move(model->header.kernels)});
  return std::move(model->graph);
}

}  // namespace

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::open_model(const std::string& name, const void* data, size_t size,
                                                     const SessionOptions& options) {
  // The session's size limit covers the initializers; exceptions (bad_alloc, protobuf) become errors.
  const uint64_t max_tensor_bytes = max_tensor_bytes_of(options);
  ScopedMaxTensorBytes scoped_limit(max_tensor_bytes);
  if (options.config) {
    logging::configure(*options.config);
    for (const std::string& w : options.config->warnings()) OPENGE_LOG_WARNING("GE", "option: " + w);
  }
  return logged(guard_exceptions(
      [&]() -> Result<std::unique_ptr<Session>> {
        // A bad profiling configuration fails before the model is read, and nothing is created on
        // disk unless the model loads.
        std::optional<profiling::ProfilerConfig> profiling;
        if (options.config && profiling::profiling_enabled(*options.config)) {
          auto config = profiling::profiler_config_from_options(*options.config);
          if (!config.ok()) return config.status();
          profiling = std::move(config.value());
        }
        std::optional<dump::DumpConfig> dumping;
        if (options.config) {
          auto config = dump::dump_config_from_options(*options.config);
          if (!config.ok()) return config.status();
          dumping = std::move(config.value());
        }
        const int64_t load_start = profiling::steady_now_ns();
        const bool precompiled = data ? oge::looks_like_oge(data, size, name) : oge::file_looks_like_oge(name);
        std::shared_ptr<const compiler::PrebuiltKernels> prebuilt_kernels;
        auto graph = precompiled ? load_compiled_model(name, data, size, options, prebuilt_kernels)
                     : data      ? load_onnx_from_bytes(data, size, name)
                                 : load_onnx(name);
        // A model that was read but does not load gets the precheck report (ENV-34); a file that cannot
        // be opened has nothing to check, nor has a .oge (openge compile checked its model).
        if (!graph.ok())
          return options.config && !precompiled && graph.status().code() != StatusCode::kIoError
                     ? precheck::with_check_report(graph.status(), name, data, size, *options.config)
                     : graph.status();
        const int64_t load_end = profiling::steady_now_ns();
        auto impl = std::make_unique<Impl>();
        impl->precompiled = precompiled;
        // Every setting the compiles use, resolved once; a problem fails the open, not a run.
        if (options.config) {
          auto config =
              resolve_compile_config(*options.config, {.rewrites = !precompiled, .run_passes = options.run_passes});
          if (!config.ok()) return config.status().with_context("model " + name);
          impl->compile_config = std::move(config.value());
        }
        impl->prebuilt_kernels = std::move(prebuilt_kernels);
        if (options.config) {
          auto weights = ExternalWeights::externalize(graph.value(), *options.config, !precompiled);
          if (!weights.ok()) return weights.status();
          impl->external_weights = std::move(weights.value());
        }
        impl->graph = std::move(graph.value());
        impl->source = impl->graph.source;
        impl->options = options;
        impl->max_tensor_bytes = max_tensor_bytes;
        impl->num_threads = options.num_threads > 0 ? options.num_threads : omp_get_max_threads();
        impl->compiled = std::make_unique<ShapeCache>(compiled_shape_cache_size_of(options));
        for (int v : impl->graph.inputs) {
          const Value& value = impl->graph.values[static_cast<size_t>(v)];
          impl->inputs.push_back({value.name, value.dtype, value.shape.value_or(Shape{}), value.kind});
        }
        for (size_t i = 0; i < impl->graph.outputs.size(); ++i) {
          const Value& value = impl->graph.values[static_cast<size_t>(impl->graph.outputs[i])];
          TensorInfo info{value.name, value.dtype, value.shape.value_or(Shape{}), value.kind};
          // Before the first compile an output's value may carry no type yet; the model file's
          // declaration does, and that is what a caller asking for the outputs expects to see.
          if (i < impl->graph.declared_outputs.size()) {
            const Graph::DeclaredType& declared = impl->graph.declared_outputs[i];
            if (info.dtype == DType::kUndefined && declared.dtype != DType::kUndefined) {
              info.dtype = declared.dtype;
              info.kind = declared.kind;
            }
            if (!value.shape && declared.shape) info.shape = *declared.shape;
          }
          impl->outputs.push_back(std::move(info));
        }
        if (profiling) {
          auto profiler = profiling::Profiler::create(std::move(*profiling));
          if (!profiler.ok()) return profiler.status();
          impl->profiler = std::move(profiler.value());
          impl->profiler->set_model_name(std::filesystem::path(name).filename().string());
          impl->profiler->record_api("ModelLoad", load_start, load_end);
        }
        if (dumping) {
          const std::string model_name =
              impl->graph.name.empty() ? std::filesystem::path(name).stem().string() : impl->graph.name;
          impl->dumper = std::make_unique<dump::DataDumper>(std::move(*dumping), model_name);
        }
        if (options.config) impl->failure_hook = dump::ExceptionDumper::from_options(*options.config);
        OPENGE_LOG_INFO("GE", "model " + name + " loaded: " + std::to_string(impl->graph.nodes.size()) +
                                  " nodes, opset " + std::to_string(impl->graph.opset));
        return std::unique_ptr<Session>(new Session(std::move(impl)));
      },
      [&] { return "model " + name; }));
}

const std::vector<TensorInfo>& Session::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Session::outputs() const { return impl_->outputs; }

Result<std::vector<Tensor>> Session::run(const std::vector<Tensor>& inputs, RunInfo* info) {
  std::vector<Tensor> outputs;
  OPENGE_RETURN_IF_ERROR(run(inputs, outputs, info));
  return outputs;
}

Status Session::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, RunInfo* info) {
  // Compiles and runs under the session's size limit; exceptions become errors, never a terminate.
  ScopedMaxTensorBytes scoped_limit(impl_->max_tensor_bytes);
  return logged(guard_exceptions(
      [&]() -> Status {
        profiling::Profiler* const session_profiler = impl_->profiler.get();
        const bool paused = impl_->profiling_paused.load();
        profiling::Profiler* profiler = paused ? nullptr : session_profiler;
        const int64_t run_start = profiler ? profiling::steady_now_ns() : 0;
        // Shapes compiled already: found without building a key (a run of them allocates nothing).
        std::shared_ptr<Executable> exe = impl_->compiled->find_compiled(inputs);
        if (!exe) {
          std::vector<Shape> shapes;
          for (const Tensor& t : inputs) shapes.push_back(t.shape());
          // Only this shape set's compile waits here; runs of other shapes go on meanwhile.
          auto cached = impl_->compiled->get_or_compile(shapes, [&]() -> Result<std::shared_ptr<Executable>> {
            CompileOptions co;
            co.num_threads = impl_->num_threads;
            co.use_aicore = impl_->options.use_aicore;
            co.run_passes = impl_->options.run_passes;
            co.config = impl_->compile_config;
            co.failure_hook = impl_->failure_hook;
            co.stages = impl_->precompiled ? CompileStages::kPrecompiled : CompileStages::kAll;
            co.prebuilt_kernels = impl_->prebuilt_kernels;
            // A Data Dump writes node inputs, weights included: then the compiled graph keeps them all.
            co.release_packed_constants = !impl_->dumper;
            // The one compile of a fixed-shape model, evicted since (compiled_shape_cache_size): reuse it.
            if (auto first = impl_->compiled->first(); first && impl_->graph_handed_over_for(shapes)) return first;
            auto graph = impl_->graph_for_compile(shapes);
            if (!graph.ok()) return graph.status();
            auto report = std::make_shared<CompileReport>();
            auto compiled = compiler::compile(std::move(graph.value()), shapes, co, report.get());
            if (!compiled.ok()) {
              impl_->compile_failed(shapes, compiled.status());
              return compiled.status();
            }
            if (profiler) profiler->record_api("ModelCompile", run_start, profiling::steady_now_ns());
            std::shared_ptr<Executable> made(std::move(compiled.value()));
            std::lock_guard<std::mutex> lock(impl_->first_mutex);
            if (!impl_->first_exe) {
              impl_->first_exe = made;
              impl_->first_report = std::move(report);
            }
            return made;
          });
          if (!cached.ok()) return cached.status();
          exe = cached.value();
        }
        RunStats stats;
        if (profiler) {
          std::lock_guard<std::mutex> lock(impl_->profiled_mutex);
          impl_->profiled.insert(exe);
        }
        Status ran = run_observed(*exe, inputs, outputs, profiler, impl_->dumper.get(), &stats, "ModelExecute");
        if (session_profiler && paused) session_profiler->skip_iteration(exe.get());
        if (info && ran.ok()) {
          info->arena_bytes = stats.arena_bytes;
          info->peak_dynamic_bytes = stats.peak_dynamic_bytes;
          info->aicore_nodes = info->aicpu_nodes = 0;
          for (const auto& node : exe->nodes())
            (node.engine == Engine::kAiCore ? info->aicore_nodes : info->aicpu_nodes)++;
        }
        return ran;
      },
      [&] { return "model " + impl_->source; }));
}

std::string Session::profiling_dir() const { return impl_->profiler ? impl_->profiler->collection_dir() : ""; }

std::string Session::dump_dir() const { return impl_->dumper ? impl_->dumper->session_dir() : ""; }

Status Session::flush_dump() { return impl_->dumper ? impl_->dumper->flush() : Status::Ok(); }

void Session::pause_profiling(bool paused) { impl_->profiling_paused = paused; }

Status Session::finish_profiling() { return impl_->profiler ? impl_->profiler->finish() : Status::Ok(); }

void Session::range_push(const std::string& message) {
  if (impl_->profiler) impl_->profiler->range_push(message);
}

Status Session::range_pop() { return impl_->profiler ? impl_->profiler->range_pop() : Status::Ok(); }

void Session::mark(const std::string& message) {
  if (impl_->profiler) impl_->profiler->mark(message);
}

Result<std::unique_ptr<Session>> Session::open(const std::string& model_path, const SessionOptions& options) {
  return open_model(model_path, nullptr, 0, options);
}

Result<std::unique_ptr<Session>> Session::open_from_memory(const void* data, size_t size, const SessionOptions& options,
                                                           const std::string& source_name) {
  // A null pointer with size 0 is an empty model, not a file name.
  static const char kEmpty = 0;
  return open_model(source_name, data ? data : &kEmpty, data ? size : 0, options);
}

std::vector<PrecisionRecord> Session::precision_report() const {
  std::lock_guard<std::mutex> lock(impl_->first_mutex);
  if (!impl_->first_exe) return {};
  return precision_records(*impl_->first_exe, *impl_->first_report);
}

std::vector<std::string> Session::precision_warnings() const {
  std::lock_guard<std::mutex> lock(impl_->first_mutex);
  return impl_->first_report ? impl_->first_report->precision_warnings : std::vector<std::string>{};
}

size_t Session::compiled_shape_count() const { return impl_->compiled->size(); }

}  // namespace openge
