#include "profile_flags.h"

#include <nlohmann/json.hpp>

namespace openge::cli {
namespace fs = std::filesystem;
namespace {

// What --profile collects when --profile-options is not given: every task (AI Core and AI CPU),
// the step trace and the host API calls.
constexpr const char* kDefaultProfileOptions =
    R"({"task_trace":"on","training_trace":"on","aicpu":"on","runtime_api":"on"})";

}  // namespace

std::vector<FlagSpec> profile_flag_specs() {
  return {
      {"profile", "", "profile the runs (profiling_config.enable_profiling=True) and print the top-10 operators"},
      {"profile-options", "JSON",
       "profiling_options for --profile (default " + std::string(kDefaultProfileOptions) +
           "; \"output\" defaults to ASCEND_WORK_PATH/profiling_data, else ./profiling_data)"},
  };
}

CreatedFolder::~CreatedFolder() {
  std::error_code ec;
  if (!keep && !path.empty() && fs::is_empty(path, ec)) fs::remove(path, ec);
}

Result<std::vector<options::OptionAssignment>> profile_assignments(const Args& args, const options::EnvMap& env,
                                                                   CreatedFolder& created) {
  if (!args.has("profile")) {
    if (args.has("profile-options")) return invalid_argument("--profile-options needs --profile");
    return std::vector<options::OptionAssignment>{};
  }
  std::string json = args.get("profile-options", kDefaultProfileOptions);
  auto parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() && !parsed.contains("output") && !env.count("ASCEND_WORK_PATH")) {
    const fs::path dir = fs::absolute("profiling_data");
    std::error_code ec;
    if (!fs::exists(dir, ec)) created.path = dir;
    fs::create_directories(dir, ec);
    if (ec)
      return io_error("--profile: cannot create " + dir.string() + ": " + ec.message() +
                      "; give an \"output\" folder in --profile-options");
    parsed["output"] = dir.string();
    json = parsed.dump();
  }
  // A malformed JSON is passed on as written: the option check reports it with the others.
  return std::vector<options::OptionAssignment>{{"profiling_config.enable_profiling", "True", "--profile"},
                                                {"profiling_config.profiling_options", json, "--profile-options"}};
}

}  // namespace openge::cli
