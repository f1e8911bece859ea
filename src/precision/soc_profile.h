// SoC profiles: what each operator supports on the AI Core of one Ascend product, read from data
// files in CANN's layout (opp/built-in/op_impl/ai_core/tbe/config/<soc>/aic-<soc>-ops-info.json
// and opp/built-in/op_impl/ai_core/tbe/impl_mode/all_ops_impl_mode.ini). `soc_version` picks the
// profile; users may edit the files or add profiles, as CANN's documentation tells them to.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "openge/dtype.h"
#include "openge/status.h"

namespace openge::precision {

// Cube ops run on the matrix unit (Conv, MatMul …); everything else is a vector op.
enum class OpClass { kCube, kVector };

// precision_reduce.flag of the ops-info table: "true" = white list (an fp32 op may be lowered),
// "false" = black list (never lowered), absent = gray list (follows its upstream op).
enum class MixList { kWhite, kBlack, kGray };
const char* mix_list_name(MixList list);  // "white", "black", "gray"

struct SocOpInfo {
  std::string ascend_type;  // Ascend IR op type as the file names it ("Conv2D")
  OpClass op_class = OpClass::kVector;
  std::vector<DType> dtypes;  // float dtypes the AI Core kernel takes (input0's dtype list;
                              // output0's when input0 lists no float type: SelectV2's
                              // condition, Fill's dims)
  // output0's dtype list, parallel to `dtypes`: column i is one supported (input, output)
  // combination, as in CANN's files (a cube op lists float16 -> float32 for fp16-in/fp32-out).
  // Empty when the file gives no output list (outputs then take the input's dtype).
  std::vector<DType> output_dtypes;
  MixList mix_list = MixList::kGray;
  std::vector<std::string> impl_modes;  // from all_ops_impl_mode.ini ("high_precision", ...)
  bool supports(DType t) const;
  // True when some column takes `in` and gives `out`.
  bool supports_combination(DType in, DType out) const;
  bool supports_impl_mode(std::string_view mode) const;
  // Every input<i> / output<i> dtype list as the file gives it (columns as above).
  std::vector<std::vector<DType>> input_dtype_lists, output_dtype_lists;
  int line = 0;      // line of the op's entry in its file, for reports
  std::string file;  // the ops-info file that defined it (split files differ)
};

struct SocProfile {
  std::string soc_version;                            // "Ascend910B"
  std::string ops_info_file;                          // the file it was read from, for reports
  std::string impl_mode_file;                         // all_ops_impl_mode.ini it read ("" when absent)
  std::map<std::string, SocOpInfo, std::less<>> ops;  // by Ascend IR op type
  // Looks up an ONNX op type through the ONNX -> Ascend IR mapping (AMB-14); nullptr when
  // the profile does not list the op (it then has no AI Core kernel on this SoC).
  const SocOpInfo* find_onnx(std::string_view onnx_op_type) const;
  const SocOpInfo* find_ascend(std::string_view ascend_type) const;
};

// The Ascend IR op type that stands for an ONNX op ("Conv" -> "Conv2D", "Softmax" -> "SoftmaxV2");
// the ONNX name itself when the two agree or no mapping is known.
std::string ascend_op_type(std::string_view onnx_op_type);
// True when the mapping table has a row for the ONNX op (ascend_op_type did not fall back).
bool ascend_op_type_known(std::string_view onnx_op_type);

// The opp/ folder: $ASCEND_OPP_PATH when set (CANN's variable), else the one installed beside
// the binary (<bin>/../share/openge/opp), else the source tree's.
std::string default_opp_root(const std::string& ascend_opp_path_env);

// Reads the profile of `soc_version` under `opp_root`: config/<soc lower-case>/
// aic-<soc>-ops-info.json plus any aic-<soc>-ops-info-<OpType>.json beside it (CANN's split
// form), and impl_mode/all_ops_impl_mode.ini when present. A malformed file is one error
// "file:line: what is wrong"; a missing profile names the file looked for and the profiles
// that exist.
Result<SocProfile> load_soc_profile(const std::string& opp_root, const std::string& soc_version);

// The profiles under `opp_root` (config/ folders holding an ops-info file), sorted.
std::vector<std::string> available_soc_profiles(const std::string& opp_root);

}  // namespace openge::precision
