#include "options/option_text.h"

namespace openge::options {

std::string default_text(const OptionSpec& spec) {
  if (!spec.default_fn) return *spec.default_value ? spec.default_value : "(unset)";
  std::string out;
  bool all_same = true;
  const std::string first = default_for(spec, DefaultContext{1, "Ascend910"});
  for (const char* soc : {"Ascend910", "Ascend910B", "Ascend310P"})
    for (int mode : {1, 0}) {
      const std::string value = default_for(spec, DefaultContext{mode, soc});
      all_same = all_same && value == first;
      out += std::string(out.empty() ? "" : "; ") + soc + (mode ? " training: " : " online inference: ") + value;
    }
  return all_same ? first : out;  // computed, but the same in every scenario
}

std::string effect_text(const OptionSpec& spec) { return std::string(effect_label(spec.status)) + ": " + spec.effect; }

}  // namespace openge::options
