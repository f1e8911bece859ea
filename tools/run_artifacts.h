// The closing line of run and compile: every artifact they wrote and where ("wrote: fusion_result
// ./fusion_result.json; 2 output files in out"), so nothing lands in a folder unannounced.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "openge/options.h"

namespace openge::cli {

// The engine's artifacts (options::artifact_paths) under `options` that hold a file written at
// or after `since`: "NAME PATH" for a file, "NAME PATH (N files)" for a folder. Files inside
// the folders of `exclude` (the run's own outputs, named by the caller) are left out.
std::vector<std::string> artifacts_written_since(const options::OptionSet& options,
                                                 std::filesystem::file_time_type since,
                                                 const std::vector<std::string>& exclude);

// Appends what `more` adds (a path already named is not repeated) and prints
// "wrote: A; B; C" or "wrote: nothing" on stdout.
void print_artifacts_line(std::vector<std::string> artifacts, const std::vector<std::string>& more);

}  // namespace openge::cli
