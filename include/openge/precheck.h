// The model precheck (ATC --mode=3) and its report, check_result.json (ENV-33..35,
// docs/FORMATS.md, "Precheck: check_result.json"): every node in network order, supported or not and why, so a user
// sees every unsupported op at once instead of the loader's first error.
#pragma once
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge::options {
class OptionSet;  // the validated configuration (openge/options.h)
}

namespace openge::precheck {

// CANN's cause codes (pre_checker.h): 1..99 are errors; 0 (OK) carries an information message.
enum class CauseCode { kOk = 0, kTypeUnsupported = 1, kParamInvalid = 2, kNameRepeated = 9 };

struct Cause {
  CauseCode code;
  std::string message;
};

struct OpCheck {
  std::string name, type;
  std::vector<Cause> causes;  // none with an error code (1..99): supported
  bool ok() const;
};

struct CheckReport {
  std::string model_name;
  std::vector<OpCheck> ops;
  std::vector<Cause> model_causes;  // failures no node accounts for (corrupt file, opset, graph outputs)
  bool ok() const;
  size_t failed_ops() const;
};

// Checks the model file (its bytes when `data` is non-null) node by node, then loads and compiles
// it as a run would (open input dimensions taken as 1); a load or compile error that names a node
// is that node's cause (PARAM_INVALID), any other is the model's. Weights stored as ONNX external
// data are FileConstant ops whose OK cause names their file, offset and length; with `options`
// saying external_weight=True every other weight (initializer, Constant node) is one too, its
// cause saying which bytes the session writes to its own file.
CheckReport check_model(const std::string& path, const void* data = nullptr, size_t size = 0,
                        const options::OptionSet* options = nullptr);

// The report as CANN writes it: {"name","result","total","pass","fail","op":[{"name","type",
// "result","cause":[{"code","message"}]}]} (an op's causes listed when it has any, code 0 ones
// included); a model-level failure adds "cause" at the top.
std::string to_json(const CheckReport& report);

// Writes the report atomically to check_report > ASCEND_WORK_PATH/check_result.json >
// ./check_result.json (`check_report` is ATC's parameter, "" when not given) and returns its path.
Result<std::string> write_check_report(const CheckReport& report, const options::OptionSet& options,
                                       const std::string& check_report = "");

}  // namespace openge::precheck
