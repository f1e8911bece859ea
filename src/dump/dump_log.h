// The one place where the dump module reports events (the first overflowing op of an
// iteration, where the mixlist was written): the engine log (src/logging/), as warnings.
#pragma once
#include <string>

namespace openge::dump {

void log_dump_event(const std::string& message);

}  // namespace openge::dump
