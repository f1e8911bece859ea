#include "options/config_files.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "openge/did_you_mean.h"

namespace openge::options {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

constexpr uintmax_t kMaxFileBytes = 16u << 20;

std::string at(const std::string& file, int line, int col) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": ";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Calls fn(line_number, line, offset_of_line_in_text) for every line.
void for_each_line(std::string_view text, const std::function<void(int, std::string_view)>& fn) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  int n = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(++n, line);
    pos = end + 1;
  }
}

int col_of(std::string_view line, std::string_view part) { return static_cast<int>(part.data() - line.data()) + 1; }

Status collect(const std::vector<std::string>& errors) {
  std::string m;
  for (const auto& e : errors) m += (m.empty() ? "" : "\n") + e;
  return invalid_argument(m);
}

int line_of_key(std::string_view text, const std::string& key) {
  const auto pos = text.find("\"" + key + "\"");
  if (pos == std::string_view::npos) return 1;
  int line = 1;
  for (size_t i = 0; i < pos; ++i) line += text[i] == '\n';
  return line;
}

// JSON with comments; the error names file:line:column.
Result<Json> parse_json_text(std::string_view text, const std::string& file) {
  try {
    return Json::parse(text.begin(), text.end(), nullptr, true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    const auto [l, c] = line_column(text, e.byte);
    return invalid_argument(at(file, l, c) + "invalid JSON: " + json_error_reason(e.what()));
  } catch (const Json::exception& e) {
    return invalid_argument(at(file, 1, 1) + "invalid JSON: " + e.what());
  }
}

// A list given as a JSON array of strings or as one comma-separated string.
bool read_name_list(const Json& v, std::vector<std::string>& out) {
  if (v.is_string()) {
    std::string_view s = v.get_ref<const std::string&>();
    size_t i = 0;
    while (i <= s.size()) {
      size_t j = s.find(',', i);
      if (j == std::string_view::npos) j = s.size();
      auto item = trim(s.substr(i, j - i));
      if (!item.empty()) out.emplace_back(item);
      i = j + 1;
    }
    return true;
  }
  if (!v.is_array()) return false;
  for (const auto& e : v) {
    if (!e.is_string()) return false;
    out.push_back(e.get<std::string>());
  }
  return true;
}

const std::set<std::string>& dtype_names() {
  // Ascend IR dtype names (AMB-14); float32 and float are synonyms as in CANN.
  static const std::set<std::string> k = {"float16", "float32", "float", "bfloat16", "double",
                                          "float64", "int8",    "uint8", "int16",    "uint16",
                                          "int32",   "uint32",  "int64", "uint64",   "bool"};
  return k;
}

}  // namespace

Result<std::string> read_text_file(const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return io_error(path + ": no such file");
  if (fs::is_directory(st)) return io_error(path + ": is a directory, expected a file");
  if (!fs::is_regular_file(st)) return io_error(path + ": is not a regular file");
  const auto size = fs::file_size(path, ec);
  if (ec) return io_error(path + ": cannot read its size: " + ec.message());
  if (size > kMaxFileBytes) return io_error(path + ": is " + std::to_string(size) + " bytes; at most 16 MiB allowed");
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(path + ": cannot be opened for reading (permission denied?)");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return io_error(path + ": read error");
  return ss.str();
}

std::pair<int, int> line_column(std::string_view text, size_t byte) {
  const size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
  int line = 1, col = 1;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n')
      ++line, col = 1;
    else
      ++col;
  }
  return {line, col};
}

std::string json_error_reason(const std::string& what) {
  auto p = what.find("column ");
  if (p != std::string::npos) {
    p = what.find(": ", p);
    if (p != std::string::npos) return what.substr(p + 2);
  }
  p = what.find("] ");
  return p == std::string::npos ? what : what.substr(p + 2);
}

// ---- modify_mixlist --------------------------------------------------------------------------
Result<MixListEdits> parse_modify_mixlist(std::string_view text, const std::string& file) {
  auto j = parse_json_text(text, file);
  if (!j.ok()) return j.status();
  if (!j->is_object()) return invalid_argument(at(file, 1, 1) + "must be a JSON object with black-list/white-list");
  MixListEdits out;
  std::vector<std::string> errors;
  for (auto it = j->begin(); it != j->end(); ++it) {
    const int line = line_of_key(text, it.key());
    const bool black = it.key() == "black-list", white = it.key() == "white-list";
    if (!black && !white) {
      errors.push_back(at(file, line, 1) + "unknown key '" + it.key() + "'; expected black-list or white-list" +
                       did_you_mean_suffix(closest_names(it.key(), {"black-list", "white-list"})));
      continue;
    }
    if (!it->is_object()) {
      errors.push_back(at(file, line, 1) + "'" + it.key() + "' must be an object with to-add/to-remove");
      continue;
    }
    for (auto k = it->begin(); k != it->end(); ++k) {
      const int kline = line_of_key(text, k.key());
      std::vector<std::string>* dst = nullptr;
      if (k.key() == "to-add")
        dst = black ? &out.black_add : &out.white_add;
      else if (k.key() == "to-remove")
        dst = black ? &out.black_remove : &out.white_remove;
      if (!dst) {
        errors.push_back(at(file, kline, 1) + "unknown key '" + k.key() + "' in " + it.key() +
                         "; expected to-add or to-remove" +
                         did_you_mean_suffix(closest_names(k.key(), {"to-add", "to-remove"})));
        continue;
      }
      if (!read_name_list(k.value(), *dst))
        errors.push_back(at(file, kline, 1) + it.key() + "." + k.key() +
                         " must be an array of operator type names (or one comma-separated string)");
    }
  }
  if (!errors.empty()) return collect(errors);
  return out;
}

// ---- customize_dtypes ------------------------------------------------------------------------
Result<std::vector<CustomDtypeRule>> parse_customize_dtypes(std::string_view text, const std::string& file) {
  std::vector<CustomDtypeRule> rules;
  std::vector<std::string> errors;
  std::map<std::pair<bool, std::string>, int> seen;
  std::vector<std::string> known(dtype_names().begin(), dtype_names().end());
  for_each_line(text, [&](int n, std::string_view line) {
    const auto body = trim(line);
    if (body.empty() || body[0] == '#') return;
    auto err = [&](std::string_view part, const std::string& m) {
      errors.push_back(at(file, n, col_of(line, part)) + m);
    };
    const auto sep = body.find("::");
    if (sep == std::string_view::npos || sep == 0) {
      err(body, "expected 'Opname::InputDtype:...,OutputDtype:...' or 'OpType::Type:InputDtype:...'");
      return;
    }
    CustomDtypeRule r;
    r.line = n;
    std::string_view rest = body.substr(sep + 2);
    if (body.substr(0, sep) == "OpType") {
      r.by_type = true;
      const auto colon = rest.find(':');
      if (colon == std::string_view::npos || colon == 0) {
        err(rest, "expected 'OpType::TypeName:InputDtype:...'");
        return;
      }
      r.name = std::string(rest.substr(0, colon));
      rest = rest.substr(colon + 1);
    } else {
      r.name = std::string(trim(body.substr(0, sep)));
    }
    const auto in_pos = rest.find("InputDtype:");
    const auto out_pos = rest.find("OutputDtype:");
    if (in_pos == std::string_view::npos && out_pos == std::string_view::npos) {
      err(rest, "expected InputDtype:... and/or OutputDtype:...");
      return;
    }
    if ((in_pos != std::string_view::npos && in_pos != 0) || (in_pos == std::string_view::npos && out_pos != 0)) {
      err(rest,
          "unexpected text before " + std::string(in_pos != std::string_view::npos ? "InputDtype" : "OutputDtype"));
      return;
    }
    auto parse_list = [&](std::string_view list, std::vector<std::string>& dst, const char* what) {
      if (!list.empty() && list.back() == ',') list.remove_suffix(1);  // ",OutputDtype" (DISC-14)
      if (trim(list).empty()) {
        err(list, std::string(what) + " lists no dtype");
        return;
      }
      size_t i = 0;
      while (i <= list.size()) {
        size_t j = list.find(',', i);
        if (j == std::string_view::npos) j = list.size();
        const auto item = trim(list.substr(i, j - i));
        if (item.empty())
          err(list.substr(i), std::string("empty dtype in ") + what);
        else if (!dtype_names().count(std::string(item)))
          err(item, "unknown dtype '" + std::string(item) + "'" + did_you_mean_suffix(closest_names(item, known)));
        else
          dst.emplace_back(item);
        i = j + 1;
      }
    };
    if (in_pos != std::string_view::npos) {
      const size_t b = in_pos + 11;
      const size_t e = out_pos == std::string_view::npos ? rest.size() : out_pos;
      if (out_pos != std::string_view::npos && out_pos < in_pos) {
        err(rest.substr(out_pos), "OutputDtype must come after InputDtype");
        return;
      }
      parse_list(rest.substr(b, e - b), r.input_dtypes, "InputDtype");
    }
    if (out_pos != std::string_view::npos) parse_list(rest.substr(out_pos + 12), r.output_dtypes, "OutputDtype");
    if (r.name.empty()) {
      err(body, "the operator name is empty");
      return;
    }
    auto [it, fresh] = seen.emplace(std::make_pair(r.by_type, r.name), n);
    if (!fresh) {
      err(body, std::string(r.by_type ? "operator type '" : "operator '") + r.name +
                    "' is already configured at line " + std::to_string(it->second));
      return;
    }
    rules.push_back(std::move(r));
  });
  if (!errors.empty()) return collect(errors);
  return rules;
}

// ---- fusion_switch_file ----------------------------------------------------------------------
Result<FusionSwitches> parse_fusion_switch(std::string_view text, const std::string& file) {
  auto j = parse_json_text(text, file);
  if (!j.ok()) return j.status();
  const std::string shape = "expected {\"Switch\":{\"GraphFusion\":{...},\"UBFusion\":{...}}}";
  if (!j->is_object()) return invalid_argument(at(file, 1, 1) + shape);
  std::vector<std::string> errors;
  FusionSwitches out;
  for (auto it = j->begin(); it != j->end(); ++it)
    if (it.key() != "Switch")
      errors.push_back(at(file, line_of_key(text, it.key()), 1) + "unknown key '" + it.key() + "'; " + shape +
                       did_you_mean_suffix(closest_names(it.key(), {"Switch"})));
  if (!j->contains("Switch") || !(*j)["Switch"].is_object()) {
    errors.push_back(at(file, 1, 1) + "no \"Switch\" object; " + shape);
    return collect(errors);
  }
  for (auto g = (*j)["Switch"].begin(); g != (*j)["Switch"].end(); ++g) {
    const int gl = line_of_key(text, g.key());
    std::map<std::string, bool>* dst = g.key() == "GraphFusion" ? &out.graph_fusion
                                       : g.key() == "UBFusion"  ? &out.ub_fusion
                                                                : nullptr;
    if (!dst) {
      errors.push_back(at(file, gl, 1) + "unknown fusion kind '" + g.key() + "'; expected GraphFusion or UBFusion" +
                       did_you_mean_suffix(closest_names(g.key(), {"GraphFusion", "UBFusion"})));
      continue;
    }
    if (!g->is_object()) {
      errors.push_back(at(file, gl, 1) + g.key() + " must be an object {\"RuleName\":\"on\"|\"off\"}");
      continue;
    }
    for (auto r = g->begin(); r != g->end(); ++r) {
      const std::string v = r->is_string() ? r->get<std::string>() : r->dump();
      if (v != "on" && v != "off") {
        errors.push_back(at(file, line_of_key(text, r.key()), 1) + g.key() + "." + r.key() +
                         ": must be \"on\" or \"off\", got " + v);
        continue;
      }
      (*dst)[r.key()] = v == "on";
    }
  }
  if (!errors.empty()) return collect(errors);
  return out;
}

// ---- op_precision_mode ini -------------------------------------------------------------------
Result<OpPrecisionModes> parse_op_precision_ini(std::string_view text, const std::string& file) {
  static const std::vector<std::string> kModes = {"high_precision", "high_performance", "support_out_of_bound_index"};
  OpPrecisionModes out;
  std::vector<std::string> errors;
  std::map<std::string, std::string>* section = nullptr;
  for_each_line(text, [&](int n, std::string_view line) {
    const auto body = trim(line);
    if (body.empty() || body[0] == '#' || body[0] == ';') return;
    auto err = [&](std::string_view part, const std::string& m) {
      errors.push_back(at(file, n, col_of(line, part)) + m);
    };
    if (body[0] == '[') {
      if (body.back() != ']') return err(body, "a section header must end with ']'");
      const std::string name(trim(body.substr(1, body.size() - 2)));
      if (name == "ByOpType")
        section = &out.by_op_type;
      else if (name == "ByNodeName")
        section = &out.by_node_name;
      else {
        section = nullptr;
        err(body, "unknown section [" + name + "]; expected [ByOpType] or [ByNodeName]" +
                      did_you_mean_suffix(closest_names(name, {"ByOpType", "ByNodeName"})));
      }
      return;
    }
    const auto eq = body.find('=');
    if (eq == std::string_view::npos) return err(body, "expected name=mode");
    const std::string key(trim(body.substr(0, eq)));
    const auto val = trim(body.substr(eq + 1));
    if (key.empty()) return err(body, "the name before '=' is empty");
    if (!section) return err(body, "entry outside a [ByOpType] or [ByNodeName] section");
    if (std::find(kModes.begin(), kModes.end(), val) == kModes.end())
      return err(val.empty() ? body : val, "unknown mode '" + std::string(val) +
                                               "'; expected high_precision, high_performance or "
                                               "support_out_of_bound_index" +
                                               did_you_mean_suffix(closest_names(val, kModes)));
    if (section->count(key)) return err(body, "'" + key + "' is given twice in this section");
    (*section)[key] = std::string(val);
  });
  if (!errors.empty()) return collect(errors);
  return out;
}

// ---- op_debug_config cfg ---------------------------------------------------------------------
Result<OpDebugConfig> parse_op_debug_config(std::string_view text, const std::string& file) {
  static const std::vector<std::string> kFlags = {"oom",     "dump_bin", "dump_cce",  "dump_loc",
                                                  "ccec_O0", "ccec_g",   "check_flag"};
  OpDebugConfig out;
  std::vector<std::string> errors;
  bool found = false;
  for_each_line(text, [&](int n, std::string_view line) {
    const auto body = trim(line);
    if (body.empty() || body[0] == '#') return;
    auto err = [&](std::string_view part, const std::string& m) {
      errors.push_back(at(file, n, col_of(line, part)) + m);
    };
    const auto eq = body.find('=');
    if (eq == std::string_view::npos) return err(body, "expected 'op_debug_config = option,option,...'");
    const auto key = trim(body.substr(0, eq));
    if (key != "op_debug_config")
      return err(key, "unknown key '" + std::string(key) + "'; expected op_debug_config" +
                          did_you_mean_suffix(closest_names(key, {"op_debug_config"})));
    found = true;
    const auto list = body.substr(eq + 1);
    size_t i = 0;
    while (i <= list.size()) {
      size_t j = list.find(',', i);
      if (j == std::string_view::npos) j = list.size();
      const auto item = trim(list.substr(i, j - i));  // "ccec_g " in the spec has a trailing space (DISC-20)
      if (item.empty()) {
        if (!trim(list).empty()) err(list.substr(std::min(i, list.size())), "empty option between commas");
      } else if (std::find(kFlags.begin(), kFlags.end(), item) == kFlags.end()) {
        err(item, "unknown op_debug_config option '" + std::string(item) +
                      "'; expected oom, dump_bin, dump_cce, dump_loc, ccec_O0, ccec_g or check_flag" +
                      did_you_mean_suffix(closest_names(item, kFlags)));
      } else {
        out.flags.emplace(item);
      }
      i = j + 1;
    }
  });
  if (!found && errors.empty()) errors.push_back(at(file, 1, 1) + "no 'op_debug_config = ...' line");
  if (!errors.empty()) return collect(errors);
  return out;
}

// ---- aoe_config_file -------------------------------------------------------------------------
Result<AoeTuningConfig> parse_aoe_config(std::string_view original, const std::string& file) {
  std::string text(original);
  AoeTuningConfig out;
  Json j;
  // The spec's sample misses a ',' at the end of a line (DISC-16): when the parser stops at a
  // string that starts a new line where ',' or '}' was expected, insert the ',' and retry.
  for (int attempt = 0;; ++attempt) {
    try {
      j = Json::parse(text, nullptr, true, /*ignore_comments=*/true);
      break;
    } catch (const Json::parse_error& e) {
      const std::string what = e.what();
      const size_t last = e.byte == 0 ? 0 : e.byte - 1;  // index of the offending token's last character
      bool repaired = false;
      if (attempt < 16 && what.find("unexpected string literal") != std::string::npos &&
          what.find("expected '}'") != std::string::npos && last < text.size() && last > 0) {
        // Find the opening quote of the string token that ends at `last`.
        size_t q = last;
        while (q > 0 && text[q] != '"') --q;  // closing quote
        size_t open = q;
        while (open > 0) {
          --open;
          if (text[open] == '"' && (open == 0 || text[open - 1] != '\\')) break;
        }
        size_t prev = open;
        bool newline = false;
        while (prev > 0 && std::isspace(static_cast<unsigned char>(text[prev - 1]))) newline |= text[--prev] == '\n';
        if (newline && prev > 0) {
          const auto [l, c] = line_column(text, prev + 1);
          out.repairs.push_back(at(file, l, c) + "missing ',' inserted (the value ends the line)");
          text.insert(prev, ",");
          repaired = true;
        }
      }
      if (!repaired) {
        const auto [l, c] = line_column(text, e.byte);
        return invalid_argument(at(file, l, c) + "invalid JSON: " + json_error_reason(what));
      }
    } catch (const Json::exception& e) {
      return invalid_argument(at(file, 1, 1) + "invalid JSON: " + e.what());
    }
  }
  if (!j.is_object()) return invalid_argument(at(file, 1, 1) + "must be a JSON object");
  std::vector<std::string> errors;
  static const std::vector<std::string> kKeys = {"tune_ops_name", "tune_ops_type", "tune_optimization_level",
                                                 "feature"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    const int line = line_of_key(text, it.key());
    auto err = [&](const std::string& m) { errors.push_back(at(file, line, 1) + it.key() + ": " + m); };
    if (it.key() == "tune_ops_name" || it.key() == "tune_ops_type" || it.key() == "feature") {
      auto& dst = it.key() == "tune_ops_name"   ? out.tune_ops_name
                  : it.key() == "tune_ops_type" ? out.tune_ops_type
                                                : out.feature;
      if (!read_name_list(it.value(), dst)) err("must be an array of names (or one comma-separated string)");
    } else if (it.key() == "tune_optimization_level") {
      if (!it->is_string() || (*it != "O1" && *it != "O2"))
        err("must be \"O1\" or \"O2\", got " + it->dump());
      else
        out.tune_optimization_level = it->get<std::string>();
    } else {
      errors.push_back(at(file, line, 1) + "unknown key '" + it.key() + "'" +
                       did_you_mean_suffix(closest_names(it.key(), kKeys)));
    }
  }
  for (const auto& f : out.feature)
    if (f != "deeper_opat" && f != "nonhomo_split")
      errors.push_back(at(file, line_of_key(text, "feature"), 1) + "feature: unknown value '" + f +
                       "'; expected deeper_opat or nonhomo_split" +
                       did_you_mean_suffix(closest_names(f, {"deeper_opat", "nonhomo_split"})));
  if (!errors.empty()) return collect(errors);
  return out;
}

// ---- op_cache.ini ----------------------------------------------------------------------------
OpCacheIni parse_op_cache_ini(std::string_view text, const std::string& file) {
  OpCacheIni out;
  bool section_seen = false, in_section = false;
  for_each_line(text, [&](int n, std::string_view line) {
    const auto body = trim(line);
    if (body.empty() || body[0] == '#' || body[0] == ';') return;
    auto err = [&](std::string_view part, const std::string& m) {
      out.problems.push_back(at(file, n, col_of(line, part)) + m);
    };
    if (body[0] == '[') {
      in_section = body == "[op_compiler_cache]";
      section_seen |= in_section;
      if (!in_section) err(body, "unknown section " + std::string(body) + "; expected [op_compiler_cache]");
      return;
    }
    const auto eq = body.find('=');
    if (eq == std::string_view::npos) return err(body, "expected key=value");
    if (!in_section) return err(body, "entry outside the [op_compiler_cache] section");
    std::string key(trim(body.substr(0, eq)));
    const auto val = trim(body.substr(eq + 1));
    if (key.rfind("ascend_", 0) == 0) key = key.substr(7);
    int64_t v = 0;
    bool number = !val.empty();
    for (char c : val) number = number && std::isdigit(static_cast<unsigned char>(c));
    if (number && val.size() > 18) number = false;
    if (number) v = std::stoll(std::string(val));
    if (key == "max_op_cache_size") {
      if (!number || v < 1 || v > kMaxOpCacheSizeMb)
        return err(val.empty() ? body : val,
                   "ascend_max_op_cache_size must be a number of MB in [1, " + std::to_string(kMaxOpCacheSizeMb) + "]");
      out.max_op_cache_size_mb = v;
    } else if (key == "remain_cache_size_ratio") {
      if (!number || v < 1 || v > 100)
        return err(val.empty() ? body : val, "ascend_remain_cache_size_ratio must be an integer in [1,100]");
      out.remain_cache_size_ratio = static_cast<int>(v);
    } else {
      err(body, "unknown key '" + key + "'" +
                    did_you_mean_suffix(closest_names(key, {"max_op_cache_size", "remain_cache_size_ratio"})));
    }
  });
  if (!section_seen) out.problems.push_back(at(file, 1, 1) + "the [op_compiler_cache] section is missing");
  return out;
}

}  // namespace openge::options
