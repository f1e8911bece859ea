// Whether a compiled model (.oge) may run in this engine, on this CPU, with this session's
// options. What is refused, and why a .oge is never recompiled behind the user's back, is in
// docs/DECISIONS.md ("Compiled models from elsewhere").
#pragma once
#include <string>
#include <vector>

#include "oge/oge_file.h"

namespace openge::options {
class OptionSet;
}

namespace openge::oge {

struct RunEnvironment {
  std::string engine_version;
  std::vector<std::string> cpu_features;
  const options::OptionSet* config = nullptr;  // null: every option at its default
  bool fusion_passes = true;                   // SessionOptions.run_passes
};
// This engine and this CPU with the given session settings.
RunEnvironment this_environment(const options::OptionSet* config, bool fusion_passes);

// Ok, or one error listing every difference (another engine version; a CPU feature the file was
// compiled for that this CPU lacks; an option the user set to another value than the one the
// graph was compiled with; fusion passes switched differently) and saying how to recompile.
Status check_compatible(const OgeHeader& header, const std::string& source, const RunEnvironment& here);

}  // namespace openge::oge
