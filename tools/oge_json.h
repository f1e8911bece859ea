// ATC --mode=1: a compiled model (.oge) written as JSON: its header (engine version, CPU features,
// the options it was compiled with, source model) and its graph (every node's name, type, inputs,
// outputs and attributes' names; every graph input and output with dtype and shape).
#pragma once
#include <string>

#include "openge/status.h"

namespace openge::cli {

Status write_oge_as_json(const std::string& oge_path, const std::string& json_path);

}  // namespace openge::cli
