// openge msprof: CANN msprof's command line. The application (any OpenGE process or script) runs
// in a child process whose environment turns profiling on (PROFILING_MODE, PROFILING_OPTIONS with
// the switches and the output folder of ENV-10's chain); msprof waits for it and exits with its
// status. --export=on rebuilds the report of a collection.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>

#include "cli_errors.h"
#include "commands.h"
#include "msprof_flags.h"
#include "profile_summary.h"
#include "openge/files.h"
#include "openge/options.h"
#include "openge/profiling_chains.h"
#include "openge/profiling_report.h"

namespace openge::cli {
namespace {
namespace fs = std::filesystem;

int fail(const Status& s) { return report_error("msprof", s); }

std::set<std::string> collections_in(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && it->path().filename().string().rfind("PROF_", 0) == 0) out.insert(it->path().string());
  return out;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

int export_collection(const std::string& dir) {
  auto data = profiling::load_report_data(dir);
  if (!data.ok()) return fail(data.status().with_context("--export=on --output=" + dir));
  const std::string report = (fs::path(data->folder) / "report.html").string();
  if (Status s = write_file_atomically(report, profiling::render_report_html(data.value(), {})); !s.ok())
    return fail(s);
  std::printf("profiling data: %s\n", data->folder.c_str());
  print_top_ops(data.value(), 10);
  std::printf("report: %s\n", report.c_str());
  return 0;
}

// The child's exit status as a shell reports it (128 + signal for a killed one).
int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int cmd_msprof(int argc, char** argv) {
  auto request = parse_msprof_line(argc, argv);
  if (!request.ok()) return fail(request.status());
  if (request->help) {
    std::cout << msprof_help();
    return 0;
  }
  for (const auto& note : request->notes) std::cerr << "openge msprof: " << note << "\n";
  if (request->export_only) return export_collection(request->output);

  const options::EnvMap env = options::capture_process_environment();
  const auto words = split_command_line(request->application);
  if (words.empty()) return fail(invalid_argument("--application is empty: give the command to profile"));
  const auto path_var = env.find("PATH");
  const auto chosen =
      profiling::msprof_output_folder(request->output, env, model_in_command(words),
                                      application_file(words, path_var == env.end() ? "" : path_var->second));
  std::string profiling_json = request->profiling_options;
  profiling_json.insert(1, "\"output\":" + json_string(chosen.path) + (profiling_json.size() > 2 ? "," : ""));
  // The switches are checked as the application will check them (with its environment), before
  // anything is made or run.
  {
    options::OptionInputs in;
    in.flags = {{"profiling_config.enable_profiling", "True", "openge msprof"},
                {"profiling_config.profiling_options", profiling_json, "openge msprof"}};
    in.env = env;
    in.check_files = false;
    const auto checked = options::build_configuration(in);
    if (!checked.errors.empty()) {
      const auto& p = checked.errors.front();
      return fail(invalid_argument(p.parameter == "profiling_config.profiling_options" ||
                                           p.parameter.rfind("profiling_config.profiling_options.", 0) == 0
                                       ? "a switch's value is refused: " + p.to_string()
                                       : p.to_string()));
    }
  }
  // The folder is made and checked before the application starts: nothing runs for a collection
  // that cannot be written.
  if (Status s = make_directories(chosen.path); !s.ok())
    return fail(s.with_context("profiling output " + chosen.path + " (" + chosen.rule + ")"));
  if (::access(chosen.path.c_str(), W_OK | X_OK) != 0)
    return fail(invalid_argument("profiling output " + chosen.path + " (" + chosen.rule +
                                 ") is not writable; give --output=DIR with a folder you can write"));
  const auto before = collections_in(chosen.path);

  std::cerr << "openge msprof: profiling data goes to " << chosen.path << " (" << chosen.rule << ")\n";
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = ::fork();
  if (child < 0) return fail(invalid_argument("cannot start the application: fork failed"));
  if (child == 0) {
    ::setenv("PROFILING_MODE", "true", 1);
    ::setenv("PROFILING_OPTIONS", profiling_json.c_str(), 1);
    ::execl("/bin/sh", "sh", "-c", request->application.c_str(), static_cast<char*>(nullptr));
    std::perror("openge msprof: cannot run /bin/sh");
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return fail(invalid_argument("lost the application's process"));
  const int code = exit_code_of(status);
  const auto after = collections_in(chosen.path);
  int made = 0;
  for (const auto& dir : after)
    if (!before.count(dir)) {
      std::cerr << "openge msprof: wrote " << dir << "\n";
      ++made;
    }
  if (made == 0)
    std::cerr << "openge msprof: the application wrote no collection to " << chosen.path
              << " (it opened no OpenGE session, or set its own profiling output)\n";
  if (code != 0) std::cerr << "openge msprof: the application exited with status " << code << "\n";
  return code;
}

}  // namespace openge::cli
