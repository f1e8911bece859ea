#include "session_flags.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_errors.h"
#include "options_cli.h"
#include "openge/bounded_text.h"
#include "openge/files.h"

namespace openge::cli {
namespace fs = std::filesystem;
namespace {

// What --profile collects when --profile-options is not given: every task (AI Core and AI CPU),
// the step trace and the host API calls.
constexpr const char* kDefaultProfileOptions =
    R"({"task_trace":"on","training_trace":"on","aicpu":"on","runtime_api":"on"})";

// --profile / --profile-options as option assignments (none without --profile).
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
    if (Status made = make_directories(dir.string(), kFolderMode); !made.ok())
      return io_error("--profile: " + made.message() + "; give an \"output\" folder in --profile-options");
    parsed["output"] = dir.string();
    json = parsed.dump();
  }
  // A malformed JSON is passed on as written: the option check reports it with the others.
  return std::vector<options::OptionAssignment>{{"profiling_config.enable_profiling", "True", "--profile"},
                                                {"profiling_config.profiling_options", json, "--profile-options"}};
}

}  // namespace

std::vector<FlagSpec> session_flag_specs() {
  std::vector<FlagSpec> flags = {
      {"threads", "N", "threads for parallel ops (default: one per core)"},
      {"engine", "ENGINE", "auto (default: AI Core where it can, AI CPU otherwise) or aicpu (reference kernels only)"},
      {"profile", "", "profile the runs (profiling_config.enable_profiling=True)"},
      {"profile-options", "JSON",
       "profiling_options for --profile (default " + std::string(kDefaultProfileOptions) +
           "; \"output\" defaults to ASCEND_WORK_PATH/profiling_data, else ./profiling_data)"},
  };
  for (auto& f : option_flag_specs()) flags.push_back(f);
  return flags;
}

CreatedFolder::~CreatedFolder() {
  std::error_code ec;
  if (!keep && !path.empty() && fs::is_empty(path, ec)) fs::remove(path, ec);
}

std::optional<SessionOptions> session_options_from_flags(const char* command, const Args& args,
                                                         CreatedFolder& created) {
  auto threads = args.get_int("threads", 0, 0, 1024);
  if (!threads.ok()) return report_error(command, threads.status()), std::nullopt;
  const std::string engine = args.get("engine", "auto");
  if (engine != "auto" && engine != "aicpu")
    return report_error(command, invalid_argument("--engine must be auto or aicpu, got '" + engine + "'")),
           std::nullopt;
  const options::EnvMap env = options::capture_process_environment();
  auto profile = profile_assignments(args, env, created);
  if (!profile.ok()) return report_error(command, profile.status()), std::nullopt;
  auto config = option_set_from_args(args, env, *profile);
  if (!config.ok()) {
    // One problem is one line; several get a header and a line each. Bounded: a value echoed
    // back can be megabytes long.
    std::string problems = bound_text(config.status().message());
    while (!problems.empty() && problems.back() == '\n') problems.pop_back();
    if (problems.find('\n') == std::string::npos)
      std::fprintf(stderr, "openge %s: invalid option: %s\n", command, problems.c_str());
    else
      std::fprintf(stderr, "openge %s: invalid options:\n%s\n", command, problems.c_str());
    return std::nullopt;
  }
  for (const auto& w : options::option_warnings(**config))
    std::fprintf(stderr, "openge %s: warning: %s\n", command, w.c_str());
  SessionOptions options;
  options.num_threads = *threads;
  options.use_aicore = engine == "auto";
  options.config = std::move(config.value());
  return options;
}

Result<OpenedModel> open_model_with_inputs(const Args& args, const SessionOptions& options, uint32_t seed,
                                           bool announce_demo, CreatedFolder& created) {
  OpenedModel opened;
  auto model_path = model_flag_or_demo(args);
  if (!model_path.ok()) return model_path.status();
  opened.path = *model_path;
  if (announce_demo && args.get("model").empty())
    std::cout << "no --model given: running the bundled demo model " << opened.path << "\n";
  auto session = Session::open(opened.path, options);
  if (!session.ok()) return session.status();
  opened.session = std::move(*session);
  created.keep = true;
  auto inputs = gather_inputs(*opened.session, args, seed);
  if (!inputs.ok()) return inputs.status().with_context("model " + opened.path);
  opened.inputs = std::move(*inputs);
  return opened;
}

}  // namespace openge::cli
