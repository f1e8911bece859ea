// Which op types the AI Core engine has a kernel for (aicore_registry.cpp's table). A node of
// such a type that still runs on the AI CPU is a fallback: its kernel refused the node's dtype,
// rank or attributes (make_aicore_kernel returned none), and the reference kernel runs it.
#pragma once
#include <string_view>

namespace openge {

bool has_aicore_kernel(std::string_view op_type);

}  // namespace openge
