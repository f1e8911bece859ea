#include "precision/soc_profile.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "options/config_files.h"

namespace openge::precision {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Relative to the opp root, as in a CANN installation.
constexpr const char* kConfigDir = "built-in/op_impl/ai_core/tbe/config";
constexpr const char* kImplModeFile = "built-in/op_impl/ai_core/tbe/impl_mode/all_ops_impl_mode.ini";
// OpenGE's key for the cube/vector class (CANN's files have none that means exactly this;
// opp/README.md documents it). Absent = vector.
constexpr const char* kOpClassKey = "opengeOpClass";

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (true) {
    size_t j = s.find(',', i);
    out.push_back(trim(s.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i)));
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
  return out;
}

int line_at(std::string_view text, size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + std::min(offset, text.size()), '\n'));
}

// Offset of `"key"` used as a key (followed by ':') at or after `from`; npos when absent.
size_t find_key(std::string_view text, std::string_view key, size_t from) {
  std::string quoted(1, '"');  // built by appends: GCC 12 warns falsely on "\"" + key
  quoted.append(key).push_back('"');
  for (size_t p = text.find(quoted, from); p != std::string_view::npos; p = text.find(quoted, p + 1)) {
    size_t q = p + quoted.size();
    while (q < text.size() && std::isspace(static_cast<unsigned char>(text[q]))) ++q;
    if (q < text.size() && text[q] == ':') return p;
  }
  return std::string_view::npos;
}

// Line of the first of `needles` found in order after the op's key: finding "Conv2D", then
// "input0", then "dtype", then the bad word names the line a reader must fix. nlohmann keeps no
// positions for values, so the text is searched; it falls back to the last found.
int locate(std::string_view text, const std::string& op, std::initializer_list<std::string_view> needles) {
  size_t pos = find_key(text, op, 0);
  if (pos == std::string_view::npos) return 1;
  bool first = true;
  for (std::string_view n : needles) {
    size_t next = first ? find_key(text, n, pos) : text.find(n, pos);
    first = false;
    if (next == std::string_view::npos) break;
    pos = next;
  }
  return line_at(text, pos);
}

Status error_at(const std::string& file, int line, const std::string& what) {
  return invalid_argument(file + ":" + std::to_string(line) + ": " + what);
}

// CANN's dtype vocabulary. Names OpenGE has no type for (quantised, complex, 8-bit floats …)
// are accepted and kept as kUndefined so that the columns stay aligned; unknown names are errors.
bool parse_dtype(std::string_view name, DType& out) {
  static const std::set<std::string, std::less<>> kCannOnly = {
      "qint8",       "qint16",      "qint32",        "quint8",         "quint16",       "complex32",
      "complex64",   "complex128",  "resource",      "variant",        "int4",          "uint1",
      "int2",        "uint2",       "hifloat8",      "float8_e5m2",    "float8_e4m3fn", "float8_e8m0",
      "float4_e2m1", "float4_e1m2", "dual_sub_int8", "dual_sub_uint8", "string_ref"};
  if (name == "float" || name == "double") {  // CANN's spellings of float32 / float64
    out = name == "float" ? DType::kFloat32 : DType::kFloat64;
    return true;
  }
  const DType t = dtype_from_name(std::string(name));
  if (t != DType::kUndefined) {
    out = t;
    return true;
  }
  if (kCannOnly.count(name)) {
    out = DType::kUndefined;
    return true;
  }
  return false;
}

const std::set<std::string, std::less<>>& known_impl_modes() {
  // op_precision_mode's values (OPT-op_precision_mode, page 002).
  static const std::set<std::string, std::less<>> k = {
      "high_precision",    "high_performance",          "support_out_of_bound_index",  "keep_fp16",
      "super_performance", "enable_float_32_execution", "enable_hi_float_32_execution"};
  return k;
}

// "inputN" / "outputN" with N a number.
bool io_key(const std::string& key, const char* prefix, size_t& index) {
  const size_t n = std::char_traits<char>::length(prefix);
  if (key.size() <= n || key.compare(0, n, prefix) != 0) return false;
  size_t v = 0;
  for (size_t i = n; i < key.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(key[i])) || v > 1000) return false;
    v = v * 10 + static_cast<size_t>(key[i] - '0');
  }
  index = v;
  return true;
}

std::string list_names(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

bool has_float(const std::vector<DType>& v) {
  return std::any_of(v.begin(), v.end(), [](DType t) { return dtype_is_float(t); });
}

// One op's entry. Keys OpenGE does not use (format, paramType, attr_*, dynamicShapeSupport …)
// are CANN's and pass unread.
Status parse_op(const std::string& op, const Json& entry, std::string_view text, const std::string& file,
                SocOpInfo& info) {
  info.ascend_type = op;
  info.file = file;
  info.line = locate(text, op, {});
  if (!entry.is_object()) return error_at(file, info.line, "\"" + op + "\" must be an object of CANN ops-info fields");
  std::map<size_t, std::vector<DType>> inputs, outputs;
  for (const auto& [key, value] : entry.items()) {
    size_t index = 0;
    const bool is_input = io_key(key, "input", index);
    if (!is_input && !io_key(key, "output", index)) continue;
    if (!value.is_object()) return error_at(file, locate(text, op, {key}), op + "." + key + " must be an object");
    auto dt = value.find("dtype");
    if (dt == value.end()) continue;
    if (!dt->is_string())
      return error_at(file, locate(text, op, {key, "\"dtype\""}),
                      op + "." + key + ".dtype must be a string such as \"float16,float\"");
    std::vector<DType> list;
    for (std::string_view name : split_commas(dt->get_ref<const std::string&>())) {
      DType t{};
      if (name.empty() || !parse_dtype(name, t))
        return error_at(file, locate(text, op, {key, "\"dtype\"", name.empty() ? "\"dtype\"" : name}),
                        op + "." + key + ".dtype: unknown dtype \"" + std::string(name) +
                            "\" (CANN names: float16, float, float32, bfloat16, double, int8 … uint64, bool)");
      list.push_back(t);
    }
    (is_input ? inputs : outputs)[index] = std::move(list);
  }
  // CANN pairs the lists by position (column i = one supported combination): equal lengths.
  size_t columns = 0;
  std::string first_key;
  for (auto* group : {&inputs, &outputs})
    for (const auto& [index, list] : *group) {
      const std::string key = (group == &inputs ? "input" : "output") + std::to_string(index);
      if (first_key.empty()) {
        columns = list.size();
        first_key = key;
      } else if (list.size() != columns) {
        return error_at(file, locate(text, op, {key, "\"dtype\""}),
                        op + "." + key + ".dtype lists " + std::to_string(list.size()) + " dtypes but " + first_key +
                            ".dtype lists " + std::to_string(columns) + "; CANN pairs them by position");
      }
    }
  for (const auto& [index, list] : inputs) {
    if (info.input_dtype_lists.size() <= index) info.input_dtype_lists.resize(index + 1);
    info.input_dtype_lists[index] = list;
  }
  for (const auto& [index, list] : outputs) {
    if (info.output_dtype_lists.size() <= index) info.output_dtype_lists.resize(index + 1);
    info.output_dtype_lists[index] = list;
  }
  if (outputs.count(0)) info.output_dtypes = outputs[0];
  if (inputs.count(0) && (has_float(inputs[0]) || !has_float(info.output_dtypes)))
    info.dtypes = inputs[0];
  else
    info.dtypes = info.output_dtypes;

  if (auto pr = entry.find("precision_reduce"); pr != entry.end()) {
    auto flag = pr->is_object() ? pr->find("flag") : pr->end();
    const int line = locate(text, op, {"precision_reduce", "\"flag\""});
    if (!pr->is_object() || flag == pr->end() || !flag->is_string())
      return error_at(file, line, op + ".precision_reduce must be {\"flag\": \"true\"|\"false\"}");
    const std::string& v = flag->get_ref<const std::string&>();
    if (v == "true")
      info.mix_list = MixList::kWhite;
    else if (v == "false")
      info.mix_list = MixList::kBlack;
    else
      return error_at(
          file, line,
          op + ".precision_reduce.flag is \"" + v +
              "\"; expected \"true\" (white list) or \"false\" (black list); leave it out for the gray list");
  }
  if (auto oc = entry.find(kOpClassKey); oc != entry.end()) {
    auto value = oc->is_object() ? oc->find("value") : oc->end();
    const std::string v = value != oc->end() && value->is_string() ? value->get<std::string>() : "";
    if (v == "cube")
      info.op_class = OpClass::kCube;
    else if (v == "vector")
      info.op_class = OpClass::kVector;
    else
      return error_at(file, locate(text, op, {kOpClassKey, "\"value\""}),
                      op + "." + kOpClassKey + " must be {\"value\": \"cube\"|\"vector\"}");
  }
  return Status::Ok();
}

Status parse_ops_info(const std::string& file, std::map<std::string, SocOpInfo, std::less<>>& ops) {
  auto text = options::read_text_file(file);
  if (!text.ok()) return text.status();
  Json doc;
  try {
    doc = Json::parse(text->begin(), text->end(), nullptr, true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    const auto [line, col] = options::line_column(*text, e.byte);
    return error_at(file, line,
                    "invalid JSON at column " + std::to_string(col) + ": " + options::json_error_reason(e.what()));
  } catch (const Json::exception& e) {
    return error_at(file, 1, std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_object()) return error_at(file, 1, "an ops-info file is one JSON object keyed by op type");
  for (const auto& [op, entry] : doc.items()) {
    SocOpInfo info;
    if (Status s = parse_op(op, entry, *text, file, info); !s.ok()) return s;
    if (auto it = ops.find(op); it != ops.end())
      return error_at(file, info.line,
                      op + " is already defined at " + it->second.file + ":" + std::to_string(it->second.line));
    ops.emplace(op, std::move(info));
  }
  return Status::Ok();
}

// all_ops_impl_mode.ini: "OpType=mode1,mode2" per line, as CANN ships it; '#'/';' comments.
Status parse_impl_modes(const std::string& file, std::map<std::string, std::vector<std::string>, std::less<>>& out) {
  auto text = options::read_text_file(file);
  if (!text.ok()) return text.status();
  std::map<std::string, int, std::less<>> first_line;
  std::string_view rest = *text;
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);  // a UTF-8 BOM from a Windows editor
  int n = 0;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = trim(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    ++n;
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos)
      return error_at(file, n, "expected OpType=mode1,mode2, got \"" + std::string(line) + "\"");
    const std::string op(trim(line.substr(0, eq)));
    const bool name_ok = !op.empty() && std::all_of(op.begin(), op.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    if (!name_ok) return error_at(file, n, "\"" + op + "\" is not an op type (letters, digits, _)");
    if (auto it = first_line.find(op); it != first_line.end())
      return error_at(file, n, op + " is already listed on line " + std::to_string(it->second));
    first_line.emplace(op, n);
    std::vector<std::string> modes;
    for (std::string_view m : split_commas(line.substr(eq + 1))) {
      if (!known_impl_modes().count(m))
        return error_at(file, n,
                        op + ": unknown impl mode \"" + std::string(m) +
                            "\" (high_precision, high_performance, support_out_of_bound_index, keep_fp16, "
                            "super_performance, enable_float_32_execution, enable_hi_float_32_execution)");
      modes.emplace_back(m);
    }
    out.emplace(op, std::move(modes));
  }
  return Status::Ok();
}

bool safe_soc_name(const std::string& soc) {
  return !soc.empty() && std::all_of(soc.begin(), soc.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// aic-<soc>-ops-info.json first, then aic-<soc>-ops-info-<OpType>.json in name order.
std::vector<std::string> ops_info_files(const fs::path& dir, const std::string& soc_lower) {
  std::vector<std::string> split;
  const std::string main_name = "aic-" + soc_lower + "-ops-info.json";
  const std::string prefix = "aic-" + soc_lower + "-ops-info-";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > prefix.size() + 5 && name.compare(0, prefix.size(), prefix) == 0 &&
        name.compare(name.size() - 5, 5, ".json") == 0 && it->is_regular_file(ec))
      split.push_back(it->path().string());
  }
  std::sort(split.begin(), split.end());
  std::vector<std::string> files;
  if (fs::is_regular_file(dir / main_name, ec)) files.push_back((dir / main_name).string());
  files.insert(files.end(), split.begin(), split.end());
  return files;
}

}  // namespace

const char* mix_list_name(MixList list) {
  switch (list) {
    case MixList::kWhite:
      return "white";
    case MixList::kBlack:
      return "black";
    case MixList::kGray:
      return "gray";
  }
  return "gray";
}

bool SocOpInfo::supports(DType t) const { return std::find(dtypes.begin(), dtypes.end(), t) != dtypes.end(); }

bool SocOpInfo::supports_combination(DType in, DType out) const {
  if (output_dtypes.empty()) return in == out && supports(in);
  for (size_t i = 0; i < dtypes.size() && i < output_dtypes.size(); ++i)
    if (dtypes[i] == in && output_dtypes[i] == out) return true;
  return false;
}

bool SocOpInfo::supports_impl_mode(std::string_view mode) const {
  return std::find(impl_modes.begin(), impl_modes.end(), mode) != impl_modes.end();
}

const SocOpInfo* SocProfile::find_ascend(std::string_view ascend_type) const {
  auto it = ops.find(ascend_type);
  return it == ops.end() ? nullptr : &it->second;
}

const SocOpInfo* SocProfile::find_onnx(std::string_view onnx_op_type) const {
  return find_ascend(ascend_op_type(onnx_op_type));
}

std::string default_opp_root(const std::string& ascend_opp_path_env) {
  if (!ascend_opp_path_env.empty()) return ascend_opp_path_env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "openge" / "opp";
    if (fs::is_directory(installed / kConfigDir, ec)) return installed.string();
  }
  // The Python package carries opp/ beside its native module (a wheel installs anywhere, and
  // the interpreter's own folder says nothing about where).
  Dl_info self{};
  if (::dladdr(reinterpret_cast<const void*>(&default_opp_root), &self) != 0 && self.dli_fname != nullptr) {
    const fs::path beside = fs::path(self.dli_fname).parent_path() / "opp";
    if (fs::is_directory(beside / kConfigDir, ec)) return beside.string();
  }
#ifdef OPENGE_SOURCE_OPP_DIR
  return OPENGE_SOURCE_OPP_DIR;
#else
  return "opp";
#endif
}

std::vector<std::string> available_soc_profiles(const std::string& opp_root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(opp_root) / kConfigDir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    const std::string soc = it->path().filename().string();
    if (!ops_info_files(it->path(), soc).empty()) out.push_back(soc);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<SocProfile> load_soc_profile(const std::string& opp_root, const std::string& soc_version) {
  if (!safe_soc_name(soc_version))
    return invalid_argument("soc_version \"" + soc_version +
                            "\" cannot name a profile folder (letters, digits, _ and -)");
  // CANN's folders and file names use the lower-case SoC name (config/ascend910b/aic-ascend910b-…).
  const std::string soc = lower(soc_version);
  const fs::path dir = fs::path(opp_root) / kConfigDir / soc;
  const auto files = ops_info_files(dir, soc);
  if (files.empty())
    return invalid_argument("no SoC profile for soc_version " + soc_version + ": " +
                            (dir / ("aic-" + soc + "-ops-info.json")).string() + " does not exist; profiles under " +
                            (fs::path(opp_root) / kConfigDir).string() + ": " +
                            list_names(available_soc_profiles(opp_root)) +
                            " (the opp root is $ASCEND_OPP_PATH, else the installed or source opp/)");
  SocProfile profile;
  profile.soc_version = soc_version;
  profile.ops_info_file = files.front();
  for (const auto& f : files)
    if (Status s = parse_ops_info(f, profile.ops); !s.ok()) return s;

  const fs::path ini = fs::path(opp_root) / kImplModeFile;
  std::error_code ec;
  if (fs::exists(ini, ec)) {
    std::map<std::string, std::vector<std::string>, std::less<>> modes;
    if (Status s = parse_impl_modes(ini.string(), modes); !s.ok()) return s;
    profile.impl_mode_file = ini.string();
    for (auto& [type, info] : profile.ops)
      if (auto it = modes.find(type); it != modes.end()) info.impl_modes = it->second;
  }
  return profile;
}

}  // namespace openge::precision
