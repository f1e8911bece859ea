// How every openge command reports a failure: one line on stderr, control characters in names
// taken from the model escaped, so a hostile file cannot forge or split the message.
#pragma once
#include <string>

#include "openge/status.h"

namespace openge::cli {

// "\n" -> "\\n", other control bytes -> "\\xNN".
std::string escape_control_chars(const std::string& text);
// Prints "openge COMMAND: error: MESSAGE" (at most kMaxMessageChars of it, openge/bounded_text.h)
// and returns the exit code 1.
int report_error(const char* command, const Status& status);

}  // namespace openge::cli
