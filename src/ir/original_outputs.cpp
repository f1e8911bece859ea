#include "ir/original_outputs.h"

namespace openge {
namespace {
constexpr const char* kAttribute = "_original_outputs";
}  // namespace

std::vector<OriginalOutput> original_outputs(const Node& node) {
  std::vector<OriginalOutput> out;
  const Attribute* a = node.attrs.find(kAttribute);
  const std::vector<std::string> recorded =
      a && a->kind == Attribute::Kind::kStrings ? a->strings : std::vector<std::string>{};
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    OriginalOutput o{node.name, static_cast<int>(i)};
    if (i < recorded.size()) {
      const std::string& text = recorded[i];
      const size_t colon = text.find(':');
      if (colon != std::string::npos && colon > 0 && colon < 10 && text.find_first_not_of("0123456789") == colon) {
        o.index = std::stoi(text.substr(0, colon));
        o.node = text.substr(colon + 1);
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

void inherit_original_outputs(Node& into, const Node& absorbed) {
  std::vector<OriginalOutput> mine = original_outputs(into);
  const std::vector<OriginalOutput> theirs = original_outputs(absorbed);
  bool changed = false;
  for (size_t i = 0; i < into.outputs.size(); ++i)
    for (size_t j = 0; j < absorbed.outputs.size() && j < theirs.size(); ++j)
      if (into.outputs[i] >= 0 && into.outputs[i] == absorbed.outputs[j]) {
        mine[i] = theirs[j];
        changed = true;
      }
  if (!changed && !into.attrs.has(kAttribute)) return;
  Attribute a;
  a.kind = Attribute::Kind::kStrings;
  for (const OriginalOutput& o : mine) a.strings.push_back(std::to_string(o.index) + ":" + o.node);
  into.attrs.set(kAttribute, std::move(a));
}

}  // namespace openge
