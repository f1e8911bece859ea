// --options-file: JSON ({"precision_mode": "...", "dump_config": {...}}) or TF-adapter lines
// (npu.global_options().dump_config.enable_dump=True), parsed and never evaluated.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace openge::options {

struct FileAssignment {
  std::string name;   // as written (dotted name, alias, GE key or leaf name)
  std::string value;  // canonical text: True/False for Python/JSON booleans, decimal integers
  int line = 0;       // 1-based; 0 when unknown
  int column = 0;
};

struct ParsedOptionsFile {
  std::vector<FileAssignment> assignments;
  std::vector<std::string> errors;  // "file:line:column: reason", all of them
};

// `source` names the text in messages (a file name). A text whose first non-blank character is
// '{' is JSON; anything else is read as TF-adapter lines: `[prefix.]global_options().NAME = VALUE`
// or `NAME = VALUE`, VALUE a Python literal ('str', "str", True, False, None, integer), with
// '#' comments and blank lines. None leaves an option unset.
ParsedOptionsFile parse_options_text(std::string_view text, const std::string& source);

// Reads and parses a file; unreadable files, folders and huge files are reported as errors.
ParsedOptionsFile read_options_file(const std::string& path);

}  // namespace openge::options
