// --profile and --profile-options, the shortcut that `openge run` and `openge bench` offer for
// profiling_config.enable_profiling + profiling_config.profiling_options.
#pragma once
#include <filesystem>
#include <vector>

#include "cli_args.h"
#include "options/option_builder.h"

namespace openge::cli {

std::vector<FlagSpec> profile_flag_specs();

// The folder --profile created, removed again (when still empty) unless the command got as far
// as collecting into it: bad input leaves nothing behind.
struct CreatedFolder {
  std::filesystem::path path;
  bool keep = false;
  ~CreatedFolder();
};

// --profile / --profile-options as option assignments (none without --profile). Without an
// "output" key and without ASCEND_WORK_PATH, the shortcut collects into ./profiling_data
// (created, and named in `created`), where CANN would refuse (ENV-13): the shortcut is for a
// quick look (docs/DECISIONS.md).
Result<std::vector<options::OptionAssignment>> profile_assignments(const Args& args, const options::EnvMap& env,
                                                                   CreatedFolder& created);

}  // namespace openge::cli
