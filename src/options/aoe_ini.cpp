#include "options/aoe_ini.h"

#include <cctype>
#include <charconv>
#include <filesystem>

#include "base/path_util.h"
#include "options/config_files.h"
#include "options/option_set.h"

namespace openge::options {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A whole decimal integer in [low, high].
std::optional<int> integer_in(std::string_view v, int low, int high) {
  int out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || out < low || out > high) return std::nullopt;
  return out;
}

struct IntegerKey {
  std::string_view key;
  int low, high, fallback;
  std::optional<int> AoeIni::*field;
};
constexpr IntegerKey kIntegerKeys[] = {{"TUNING_PARALLEL_NUM", 1, 64, 8, &AoeIni::tuning_parallel_num},
                                       {"RUN_LOOP", 1, 2048, 10, &AoeIni::run_loop}};

}  // namespace

std::string aoe_ini_path(const OptionSet& options) {
  if (!options.has_value("ASCEND_TOOLKIT_HOME")) return "";
  return resolve_against(options.cwd(), options.get("ASCEND_TOOLKIT_HOME")) + "/tools/aoe/conf/aoe.ini";
}

Result<AoeIni> parse_aoe_ini(std::string_view text, const std::string& file) {
  AoeIni ini;
  ini.path = file;
  std::vector<std::string> seen;
  int number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    const std::string where = file + ":" + std::to_string(number) + ": ";
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') return invalid_argument(where + "a section header must end with ']'");
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos || trim(line.substr(0, eq)).empty())
      return invalid_argument(where + "expected KEY=value, got '" + std::string(line) + "'");
    const std::string key(trim(line.substr(0, eq)));
    const std::string_view value = trim(line.substr(eq + 1));
    for (const auto& k : seen)
      if (k == key) return invalid_argument(where + key + " is given twice");
    seen.push_back(key);
    if (key == "WORK_PATH") {
      if (!value.empty()) ini.work_path = std::string(value);
      continue;
    }
    bool known = false;
    for (const IntegerKey& k : kIntegerKeys) {
      if (key != k.key) continue;
      known = true;
      auto v = integer_in(value, k.low, k.high);
      if (!v)
        return invalid_argument(where + key + " is '" + std::string(value) + "'; it must be an integer in [" +
                                std::to_string(k.low) + ", " + std::to_string(k.high) + "] (default " +
                                std::to_string(k.fallback) + ")");
      ini.*k.field = *v;
    }
    if (!known) ini.ignored_keys.push_back(where + key);
  }
  return ini;
}

Result<std::optional<AoeIni>> read_aoe_ini(const OptionSet& options) {
  const std::string path = aoe_ini_path(options);
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return std::optional<AoeIni>();
  auto text = read_text_file(path);
  if (!text.ok()) return text.status();
  auto ini = parse_aoe_ini(*text, path);
  if (!ini.ok()) return ini.status();
  return std::optional<AoeIni>(std::move(ini.value()));
}

}  // namespace openge::options
