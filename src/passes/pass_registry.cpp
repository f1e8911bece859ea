#include "passes/pass.h"

namespace openge {

const std::vector<Pass>& all_passes() {
  static const std::vector<Pass> passes = {};
  return passes;
}

}  // namespace openge
