#include "cli_args.h"

#include "openge/did_you_mean.h"

namespace openge::cli {
namespace {

// " (did you mean --output?)" for a mistyped flag, or "".
std::string flag_suggestion(const std::string& name, const std::vector<FlagSpec>& specs) {
  std::vector<std::string> names = {"help"};
  for (const auto& s : specs) names.push_back(s.name);
  const auto close = options::closest_names(name, names);
  if (close.empty()) return "";
  std::string out = " (did you mean --" + close[0];
  for (size_t i = 1; i < close.size(); ++i) out += (i + 1 == close.size() ? " or --" : ", --") + close[i];
  return out + "?)";
}

}  // namespace

Result<Args> Args::parse(int argc, char** argv, int first, const std::vector<FlagSpec>& specs) {
  Args args;
  std::vector<std::string> problems;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h") arg = "--help";
    if (arg.rfind("--", 0) != 0) {
      problems.push_back("unexpected argument '" + arg + "'");
      continue;
    }
    std::string name = arg.substr(2), value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    const FlagSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == name) spec = &s;
    if (name == "help") {
      args.values_["help"].push_back("");
      continue;
    }
    if (!spec) {
      problems.push_back("unknown flag --" + name + flag_suggestion(name, specs));
      // Its value (the next word, when not a flag) belongs to it, not a second mistake.
      if (!inline_value && i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) ++i;
      continue;
    }
    if (!spec->value_name.empty() && !inline_value) {
      if (i + 1 >= argc) {
        problems.push_back("--" + name + " needs a value (" + spec->value_name + ")");
        continue;
      }
      value = argv[++i];
    }
    auto& slot = args.values_[name];
    if (!slot.empty() && !spec->repeatable) {
      problems.push_back("--" + name + " is given more than once");
      continue;
    }
    slot.push_back(value);
  }
  if (!problems.empty()) {
    std::string msg;
    for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
    return invalid_argument(msg + " (see --help)");
  }
  return args;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() || it->second.empty() ? fallback : it->second.back();
}

const std::vector<std::string>& Args::all(const std::string& name) const {
  static const std::vector<std::string> kNone;
  auto it = values_.find(name);
  return it == values_.end() ? kNone : it->second;
}

Result<int> Args::get_int(const std::string& name, int fallback, int min, int max) const {
  if (!has(name)) return fallback;
  const std::string v = get(name);
  try {
    size_t used = 0;
    const long n = std::stol(v, &used);
    if (used == v.size() && n >= min && n <= max) return static_cast<int>(n);
  } catch (const std::exception&) {
  }
  return invalid_argument("--" + name + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                          "], got '" + v + "'");
}

std::string usage(const std::string& synopsis, const std::string& description, const std::vector<FlagSpec>& specs) {
  std::string out = "usage: " + synopsis + "\n\n" + description + "\n\nflags:\n";
  for (const auto& s : specs) {
    std::string left = "  --" + s.name + (s.value_name.empty() ? "" : " " + s.value_name);
    if (left.size() < 30)
      left.append(30 - left.size(), ' ');
    else
      left += "  ";
    out += left + s.help + (s.repeatable ? " (repeatable)" : "") + "\n";
  }
  out += "  --help                      this text\n";
  return out;
}

SplitArgs split_positional(int argc, char** argv) {
  SplitArgs out;
  out.flags = {argv[0], argv[1]};
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) == 0) {
      out.flags.push_back(argv[i]);
      if (a.find('=') == std::string::npos && a != "--help" && i + 1 < argc) out.flags.push_back(argv[++i]);
    } else {
      out.positional.push_back(argv[i]);
    }
  }
  return out;
}

}  // namespace openge::cli
