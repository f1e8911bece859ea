// openge/ops.h over the op table.
#include "openge/ops.h"
#include "ops/op_registry.h"

namespace openge {

std::vector<OpTypeName> supported_op_types() {
  std::vector<OpTypeName> out;
  for (const OpSchema& s : all_op_schemas()) out.push_back({std::string(s.domain), std::string(s.op_type)});
  return out;
}

}  // namespace openge
