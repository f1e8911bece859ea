#include "options/value_parsers.h"

#include <charconv>
#include <set>

namespace openge::options {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (true) {
    const size_t j = s.find(sep, i);
    parts.push_back(s.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
  return parts;
}

// '<s>' (built by appending: GCC 12 warns falsely on "'" + std::string(...) chains).
std::string quoted(std::string_view s) {
  std::string r;
  r.reserve(s.size() + 2);
  r += '\'';
  r.append(s);
  r += '\'';
  return r;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::optional<uint64_t> parse_unsigned(std::string_view s) {
  if (!all_digits(s)) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<bool> parse_bool(std::string_view t) {
  if (t == "True" || t == "true" || t == "1" || t == "TRUE") return true;
  if (t == "False" || t == "false" || t == "0" || t == "FALSE") return false;
  return std::nullopt;
}

std::optional<int64_t> parse_int(std::string_view t) {
  if (t.empty()) return std::nullopt;
  std::string_view digits = t;
  if (t[0] == '+' || t[0] == '-') digits = t.substr(1);
  if (!all_digits(digits)) return std::nullopt;
  int64_t v = 0;
  const char* b = t.data() + (t[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(b, t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return v;
}

Result<std::vector<std::pair<int64_t, int64_t>>> parse_dump_step(std::string_view text) {
  const std::string example = "correct example: '0|5|10-20'";
  if (text.empty()) return invalid_argument("dump_step is empty; " + example);
  auto sets = split(text, '|');
  if (sets.size() > 100)
    return invalid_argument("at most 100 steps or ranges separated by '|', got " + std::to_string(sets.size()));
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto s : sets) {
    const auto dash = s.find('-');
    if (dash == std::string_view::npos) {
      auto v = parse_unsigned(s);
      if (!v || *v > static_cast<uint64_t>(INT64_MAX))
        return invalid_argument(quoted(s) + " is not a step number; " + example);
      out.emplace_back(static_cast<int64_t>(*v), static_cast<int64_t>(*v));
      continue;
    }
    auto a = parse_unsigned(s.substr(0, dash)), b = parse_unsigned(s.substr(dash + 1));
    if (!a || !b || *a > static_cast<uint64_t>(INT64_MAX) || *b > static_cast<uint64_t>(INT64_MAX))
      return invalid_argument(quoted(s) + " is not a step range a-b; " + example);
    if (*a >= *b)
      return invalid_argument("in range " + quoted(s) + " the first step is >= the second step; " + example);
    out.emplace_back(static_cast<int64_t>(*a), static_cast<int64_t>(*b));
  }
  return out;
}

Result<std::map<std::string, int>> parse_stream_parallel(std::string_view text) {
  static const std::set<std::string, std::less<>> kEngines = {"DNN_VM_AICPU", "AIcoreEngine"};
  const std::string example = "expected ENGINE:N,... e.g. 'DNN_VM_AICPU:10,AIcoreEngine:1'";
  if (text.empty()) return invalid_argument("empty; " + example);
  std::map<std::string, int> out;
  for (auto item : split(text, ',')) {
    item = trim(item);
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) return invalid_argument(quoted(item) + " has no ':'; " + example);
    const std::string engine(trim(item.substr(0, colon)));
    if (!kEngines.count(engine))
      return invalid_argument("unknown engine '" + engine + "'; the engines are DNN_VM_AICPU and AIcoreEngine");
    const auto n = parse_unsigned(trim(item.substr(colon + 1)));
    if (!n || *n < 1 || *n > 13)
      return invalid_argument("the parallelism of " + engine + " must be an integer in [1,13], got '" +
                              std::string(trim(item.substr(colon + 1))) + "'");
    if (out.count(engine)) return invalid_argument("engine " + engine + " is given twice");
    out[engine] = static_cast<int>(*n);
  }
  return out;
}

Result<uint64_t> parse_storage_limit_mb(std::string_view text) {
  std::string_view num = trim(text);
  if (num.size() >= 2 && (num.substr(num.size() - 2) == "MB" || num.substr(num.size() - 2) == "mb"))
    num.remove_suffix(2);
  const auto v = parse_unsigned(num);
  const std::string range = "must be <N>MB with N in [200, 4294967295]";
  if (!v) return invalid_argument(range + ", got " + quoted(text));
  if (*v < 200 || *v > 4294967295ull) return invalid_argument(range + ", got " + quoted(text));
  return *v;
}

Result<AicMetrics> parse_aic_metrics(std::string_view text) {
  static const char* kNamed[] = {"ArithmeticUtilization", "PipeUtilization", "Memory", "MemoryL0", "MemoryUB",
                                 "ResourceConflictRatio", "L2Cache"};
  for (const char* n : kNamed)
    if (text == n) return AicMetrics{n, {}};
  if (text.rfind("Custom:", 0) != 0)
    return invalid_argument(
        "must be one of ArithmeticUtilization, PipeUtilization, Memory, MemoryL0, MemoryUB, "
        "ResourceConflictRatio, L2Cache or Custom:<registers>");
  AicMetrics m{"Custom", {}};
  auto regs = split(text.substr(7), ',');
  if (regs.size() > 8) return invalid_argument("Custom takes at most 8 registers, got " + std::to_string(regs.size()));
  for (auto r : regs) {
    r = trim(r);
    std::optional<uint64_t> v;
    if (r.size() > 2 && r[0] == '0' && (r[1] == 'x' || r[1] == 'X')) {
      uint64_t x = 0;
      auto [p, ec] = std::from_chars(r.data() + 2, r.data() + r.size(), x, 16);
      if (ec == std::errc() && p == r.data() + r.size()) v = x;
    } else {
      v = parse_unsigned(r);
    }
    if (!v) return invalid_argument("Custom register " + quoted(r) + " is not a hexadecimal or decimal number");
    if (*v < 0x1 || *v > 0x6E) return invalid_argument("Custom register " + quoted(r) + " is outside [0x1, 0x6E]");
    m.registers.push_back(static_cast<int>(*v));
  }
  return m;
}

std::string check_path_charset(std::string_view path) {
  size_t i = 0;
  while (i < path.size()) {
    const unsigned char c = path[i];
    if (c == '/' || c == '_' || c == '-' || c == '.' || std::isalnum(c)) {
      ++i;
      continue;
    }
    // A UTF-8 sequence: accept the CJK ideograph blocks.
    uint32_t cp = 0;
    size_t len = 0;
    if ((c & 0xE0) == 0xC0)
      cp = c & 0x1F, len = 2;
    else if ((c & 0xF0) == 0xE0)
      cp = c & 0x0F, len = 3;
    else if ((c & 0xF8) == 0xF0)
      cp = c & 0x07, len = 4;
    bool ok = len != 0 && i + len <= path.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned char cc = path[i + k];
      ok = (cc & 0xC0) == 0x80;
      cp = (cp << 6) | (cc & 0x3F);
    }
    const bool chinese = ok && ((cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
                                (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x2FA1F));
    if (!chinese) {
      std::string shown =
          ok ? std::string(path.substr(i, len))
             : "\\x" + std::string(1, "0123456789abcdef"[c >> 4]) + std::string(1, "0123456789abcdef"[c & 15]);
      return "character '" + shown + "' at byte " + std::to_string(i + 1) +
             " is not allowed; use a-z A-Z 0-9 _ - . and Chinese characters ('/' separates folders)";
    }
    i += len;
  }
  return "";
}

}  // namespace openge::options
