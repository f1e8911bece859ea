#include "run_artifacts.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <regex>
#include <string_view>

namespace openge::cli {
namespace fs = std::filesystem;
namespace {

bool is_inside(const std::string& path, const std::string& folder) {
  return path == folder || (path.size() > folder.size() && path.rfind(folder, 0) == 0 && path[folder.size()] == '/');
}

// Files under `dir` written at or after `since`; the walk stops at `limit` entries so a huge
// shared folder (a compile cache) cannot stall the end of a run.
void collect_written(const fs::path& dir, fs::file_time_type since, std::vector<std::string>& out,
                     size_t limit = 20000) {
  size_t seen = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end && seen < limit; it.increment(ec), ++seen) {
    std::error_code e;
    if (it->is_regular_file(e) && it->last_write_time(e) >= since && !e) out.push_back(it->path().string());
  }
}

// When several artifacts default to one folder (the working directory), the file's name says
// whose it is.
struct NamePrefix {
  std::string_view kind;  // ArtifactPath::kind
  const char* prefix;
};
constexpr NamePrefix kNamePrefixes[] = {
    {"aoe_data", "aoe_"},
    {"graph_dump", "ge_"},
};

bool named_for(const std::string& kind, const std::string& file) {
  const std::string name = fs::path(file).filename().string();
  for (const auto& p : kNamePrefixes)
    if (p.kind == kind && name.rfind(p.prefix, 0) == 0) return true;
  return false;
}

// Logs, traces and per-process folders are shared by every process of the user and carry the
// writer's pid ("plog-<pid>_<time>.log", "atrace-<pid>_...", "FE/<pid>/", "<pid>_<device>/"):
// a file whose path names another pid was written by another process at the same time.
bool written_by_another_process(const std::string& path, const std::string& root) {
  static const std::regex kPidName(R"(^[A-Za-z]+-(\d+)_\d+.*$)");
  static const std::regex kPidFolder(R"(^(\d+)(_\d+)?$)");
  const std::string own = std::to_string(::getpid());
  const fs::path relative = fs::path(path).lexically_relative(root);
  std::smatch m;
  for (const auto& part : relative) {
    const std::string name = part.string();
    if ((std::regex_match(name, m, kPidName) || std::regex_match(name, m, kPidFolder)) && m[1].str() != own)
      return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> artifacts_written_since(const options::OptionSet& options, fs::file_time_type since,
                                                 const std::vector<std::string>& exclude) {
  // Several artifacts may default to one folder (the working directory): each new file belongs
  // to the artifact with the most specific path that holds it, so none is counted twice.
  const auto resolved = options::artifact_paths(options);
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& r : resolved) {
    if (r.path.empty()) continue;
    if (fs::is_regular_file(r.path, ec)) {
      if (fs::last_write_time(r.path, ec) >= since && !ec) files.push_back(r.path);
    } else if (!r.is_file && fs::is_directory(r.path, ec)) {
      std::vector<std::string> found;
      collect_written(r.path, since, found);
      for (auto& f : found)
        if (!written_by_another_process(f, r.path)) files.push_back(std::move(f));
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  std::vector<size_t> counts(resolved.size(), 0);
  for (const auto& f : files) {
    if (std::any_of(exclude.begin(), exclude.end(),
                    [&](const std::string& x) { return !x.empty() && is_inside(f, x); }))
      continue;
    size_t best = resolved.size();
    for (size_t i = 0; i < resolved.size(); ++i) {
      if (resolved[i].path.empty() || !is_inside(f, resolved[i].path)) continue;
      const bool deeper = best == resolved.size() || resolved[i].path.size() > resolved[best].path.size();
      const bool same_folder_but_named = best != resolved.size() && resolved[i].path == resolved[best].path &&
                                         named_for(resolved[i].kind, f) && !named_for(resolved[best].kind, f);
      if (deeper || same_folder_but_named) best = i;
    }
    if (best < resolved.size()) ++counts[best];
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < resolved.size(); ++i) {
    if (counts[i] == 0) continue;
    const std::string& name = resolved[i].kind;
    if (fs::is_regular_file(resolved[i].path, ec))
      out.push_back(name + " " + resolved[i].path);
    else
      out.push_back(name + " " + resolved[i].path + " (" + std::to_string(counts[i]) +
                    (counts[i] == 1 ? " file)" : " files)"));
  }
  return out;
}

void print_artifacts_line(std::vector<std::string> artifacts, const std::vector<std::string>& more) {
  // Each entry is "NAME... PATH" or "NAME... PATH (N files)"; a path inside another (a dump's
  // timestamp folder inside the dump folder) is the same artifact named twice.
  const auto path_of = [](const std::string& entry) {
    const std::string head = entry.substr(0, entry.rfind(" ("));
    return entry.back() == ')' ? head.substr(head.rfind(' ') + 1) : entry.substr(entry.rfind(' ') + 1);
  };
  const auto inside = [](const std::string& a, const std::string& b) {
    return a.rfind(b, 0) == 0 || b.rfind(a, 0) == 0;
  };
  for (const auto& m : more) {
    bool named = false;
    for (const auto& a : artifacts) named = named || inside(path_of(a), path_of(m));
    if (!named) artifacts.push_back(m);
  }
  std::string line;
  for (const auto& a : artifacts) line += (line.empty() ? "" : "; ") + a;
  std::cout << "wrote: " << (line.empty() ? "nothing" : line) << "\n";
}

}  // namespace openge::cli
