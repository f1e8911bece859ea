// The mixed-precision lists in force: the SoC profile's precision_reduce flags (white / black /
// gray) with the user's modify_mixlist edits applied over them (OPT-modify_mixlist-4..12).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "options/config_files.h"
#include "precision/soc_profile.h"

namespace openge::precision {

struct MixListEntry {
  MixList list = MixList::kGray;
  std::string decided_by;  // "Ascend910B ops-info" or "modify_mixlist white-list.to-add"
};

class MixLists {
 public:
  // `edits` may be null (no modify_mixlist). Names in the edits are Ascend IR op types; ONNX op
  // types are accepted too (AMB-14). Names that neither the profile nor ONNX know are reported
  // in `warnings` and ignored.
  static MixLists build(const SocProfile& profile, const options::MixListEdits* edits,
                        std::vector<std::string>* warnings);
  // The entry of an ONNX op type (through its Ascend IR name).
  MixListEntry lookup(std::string_view onnx_op_type) const;

 private:
  std::map<std::string, MixListEntry, std::less<>> by_ascend_type_;
};

}  // namespace openge::precision
