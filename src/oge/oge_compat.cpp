#include "oge/oge_compat.h"

#include <algorithm>

#include "base/cpu_features.h"
#include "options/option_set.h"

namespace openge::oge {

RunEnvironment this_environment(const options::OptionSet* config, bool fusion_passes) {
  return {engine_version(), cpu_features(), config, fusion_passes};
}

Status check_compatible(const OgeHeader& header, const std::string& source, const RunEnvironment& here) {
  std::vector<std::string> differences;
  if (header.engine_version != here.engine_version)
    differences.push_back("it was compiled by OpenGE " + header.engine_version + ", this is OpenGE " +
                          here.engine_version);
  std::string missing;
  for (const std::string& f : header.cpu_features)
    if (std::find(here.cpu_features.begin(), here.cpu_features.end(), f) == here.cpu_features.end())
      missing += (missing.empty() ? "" : ", ") + f;
  if (!missing.empty()) differences.push_back("it was compiled for a CPU with " + missing + ", which this CPU lacks");
  // Only a value the user gave conflicts: an option left at its default takes the compiled one.
  for (const auto& [name, compiled] : header.options) {
    if (!here.config || !here.config->find(name) || !here.config->user_set(name)) continue;
    const std::string value = here.config->get(name);
    if (value != compiled)
      differences.push_back("option " + name + " is '" + value + "' here but the graph was compiled with '" + compiled +
                            "'");
  }
  if (header.fusion_passes != here.fusion_passes)
    differences.push_back(std::string("it was compiled with the fusion passes ") +
                          (header.fusion_passes ? "on" : "off") + ", this session has them " +
                          (here.fusion_passes ? "on" : "off"));
  if (differences.empty()) return Status::Ok();
  std::string message = "compiled model " + source + " cannot run here: ";
  for (size_t i = 0; i < differences.size(); ++i) message += (i ? "; " : "") + differences[i];
  const std::string model = header.source_model.empty() ? "M.onnx" : header.source_model;
  return invalid_argument(message + ". Recompile it here: openge compile --model " + model + " --output " + source +
                          " [the options you run with]");
}

}  // namespace openge::oge
