// Text placed into the self-contained HTML pages OpenGE writes (the profiling report, the dump
// comparison): names come from model files and must never become markup.
#pragma once
#include <string>

namespace openge {

// < > & " as character references; everything else as it is.
std::string html_escape(const std::string& text);

}  // namespace openge
