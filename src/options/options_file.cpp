#include "options/options_file.h"

#include <nlohmann/json.hpp>
#include <regex>

#include "options/config_files.h"
#include "options/option_table.h"

namespace openge::options {
namespace {

using Json = nlohmann::json;

// Groups of npu.global_options() that JSON may nest.
bool is_group(const std::string& key) {
  return key == "dump_config" || key == "memory_config" || key == "profiling_config" || key == "aoe_config";
}

std::string where(const std::string& source, int line, int col) {
  return source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": ";
}

// Line of the first occurrence of "key" in the text: the JSON parser keeps no positions, and
// this is only used to point a user at the right line.
int line_of_key(std::string_view text, const std::string& key) {
  const auto pos = text.find("\"" + key + "\"");
  if (pos == std::string_view::npos) return 0;
  int line = 1;
  for (size_t i = 0; i < pos; ++i) line += text[i] == '\n';
  return line;
}

void flatten_json(const Json& obj, const std::string& prefix, std::string_view text, const std::string& source,
                  ParsedOptionsFile& out) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string name = prefix.empty() ? it.key() : prefix + "." + it.key();
    const Json& v = it.value();
    const int line = line_of_key(text, it.key());
    auto err = [&](const std::string& m) { out.errors.push_back(where(source, line, 1) + "'" + name + "': " + m); };
    if (v.is_object()) {
      if (prefix.empty() && is_group(it.key()))
        flatten_json(v, name, text, source, out);
      else if (it.key() == "profiling_options")
        out.assignments.push_back({name, v.dump(), line, 1});
      else
        err("an object is allowed only for dump_config, memory_config, profiling_config, aoe_config and "
            "profiling_options");
    } else if (v.is_null()) {
      continue;  // None: not set
    } else if (v.is_boolean()) {
      out.assignments.push_back({name, v.get<bool>() ? "True" : "False", line, 1});
    } else if (v.is_number_unsigned()) {  // before integer: both match an unsigned value
      out.assignments.push_back({name, std::to_string(v.get<uint64_t>()), line, 1});
    } else if (v.is_number_integer()) {
      out.assignments.push_back({name, std::to_string(v.get<int64_t>()), line, 1});
    } else if (v.is_string()) {
      out.assignments.push_back({name, v.get<std::string>(), line, 1});
    } else {
      err("the value must be a string, an integer, true/false or null, got " + v.dump());
    }
  }
}

void parse_json(std::string_view text, const std::string& source, ParsedOptionsFile& out) {
  Json j;
  try {
    j = Json::parse(text.begin(), text.end(), nullptr, true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    const auto [line, col] = line_column(text, e.byte);
    out.errors.push_back(where(source, line, col) + "invalid JSON: " + json_error_reason(e.what()));
    return;
  } catch (const Json::exception& e) {
    out.errors.push_back(where(source, 1, 1) + "invalid JSON: " + e.what());
    return;
  }
  if (!j.is_object()) {
    out.errors.push_back(where(source, 1, 1) + "the JSON document must be an object {\"option\": value, ...}");
    return;
  }
  flatten_json(j, "", text, source, out);
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// One TF-adapter line; returns "" or the error (with its column through `col`).
std::string parse_tf_line(std::string_view line, FileAssignment& a, int& col) {
  size_t i = 0;
  auto skip_ws = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  skip_ws();
  // Optional "<ident>(.<ident>)*.global_options()." prefix.
  static constexpr std::string_view kCall = "global_options().";
  const auto call = line.find(kCall, i);
  if (call != std::string_view::npos && line.find('=', i) > call) {
    size_t k = i;
    while (k < call) {
      if (!ident_start(line[k])) {
        col = static_cast<int>(k) + 1;
        return "expected npu.global_options().NAME = VALUE";
      }
      while (k < call && ident_char(line[k])) ++k;
      if (k < call && line[k] == '.')
        ++k;
      else if (k < call) {
        col = static_cast<int>(k) + 1;
        return "expected npu.global_options().NAME = VALUE";
      }
    }
    i = call + kCall.size();
  }
  // Dotted name.
  const size_t name_begin = i;
  while (true) {
    if (i >= line.size() || !ident_start(line[i])) {
      col = static_cast<int>(i) + 1;
      return "expected an option name";
    }
    while (i < line.size() && ident_char(line[i])) ++i;
    if (i < line.size() && line[i] == '.')
      ++i;
    else
      break;
  }
  a.name = std::string(line.substr(name_begin, i - name_begin));
  a.column = static_cast<int>(name_begin) + 1;
  skip_ws();
  if (i >= line.size() || line[i] != '=') {
    col = static_cast<int>(i) + 1;
    return "expected '=' after " + a.name;
  }
  ++i;
  skip_ws();
  col = static_cast<int>(i) + 1;
  if (i >= line.size()) return "expected a value after '='";
  const char q = line[i];
  if (q == '\'' || q == '"') {
    std::string v;
    ++i;
    bool closed = false;
    while (i < line.size()) {
      const char c = line[i];
      if (c == q) {
        closed = true;
        ++i;
        break;
      }
      if (c == '\\' && i + 1 < line.size()) {
        const char e = line[i + 1];
        switch (e) {
          case '\\':
            v += '\\';
            break;
          case '\'':
            v += '\'';
            break;
          case '"':
            v += '"';
            break;
          case 'n':
            v += '\n';
            break;
          case 't':
            v += '\t';
            break;
          default:
            v += '\\';
            v += e;
            break;  // Python keeps unknown escapes as written
        }
        i += 2;
        continue;
      }
      v += c;
      ++i;
    }
    if (!closed) return "the string is not closed";
    a.value = v;
  } else {
    const size_t b = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])) && line[i] != '#') ++i;
    const std::string_view word = line.substr(b, i - b);
    if (word == "True" || word == "False" || word == "None") {
      a.value = std::string(word);
    } else {
      size_t k = (word.size() && (word[0] == '-' || word[0] == '+')) ? 1 : 0;
      bool digits = k < word.size();
      for (; k < word.size(); ++k) digits = digits && std::isdigit(static_cast<unsigned char>(word[k]));
      if (!digits)
        return "'" + std::string(word) + "' is not a Python literal (a quoted string, True, False, None or an integer)";
      a.value = std::string(word[0] == '+' ? word.substr(1) : word);
    }
  }
  skip_ws();
  if (i < line.size() && line[i] != '#') {
    col = static_cast<int>(i) + 1;
    return "unexpected text after the value";
  }
  return "";
}

// TF1's session-config form: PREFIX.parameter_map["NAME"].s = tf.compat.as_bytes("VALUE"),
// .b = True|False, .i = INTEGER, .f = NUMBER. Returns "" or the error.
std::string parse_parameter_map_line(std::string_view line, FileAssignment& a) {
  static const std::regex kLine(
      R"(^\s*[A-Za-z_][\w.]*\.parameter_map\[\s*(['"])([^'"]+)\1\s*\]\.([sbif])\s*=\s*(.*?)\s*(#[^'"]*)?$)");
  static const std::regex kBytes(R"(^(?:[A-Za-z_][\w.]*\(\s*b?(['"])(.*)\1\s*\)|b?(['"])(.*)\3)$)");
  static const std::regex kInteger(R"(^[+-]?\d+$)");
  static const std::regex kNumber(R"(^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(line.begin(), line.end(), m, kLine))
    return "expected custom_op.parameter_map[\"NAME\"].s|b|i|f = VALUE";
  a.name = m[2].str();
  a.column = static_cast<int>(m.position(2)) + 1;
  const std::string kind = m[3].str(), value = m[4].str();
  std::smatch v;
  if (kind == "s") {
    if (!std::regex_match(value, v, kBytes))
      return ".s needs a string: tf.compat.as_bytes(\"VALUE\") or \"VALUE\", got " + value;
    a.value = v[2].matched ? v[2].str() : v[4].str();
  } else if (kind == "b") {
    if (value != "True" && value != "False") return ".b needs True or False, got " + value;
    a.value = value;
  } else if (kind == "i") {
    if (!std::regex_match(value, kInteger)) return ".i needs an integer, got " + value;
    a.value = value[0] == '+' ? value.substr(1) : value;
  } else {
    if (!std::regex_match(value, kNumber)) return ".f needs a number, got " + value;
    a.value = value;
  }
  return "";
}

// TF1 session keys that choose how TensorFlow hands the graph to the NPU (offline execution,
// mixed host/NPU compilation, loop sinking, data preprocessing on the device): a CPU engine runs
// the whole graph itself, so a script's lines for them are skipped like its other setup lines.
constexpr std::string_view kTf1SessionOnlyKeys[] = {"use_off_line", "mix_compile_mode", "iterations_per_loop",
                                                    "enable_data_pre_proc"};

bool is_session_only_key(const std::string& name) {
  for (auto k : kTf1SessionOnlyKeys)
    if (name == k) return true;
  return false;
}

bool is_parameter_map_line(std::string_view line) { return line.find("parameter_map[") != std::string_view::npos; }
bool is_global_options_line(std::string_view line) { return line.find("global_options().") != std::string_view::npos; }

void parse_tf_lines(std::string_view text, const std::string& source, ParsedOptionsFile& out) {
  // A pasted script sets its options through global_options() or parameter_map[...]; its other
  // lines (session setup, custom_op.name = ...) are skipped rather than read as options.
  const bool script =
      text.find("global_options().") != std::string_view::npos || text.find("parameter_map[") != std::string_view::npos;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_no;
    pos = end + 1;
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') {
      if (end == text.size()) break;
      continue;
    }
    if (line.substr(first).rfind("import ", 0) == 0 || line.substr(first).rfind("from ", 0) == 0) {
      if (end == text.size()) break;
      continue;  // pasted script headers ("import npu_device as npu") are skipped
    }
    FileAssignment a;
    a.line = line_no;
    int col = 1;
    std::string err;
    if (is_parameter_map_line(line)) {
      err = parse_parameter_map_line(line, a);
      if (err.empty() && is_session_only_key(a.name)) {
        out.skipped_lines.push_back(line_no);
        if (end == text.size()) break;
        continue;
      }
    } else {
      err = parse_tf_line(line, a, col);
      // In a pasted script, a line that does not assign a known option (config = tf.ConfigProto(),
      // custom_op.name = "NpuOptimizer") is the script's own and is passed over.
      if (script && !is_global_options_line(line) && !find_option(a.name)) {
        out.skipped_lines.push_back(line_no);
        if (end == text.size()) break;
        continue;
      }
    }
    if (!err.empty())
      out.errors.push_back(where(source, line_no, col) + err);
    else if (a.value != "None")
      out.assignments.push_back(a);
    if (end == text.size()) break;
  }
}

}  // namespace

ParsedOptionsFile parse_options_text(std::string_view text, const std::string& source) {
  ParsedOptionsFile out;
  // A UTF-8 byte-order mark is tolerated.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{')
    parse_json(text, source, out);
  else
    parse_tf_lines(text, source, out);
  return out;
}

ParsedOptionsFile read_options_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text.ok()) {
    ParsedOptionsFile out;
    out.errors.push_back(text.status().message());
    return out;
  }
  return parse_options_text(*text, path);
}

}  // namespace openge::options
