// The profiling chains of CANN's msprof, acl.json and PyTorch routes (openge/profiling_chains.h).
#include "openge/profiling_chains.h"

#include <filesystem>
#include <vector>

#include "base/path_util.h"

namespace openge::profiling {
namespace {
namespace fs = std::filesystem;

std::string current_or(const std::string& cwd) { return cwd.empty() ? fs::current_path().string() : cwd; }

std::string absolute(const std::string& cwd, const std::string& p) {
  return fs::path(resolve_against(current_or(cwd), p)).lexically_normal().string();
}

std::string work_path_tier(const options::EnvMap& env, const std::string& cwd) {
  auto it = env.find("ASCEND_WORK_PATH");
  if (it == env.end() || it->second.empty()) return "";
  return absolute(cwd, (fs::path(it->second) / "profiling_data").string());
}

// The first tier that is set decides; the last one is always set.
ChosenFolder first_set(const std::vector<ChosenFolder>& tiers) {
  for (const auto& t : tiers)
    if (!t.path.empty()) return t;
  return tiers.back();
}

std::string parent_folder(const std::string& cwd, const std::string& file) {
  const fs::path parent = fs::path(absolute(cwd, file)).parent_path();
  return parent.empty() ? current_or(cwd) : parent.string();
}

}  // namespace

ChosenFolder msprof_output_folder(const std::string& output_flag, const options::EnvMap& env,
                                  const std::string& model_path, const std::string& application_file,
                                  const std::string& cwd) {
  ChosenFolder fallback = !model_path.empty() ? ChosenFolder{parent_folder(cwd, model_path), "the model file's folder"}
                          : !application_file.empty() ? ChosenFolder{parent_folder(cwd, application_file),
                                                                     "the application's folder: it names no model file"}
                                                      : ChosenFolder{current_or(cwd), "the working folder"};
  return first_set({{output_flag.empty() ? "" : absolute(cwd, output_flag), "msprof --output"},
                    {work_path_tier(env, cwd), "ASCEND_WORK_PATH/profiling_data"},
                    fallback});
}

ChosenFolder acl_json_output_folder(const std::string& output_key, const options::EnvMap& env,
                                    const std::string& executable_dir, const std::string& cwd) {
  return first_set(
      {{output_key.empty() ? "" : absolute(cwd, output_key), "acl.json profiler \"output\""},
       {work_path_tier(env, cwd), "ASCEND_WORK_PATH/profiling_data"},
       {absolute(cwd, executable_dir.empty() ? "." : executable_dir), "the application executable's folder"}});
}

ChosenFolder trace_handler_folder(const std::string& handler_dir, const options::EnvMap& env, const std::string& cwd) {
  return first_set({{handler_dir.empty() ? "" : absolute(cwd, handler_dir), "the trace handler's folder"},
                    {work_path_tier(env, cwd), "ASCEND_WORK_PATH/profiling_data"},
                    {current_or(cwd), "the working folder"}});
}

}  // namespace openge::profiling
