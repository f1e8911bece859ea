#include "precision/mix_lists.h"

#include "ops/op_registry.h"

namespace openge::precision {
namespace {

// One edit of modify_mixlist: which list it names, whether it adds or removes, and the target
// of a removal (page 002: a removed op becomes gray).
struct EditRule {
  const std::vector<std::string> options::MixListEdits::*names;
  MixList list;
  bool add;
  const char* label;
};

// Removals first, then additions, so that "to-add" has the last word on an op named twice.
constexpr EditRule kEditRules[] = {
    {&options::MixListEdits::black_remove, MixList::kBlack, false, "black-list.to-remove"},
    {&options::MixListEdits::white_remove, MixList::kWhite, false, "white-list.to-remove"},
    {&options::MixListEdits::black_add, MixList::kBlack, true, "black-list.to-add"},
    {&options::MixListEdits::white_add, MixList::kWhite, true, "white-list.to-add"},
};

}  // namespace

MixLists MixLists::build(const SocProfile& profile, const options::MixListEdits* edits,
                         std::vector<std::string>* warnings) {
  MixLists lists;
  for (const auto& [type, info] : profile.ops)
    lists.by_ascend_type_[type] = {info.mix_list, profile.soc_version + " ops-info"};
  if (!edits) return lists;
  for (const EditRule& rule : kEditRules) {
    for (const std::string& name : edits->*rule.names) {
      std::string type = name;
      if (!profile.find_ascend(type)) {
        if (find_op_schema(name) && profile.find_onnx(name)) {
          type = ascend_op_type(name);
        } else {
          if (warnings)
            warnings->push_back("modify_mixlist: '" + name + "' (" + rule.label + ") is not an operator of the " +
                                profile.soc_version + " profile; ignored");
          continue;
        }
      }
      MixListEntry& entry = lists.by_ascend_type_[type];
      if (rule.add) {
        entry = {rule.list, std::string("modify_mixlist ") + rule.label};
      } else if (entry.list == rule.list) {
        entry = {MixList::kGray, std::string("modify_mixlist ") + rule.label};
      }
    }
  }
  return lists;
}

MixListEntry MixLists::lookup(std::string_view onnx_op_type) const {
  auto it = by_ascend_type_.find(ascend_op_type(onnx_op_type));
  if (it == by_ascend_type_.end()) return {MixList::kGray, "not in the ops-info table"};
  return it->second;
}

}  // namespace openge::precision
