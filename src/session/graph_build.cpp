// The graph-build and operator-compile entry points over compile_model: openge/graph_build.h.
#include "openge/graph_build.h"

#include "paths/artifact_paths.h"

namespace openge {
namespace {

// CANN's names for the options these entry points take, with the value spellings that differ.
struct KeyName {
  const char* cann;
  const char* option;
};
constexpr KeyName kKeyNames[] = {
    {"DEBUG_DIR", "debug_dir"},  // ir_option::DEBUG_DIR spelled out; its value "ge.debugDir" is a GE key
    {"ACL_DEBUG_DIR", "debug_dir"},
    {"ACL_OP_DEBUG_LEVEL", "op_debug_level"},
    {"ACL_PRECISION_MODE", "precision_mode"},
    {"ACL_OP_COMPILER_CACHE_MODE", "op_compiler_cache_mode"},
    {"ACL_OP_COMPILER_CACHE_DIR", "op_compiler_cache_dir"},
    {"ACL_OP_JIT_COMPILE", "jit_compile"},
};

options::OptionAssignment assignment(const std::string& key, const std::string& value, const char* origin) {
  for (const auto& k : kKeyNames)
    if (key == k.cann) {
      // ACL_OP_JIT_COMPILE takes enable/disable where jit_compile takes true/false.
      std::string v = value;
      if (std::string(k.option) == "jit_compile") v = value == "enable" ? "true" : value == "disable" ? "false" : value;
      return {k.option, v, origin};
    }
  return {key, value, origin};
}

// Later maps win (OptionInputs: a later flag wins).
Result<std::shared_ptr<const options::OptionSet>> configuration(
    const std::vector<std::pair<const BuildOptions*, const char*>>& maps, const BuildPlace& place) {
  options::OptionInputs inputs;
  for (const auto& [map, origin] : maps)
    for (const auto& [k, v] : *map) inputs.flags.push_back(assignment(k, v, origin));
  inputs.env = place.env;
  inputs.cwd = place.cwd;
  return options::build_session_config(inputs);
}

Result<CompileSummary> compile(const std::string& model, const std::string& output,
                               Result<std::shared_ptr<const options::OptionSet>> config) {
  if (!config.ok()) return config.status();
  SessionOptions so;
  so.config = *config;
  return compile_model(model, output, so);
}

}  // namespace

Result<GraphBuilder> GraphBuilder::initialize(const BuildOptions& global_options, BuildPlace place) {
  auto checked = configuration({{&global_options, "aclgrphBuildInitialize"}}, place);
  if (!checked.ok()) return checked.status();
  return GraphBuilder(global_options, std::move(place));
}

Result<CompileSummary> GraphBuilder::build_model(const std::string& model_path, const std::string& output_path,
                                                 const BuildOptions& build_options) const {
  return compile(model_path, output_path,
                 configuration({{&global_, "aclgrphBuildInitialize"}, {&build_options, "aclgrphBuildModel"}}, place_));
}

Result<std::pair<std::string, std::string>> GraphBuilder::kernel_meta_folder(const BuildOptions& build_options) const {
  auto config = configuration({{&global_, "aclgrphBuildInitialize"}, {&build_options, "aclgrphBuildModel"}}, place_);
  if (!config.ok()) return config.status();
  const auto r = paths::resolve_artifact(paths::ArtifactKind::kKernelMeta, **config, paths::RunIds::current());
  return std::make_pair(r.path, r.rule);
}

Result<CompileSummary> compile_with_compile_opts(const std::string& model_path, const std::string& output_path,
                                                 const BuildOptions& compile_opts, BuildPlace place) {
  return compile(model_path, output_path, configuration({{&compile_opts, "aclSetCompileopt"}}, place));
}

}  // namespace openge
