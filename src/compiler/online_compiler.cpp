#include "compiler/online_compiler.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>

#include "base/file_modes.h"
#include "base/parallel.h"
#include "base/progress_bar.h"
#include "compiler/eltwise_kernel.h"
#include "compiler/kernel_meta.h"
#include "base/sha256.h"
#include "compiler/toolchain.h"
#include "io/atomic_file.h"
#include "logging/log.h"
#include "ops/fused/fused_elementwise.h"
#include "options/option_set.h"
#include "paths/artifact_paths.h"
#include "base/path_util.h"

namespace openge::compiler {
namespace fs = std::filesystem;
namespace {

// One distinct kernel of the graph and what became of it.
struct KernelJob {
  EltwiseKernelSpec spec;
  std::string source;
  std::vector<SourceLoc> locs;
  std::shared_ptr<SharedObject> so;
  Status status = Status::Ok();
  bool cached = false;
};

// The spec without the graph's names (node, ops, values): what the kernel computes, whichever
// model it comes from. Cached kernels are built from its source, so models share their entries.
EltwiseKernelSpec anonymous(const EltwiseKernelSpec& spec) {
  EltwiseKernelSpec unnamed = spec;
  unnamed.node_name.clear();
  for (EltwiseStep& s : unnamed.program.steps) s.name.clear();
  for (std::string& n : unnamed.input_names) n.clear();
  return unnamed;
}

// A kernel's name: te_fused_<first ops>_<digest of what it computes>. Sources that differ only in
// their name would otherwise differ, so the digest is taken over the source of a placeholder name.
std::string kernel_name_for(const EltwiseKernelSpec& spec, const CodegenOptions& codegen,
                            const std::vector<std::string>& flags) {
  EltwiseKernelSpec unnamed = anonymous(spec);
  unnamed.kernel_name = "openge_kernel";
  std::string key = generate_eltwise_source(unnamed, codegen);
  for (const std::string& f : flags) key += "\n" + f;
  std::string name = "te_fused";
  for (size_t s = 0; s < spec.program.steps.size() && s < 4; ++s) {
    name += "_";
    for (char c : spec.program.steps[s].op) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name + "_" + sha256_hex(key).substr(0, 16);
}

// Compiles `source` into the shared object `out` (the source is written beside it and removed).
Status build_kernel(const Toolchain& tc, const std::vector<std::string>& flags, const std::string& source,
                    const std::string& out, const std::string& kernel_name) {
  const std::string source_path = out + ".cpp";
  OPENGE_RETURN_IF_ERROR(write_file_atomically(source_path, source));
  Status built = run_compiler(tc, flags, source_path, out, kernel_name);
  // The compiler creates the binary with the umask's mode; the engine's is explicit.
  if (built.ok()) built = set_mode(out, kSharedObjectMode);
  std::error_code ec;
  fs::remove(source_path, ec);
  if (!built.ok()) fs::remove(out, ec);
  return built;
}

// NPU_COLLECT_PATH (NPU-15): a copy of the kernel's binary, written atomically, and its .json.
// The binary it copies may be the cache's own file, which stays where it is, unchanged.
Status collect_kernel(const std::string& dir, const std::string& so_path, KernelMetaFiles files) {
  const std::string dest = dir + "/" + files.kernel_name + ".so";
  static std::atomic<int> seq{0};  // sessions of one process may collect the same kernel at once
  const std::string tmp = dest + "." + std::to_string(seq++) + ".tmp." + std::to_string(getpid());
  std::error_code ec;
  fs::copy_file(so_path, tmp, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::permissions(tmp, static_cast<fs::perms>(kSharedObjectMode), ec);
  if (!ec) fs::rename(tmp, dest, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return io_error("cannot collect kernel " + files.kernel_name + " into " + dir +
                    " (NPU_COLLECT_PATH): " + ec.message());
  }
  files.so_path = dest;
  return write_kernel_meta(dir, files, /*keep_source=*/false, /*keep_loc=*/false, /*keep_compute=*/false);
}

// What the kernel of `r` computes, named as the online compiler names it.
Result<EltwiseKernelSpec> kernel_spec(const KernelRequest& r, const CodegenOptions& codegen,
                                      const std::vector<std::string>& flags) {
  auto program = read_eltwise_program(*r.node);
  if (!program.ok()) return program.status().with_context("node '" + r.node->name + "'");
  EltwiseKernelSpec spec;
  spec.node_name = r.node->name;
  spec.program = std::move(program.value());
  spec.numel = shape_numel(r.output_shape);
  spec.input_names = r.input_names;
  for (const Shape& s : r.input_shapes) {
    auto p = operand_pattern(s, r.output_shape);
    if (!p)
      return internal_error("node '" + r.node->name + "': input of shape " + shape_to_string(s) +
                            " does not broadcast as a fused kernel needs");
    spec.inputs.push_back(*p);
  }
  spec.kernel_name = kernel_name_for(spec, codegen, flags);
  return spec;
}

// The code generator's switches and the compiler's flags that `debug` asks for.
CodegenOptions codegen_for(const DebugSettings& debug, const CodegenOptions* test_codegen) {
  CodegenOptions codegen = test_codegen ? *test_codegen : CodegenOptions{};
  codegen.oom = codegen.oom || debug.config.has("oom");
  codegen.check_flag = codegen.check_flag || debug.config.has("check_flag");
  return codegen;
}

std::vector<std::string> flags_for(const DebugSettings& debug) {
  return compile_flags({debug.no_optimization(), debug.debug_info()});
}

}  // namespace

Result<KernelSource> describe_kernel(const KernelRequest& request, const JitSettings& settings) {
  const CodegenOptions codegen = codegen_for(settings.debug, nullptr);
  auto spec = kernel_spec(request, codegen, flags_for(settings.debug));
  if (!spec.ok()) return spec.status();
  KernelSource out;
  out.kernel_name = spec->kernel_name;
  out.source = generate_eltwise_source(*spec, codegen, &out.locs);
  return out;
}

JitDecision decide_jit(const JitConfig& config, bool dynamic_model) {
  if (config.npu_collect) return {true, "NPU_COLLECT_PATH is set: operators are compiled online"};
  const std::string& mode = config.mode;
  if (mode == "true") return {true, "jit_compile=true"};
  if (mode == "false") return {false, "jit_compile=false: prebuilt kernels"};
  return dynamic_model ? JitDecision{false, "jit_compile=auto and a dynamic-shape model: prebuilt kernels"}
                       : JitDecision{true, "jit_compile=auto and a static-shape model: online compile"};
}

Result<DebugSettings> read_debug_settings(const options::OptionSet& config) {
  DebugSettings d;
  d.level = static_cast<int>(config.get_int("op_debug_level", 0));
  if (config.get_int("stream_sync_timeout", -1) > 0)
    d.check_flag_timeout_ms = config.get_int("stream_sync_timeout", -1);
  if (config.has_value("op_debug_config")) {
    const std::string path = resolve_against(config.cwd(), config.get("op_debug_config"));
    auto text = options::read_text_file(path);
    if (!text.ok()) return text.status().with_context("op_debug_config");
    auto parsed = options::parse_op_debug_config(*text, path);
    if (!parsed.ok()) return parsed.status().with_context("op_debug_config");
    d.config = std::move(parsed.value());
  }
  return d;
}

Result<JitConfig> resolve_jit_config(const options::OptionSet& config) {
  JitConfig c;
  c.npu_collect = config.has_value("NPU_COLLECT_PATH");
  c.mode = config.get("jit_compile");
  if (c.mode.empty()) c.mode = "auto";
  c.compiler = config.get("CXX");
  if (c.compiler.empty()) c.compiler = "g++";
  auto debug = read_debug_settings(config);
  if (!debug.ok()) return debug.status();
  c.debug = std::move(debug.value());
  if (c.debug.any()) {
    c.kernel_meta = paths::resolve_artifact(paths::ArtifactKind::kKernelMeta, config, paths::RunIds::current());
  } else {
    // The folder is made when the first kernel is built.
    auto cache = OpCache::settings_from_options(config);
    if (!cache.ok()) return cache.status();
    c.cache = std::move(cache.value());
  }
  if (c.npu_collect)
    c.collect = paths::resolve_artifact(paths::ArtifactKind::kCollectCompile, config, paths::RunIds::current());
  return c;
}

JitSettings jit_settings_for(const JitConfig& config, bool dynamic_model) {
  JitSettings s;
  s.decision = decide_jit(config, dynamic_model);
  s.compiler = config.compiler;
  s.debug = config.debug;
  s.kernel_meta = config.kernel_meta;
  if (!s.debug.any() && s.decision.online) s.cache = config.cache;
  if (s.decision.online && config.npu_collect) s.collect = config.collect;
  return s;
}

namespace {

// The distinct kernels of `requests` and which one each request uses.
struct KernelJobs {
  std::vector<KernelJob> jobs;
  std::vector<size_t> job_of_request;
  std::vector<EltwiseKernelSpec> request_specs;
};
Result<KernelJobs> distinct_jobs(const std::vector<KernelRequest>& requests, const CodegenOptions& codegen,
                                 const std::vector<std::string>& flags) {
  KernelJobs out;
  std::map<std::string, size_t> job_of_name;
  for (const KernelRequest& r : requests) {
    auto made = kernel_spec(r, codegen, flags);
    if (!made.ok()) return made.status();
    EltwiseKernelSpec spec = std::move(made.value());
    auto [it, inserted] = job_of_name.emplace(spec.kernel_name, out.jobs.size());
    if (inserted) out.jobs.push_back({spec, "", {}, nullptr, Status::Ok(), false});
    out.job_of_request.push_back(it->second);
    out.request_specs.push_back(std::move(spec));
  }
  return out;
}

// Where builds go: debug settings build straight into kernel_meta and bypass the compile cache
// (OPT-op_compiler_cache_mode-9, OPT-op_debug_level-11, OPT-op_debug_config-14); otherwise the
// cache finds or builds each kernel (mode disable, or no options: a private folder). Empty under
// debug settings.
Result<std::optional<OpCache>> open_build_destination(const JitSettings& settings) {
  if (settings.debug.any()) {
    // kernel_meta is made on first use (ENV-17..23).
    OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(settings.kernel_meta));
    OPENGE_LOG_INFO("TEFUSION",
                    "compile cache not used: op_debug_level / op_debug_config is set; kernels are built into " +
                        settings.kernel_meta.path);
    return std::optional<OpCache>();
  }
  auto opened = settings.cache ? OpCache::open(*settings.cache) : OpCache::at("", CacheMode::kDisable, "", {});
  if (!opened.ok()) return opened.status();
  return std::optional<OpCache>(std::move(opened.value()));
}

// How one build runs: what compile_kernels (for this CPU) and prebuild_kernels (for a level)
// share.
struct BuildContext {
  const JitSettings& settings;
  const CodegenOptions& codegen;
  const Toolchain& toolchain;
  std::vector<std::string> flags;  // as built: -march=native online, -march=<level> for a .oge
  std::string target;              // the CPU built for (a cache key field): its features, or the level
  OpCache* cache;                  // null under debug settings
};

// Builds `job` into kernel_meta (debug settings) or through the cache; the binary's path.
Result<std::string> build_job(KernelJob& job, int64_t index, const BuildContext& ctx) {
  const std::string& name = job.spec.kernel_name;
  if (!ctx.cache) {
    job.source = generate_eltwise_source(job.spec, ctx.codegen, &job.locs);
    const std::string so_path = ctx.settings.kernel_meta.path + "/" + name + ".so";
    const std::string tmp = so_path + "." + std::to_string(index) + ".tmp." + std::to_string(getpid());
    OPENGE_RETURN_IF_ERROR(build_kernel(ctx.toolchain, ctx.flags, job.source, tmp, name));
    std::error_code ec;
    fs::rename(tmp, so_path, ec);  // atomic: a reader sees the whole binary or none
    if (ec) return io_error("cannot rename " + tmp + ": " + ec.message());
    return so_path;
  }
  job.source = generate_eltwise_source(anonymous(job.spec), ctx.codegen);
  const KernelKey key{name,
                      job.source,
                      ctx.toolchain.compiler,
                      ctx.toolchain.version,
                      ctx.flags,
                      ctx.target,
                      ctx.settings.cache ? ctx.settings.cache->soc_version : ""};
  auto got = ctx.cache->get_or_build(
      key, [&](const std::string& out) { return build_kernel(ctx.toolchain, ctx.flags, job.source, out, name); });
  if (!got.ok()) return got.status();
  job.cached = got->hit;
  return got->so_path;
}

// kernel_meta's files under debug settings, and the NPU_COLLECT_PATH copy.
Status record_job(const KernelJob& job, const std::string& so_path, const BuildContext& ctx) {
  const DebugSettings& debug = ctx.settings.debug;
  const KernelMetaFiles meta{job.spec.kernel_name,
                             so_path,
                             job.source,
                             job.locs,
                             ctx.flags,
                             ctx.toolchain.compiler,
                             ctx.toolchain.version,
                             std::max(1, num_threads()),
                             &job.spec};
  if (debug.any())
    OPENGE_RETURN_IF_ERROR(write_kernel_meta(ctx.settings.kernel_meta.path, meta, debug.keep_source(), debug.keep_loc(),
                                             debug.keep_compute()));
  if (!ctx.settings.collect.path.empty())
    OPENGE_RETURN_IF_ERROR(collect_kernel(ctx.settings.collect.path, so_path, meta));
  return Status::Ok();
}

// A binary of mode disable (or a prebuilt one) is this process's own file, mapped once loaded; a
// cached one is the cache's and stays.
void remove_if_private(const std::string& so_path, const OpCache* cache, bool prebuilt) {
  if (prebuilt || (cache && cache->mode() == CacheMode::kDisable)) {
    std::error_code ec;
    fs::remove(so_path, ec);
  }
}

Result<std::string> read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return io_error("cannot read the built kernel " + path);
  return bytes;
}

}  // namespace

void use_prebuilt_kernels(JitSettings& settings, std::shared_ptr<const PrebuiltKernels> kernels) {
  if (!kernels || kernels->binaries.empty() || !settings.decision.online || settings.debug.any() ||
      !settings.collect.path.empty())
    return;
  if (cpu_runs_isa_level(kernels->isa)) {
    settings.decision.reason += "; the compiled model's kernels (built for " + kernels->isa + ") are loaded";
    settings.prebuilt = std::move(kernels);
    return;
  }
  settings.decision = {false, "the compiled model's kernels were built for " + kernels->isa +
                                  ", which this CPU does not run: its fused nodes run the prebuilt reference "
                                  "kernels (openge compile on a machine like this one builds kernels it runs)"};
  OPENGE_LOG_WARNING("FE", settings.decision.reason);
}

std::vector<KernelRequest> fused_kernel_requests(const Graph& g) {
  std::vector<KernelRequest> requests;
  for (const Node& n : g.nodes) {
    if (n.op_type != kFusedElementwise || n.outputs.empty()) continue;
    KernelRequest r;
    r.node = &n;
    for (int in : n.inputs) {
      const Value& v = g.values[static_cast<size_t>(in)];
      r.input_shapes.push_back(v.shape.value_or(Shape{}));
      r.input_names.push_back(v.name);
    }
    r.output_shape = g.values[static_cast<size_t>(n.outputs[0])].shape.value_or(Shape{});
    requests.push_back(std::move(r));
  }
  return requests;
}

Result<PrebuiltKernels> prebuild_kernels(const std::vector<KernelRequest>& requests, const JitSettings& settings) {
  PrebuiltKernels out;
  const std::string level = best_isa_level();
  if (requests.empty() || level.empty()) return out;
  out.isa = level;
  auto toolchain = resolve_toolchain(settings.compiler);
  if (!toolchain.ok()) return toolchain.status();
  const CodegenOptions codegen = codegen_for(settings.debug, nullptr);
  // Named as an online compile names them (the run looks them up by that name), built for the level.
  const std::vector<std::string> name_flags = flags_for(settings.debug);
  std::vector<std::string> flags = name_flags;
  for (std::string& f : flags)
    if (f == "-march=native") f = "-march=" + level;
  auto jobs = distinct_jobs(requests, codegen, name_flags);
  if (!jobs.ok()) return jobs.status();
  auto cache = open_build_destination(settings);
  if (!cache.ok()) return cache.status();
  if (!settings.collect.path.empty()) OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(settings.collect));
  OpCache* cache_ptr = cache->has_value() ? &**cache : nullptr;
  const BuildContext ctx{settings, codegen, *toolchain, flags, level, cache_ptr};
  std::vector<std::string> binaries(jobs->jobs.size());
  ProgressBar progress("building kernels for " + level, static_cast<int>(jobs->jobs.size()), "compiled", "cached");
  parallel_for(static_cast<int64_t>(jobs->jobs.size()), int64_t{1} << 30, [&](int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      KernelJob& job = jobs->jobs[static_cast<size_t>(j)];
      job.status = [&]() -> Status {
        auto so_path = build_job(job, j, ctx);
        if (!so_path.ok()) return so_path.status();
        auto bytes = read_binary(*so_path);
        Status recorded = bytes.ok() ? record_job(job, *so_path, ctx) : bytes.status();
        remove_if_private(*so_path, cache_ptr, false);
        if (!recorded.ok()) return recorded;
        binaries[static_cast<size_t>(j)] = std::move(bytes.value());
        return Status::Ok();
      }();
      progress.step(job.cached);
    }
  });
  for (size_t j = 0; j < jobs->jobs.size(); ++j) {
    const KernelJob& job = jobs->jobs[j];
    if (!job.status.ok()) return job.status.with_context("node '" + job.spec.node_name + "'");
    out.binaries[job.spec.kernel_name] = std::move(binaries[j]);
  }
  return out;
}

Result<std::vector<std::unique_ptr<CompiledKernel>>> compile_kernels(const std::vector<KernelRequest>& requests,
                                                                     const JitSettings& settings,
                                                                     const CodegenOptions* test_codegen,
                                                                     KernelBuildCounts* report) {
  std::vector<std::unique_ptr<CompiledKernel>> kernels;
  if (requests.empty()) return kernels;
  const auto started = std::chrono::steady_clock::now();
  const DebugSettings& debug = settings.debug;
  const CodegenOptions codegen = codegen_for(debug, test_codegen);
  const std::vector<std::string> flags = flags_for(debug);
  auto made = distinct_jobs(requests, codegen, flags);
  if (!made.ok()) return made.status();
  std::vector<KernelJob>& jobs = made->jobs;

  // The compiled model's binaries serve every kernel they have; the others are built, and only
  // then is a compiler needed.
  const PrebuiltKernels* prebuilt =
      settings.prebuilt && !debug.any() && settings.collect.path.empty() ? settings.prebuilt.get() : nullptr;
  std::vector<const std::string*> binary_of(jobs.size(), nullptr);
  bool build_any = false;
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (prebuilt)
      if (auto it = prebuilt->binaries.find(jobs[j].spec.kernel_name); it != prebuilt->binaries.end())
        binary_of[j] = &it->second;
    build_any = build_any || !binary_of[j];
  }
  Toolchain toolchain;
  std::optional<OpCache> cache;
  if (build_any) {
    auto resolved = resolve_toolchain(settings.compiler);
    if (!resolved.ok()) return resolved.status();
    toolchain = std::move(resolved.value());
    auto destination = open_build_destination(settings);
    if (!destination.ok()) return destination.status();
    cache = std::move(destination.value());
    if (!settings.collect.path.empty()) OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(settings.collect));
  }
  const BuildContext ctx{settings, codegen, toolchain, flags, toolchain.cpu_features, cache ? &*cache : nullptr};

  ProgressBar progress("compiling kernels", static_cast<int>(jobs.size()), "compiled", "cached");
  // Builds are processes: one per thread of the pool at once.
  parallel_for(static_cast<int64_t>(jobs.size()), int64_t{1} << 30, [&](int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      KernelJob& job = jobs[static_cast<size_t>(j)];
      const std::string* binary = binary_of[static_cast<size_t>(j)];
      job.status = [&]() -> Status {
        auto so_path = binary ? write_private_shared_object(job.spec.kernel_name, *binary) : build_job(job, j, ctx);
        if (!so_path.ok()) return so_path.status();
        auto so = SharedObject::open(*so_path, job.spec.kernel_name);
        Status done = so.ok() ? (binary ? Status::Ok() : record_job(job, *so_path, ctx)) : so.status();
        remove_if_private(*so_path, ctx.cache, binary != nullptr);
        if (!done.ok()) return done;
        job.so = std::move(so.value());
        return Status::Ok();
      }();
      progress.step(job.cached || binary);
    }
  });
  KernelBuildCounts counts;
  counts.kernels = static_cast<int>(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    const KernelJob& job = jobs[j];
    if (!job.status.ok()) return job.status.with_context("node '" + job.spec.node_name + "'");
    (binary_of[j] ? counts.prebuilt : job.cached ? counts.cached : counts.compiled) += 1;
  }
  // The stage's wall time (generation, cache look-ups, builds, dlopen): what a warm cache saves.
  counts.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  char took[32];
  std::snprintf(took, sizeof took, "%.1f", counts.milliseconds);
  std::string how;
  if (build_any) {
    how = " with " + toolchain.compiler;
    for (const std::string& f : flags) how += " " + f;
  }
  OPENGE_LOG_INFO(
      "FE", "online compile: " + std::to_string(counts.kernels) + " fused kernels (" + std::to_string(counts.compiled) +
                " compiled, " + std::to_string(counts.cached) + " cached" +
                (counts.prebuilt > 0
                     ? ", " + std::to_string(counts.prebuilt) + " prebuilt in the compiled model for " + prebuilt->isa
                     : std::string()) +
                ") in " + took + " ms" + how);
  if (report) *report = counts;
  const EltwiseKernelChecks checks{codegen.oom, codegen.check_flag, settings.debug.check_flag_timeout_ms};
  for (size_t r = 0; r < requests.size(); ++r) {
    kernels.push_back(make_eltwise_kernel(jobs[made->job_of_request[r]].so, std::move(made->request_specs[r]), checks));
  }
  return kernels;
}

}  // namespace openge::compiler
