// AscendCL's graph-build and operator-compile entry points as OpenGE takes them: options as
// CANN's key/value maps. GraphBuilder::initialize is aclgrphBuildInitialize (options for every
// later build), build_model is aclgrphBuildModel with aclgrphSaveModel (one model to a .oge), and
// compile_with_compile_opts is an application compile under aclSetCompileopt's settings
// (ACL_DEBUG_DIR, ACL_OP_DEBUG_LEVEL, ...). Keys may be CANN's (DEBUG_DIR, ACL_DEBUG_DIR, GE keys
// such as ge.exec.precision_mode) or OpenGE's option names. kernel_meta, the debug files of
// online-compiled kernels, goes to DEBUG_DIR / ACL_DEBUG_DIR > ASCEND_WORK_PATH > the working folder
// (ENV-20..22); build_model's DEBUG_DIR outranks initialize's (AMB-8).
#pragma once
#include <map>
#include <string>

#include "openge/compile.h"
#include "openge/options.h"

namespace openge {

using BuildOptions = std::map<std::string, std::string>;

// Where the builds run: the environment (ASCEND_WORK_PATH ...) and the working folder ("" = current).
struct BuildPlace {
  options::EnvMap env;
  std::string cwd;
};

class GraphBuilder {
 public:
  // aclgrphBuildInitialize: the options are checked now; a wrong one is one error naming it.
  static Result<GraphBuilder> initialize(const BuildOptions& global_options, BuildPlace place);
  // aclgrphBuildModel + aclgrphSaveModel: `model_path` (ONNX) compiled into `output_path` (.oge)
  // with the global options and `build_options` (which win).
  Result<CompileSummary> build_model(const std::string& model_path, const std::string& output_path,
                                     const BuildOptions& build_options = {}) const;
  // Where kernel_meta of a build with `build_options` goes, and the rule that chose it.
  Result<std::pair<std::string, std::string>> kernel_meta_folder(const BuildOptions& build_options = {}) const;

 private:
  GraphBuilder(BuildOptions global, BuildPlace place) : global_(std::move(global)), place_(std::move(place)) {}
  BuildOptions global_;
  BuildPlace place_;
};

// An application compile under aclSetCompileopt's options (ACL_DEBUG_DIR, ACL_OP_DEBUG_LEVEL,
// ACL_PRECISION_MODE, ACL_OP_COMPILER_CACHE_MODE, ACL_OP_COMPILER_CACHE_DIR, ACL_OP_JIT_COMPILE
// or option names): `model_path` into `output_path`.
Result<CompileSummary> compile_with_compile_opts(const std::string& model_path, const std::string& output_path,
                                                 const BuildOptions& compile_opts, BuildPlace place);

}  // namespace openge
