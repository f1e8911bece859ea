// The elementwise op family: unary math, activations, broadcasting binary and variadic ops,
// comparisons and logic, Where, Cast, Identity and Dropout. Each part lives in its own
// elementwise_*.cpp file; this one puts their rows into the op table.
#include "ops/elementwise/elementwise_common.h"

namespace openge {

void register_elementwise_ops(std::vector<OpSchema>& table) {
  elementwise::register_unary_ops(table);
  elementwise::register_activation_ops(table);
  elementwise::register_binary_ops(table);
  elementwise::register_variadic_ops(table);
  elementwise::register_cast_ops(table);
}

}  // namespace openge
