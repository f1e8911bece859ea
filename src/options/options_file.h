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
  // Lines of a pasted script that set no option (tf.Session(...), custom_op.name = ...), skipped;
  // 1-based. Import lines and comments are not counted.
  std::vector<int> skipped_lines;
};

// `source` names the text in messages (a file name). A text whose first non-blank character is
// '{' is JSON; anything else is read as TF-adapter lines: `[prefix.]global_options().NAME = VALUE`
// or `NAME = VALUE`, VALUE a Python literal ('str', "str", True, False, None, integer), with
// '#' comments and blank lines. None leaves an option unset. TF1's
// `custom_op.parameter_map["NAME"].s = tf.compat.as_bytes("VALUE")` (and .b = True, .i = 3,
// .f = 1.5) is read as NAME = VALUE. A text holding any global_options() or parameter_map[...]
// line is a pasted script: its lines that assign no known option (config = tf.ConfigProto(),
// custom_op.name = "NpuOptimizer", TF1's use_off_line and the other NPU-session keys) are skipped and listed in
// skipped_lines, where in a plain NAME = VALUE file they are errors.
ParsedOptionsFile parse_options_text(std::string_view text, const std::string& source);

// Reads and parses a file; unreadable files, folders and huge files are reported as errors.
ParsedOptionsFile read_options_file(const std::string& path);

}  // namespace openge::options
