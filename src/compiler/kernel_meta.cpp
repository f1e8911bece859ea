#include "compiler/kernel_meta.h"

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "io/atomic_file.h"

namespace openge::compiler {

Status write_kernel_meta(const std::string& dir, const KernelMetaFiles& f, bool keep_source, bool keep_loc,
                         bool keep_compute) {
  const std::string base = dir + "/" + f.kernel_name;
  auto sha = sha256_file(f.so_path);
  if (!sha.ok()) return sha.status();
  nlohmann::ordered_json meta;
  meta["binFileName"] = f.kernel_name;
  meta["binFileSuffix"] = ".so";
  meta["blockDim"] = f.block_dim;
  meta["coreType"] = "VectorCore";
  meta["kernelName"] = f.kernel_name;
  meta["magic"] = "OPENGE_HOST_SHARED_OBJECT";  // a host .so, not an Ascend device ELF
  meta["opParaSize"] = 0;
  meta["parameters"] = std::vector<int>(f.spec->inputs.size() + 1, 0);
  meta["sha256"] = sha->sha256;
  meta["workspace"] = {{"num", 0}, {"size", nlohmann::json::array()}, {"type", nlohmann::json::array()}};
  meta["opName"] = f.spec->node_name;
  meta["compiler"] = f.compiler;
  meta["compilerVersion"] = f.compiler_version;
  meta["compileOptions"] = f.flags;
  OPENGE_RETURN_IF_ERROR(write_file_atomically(base + ".json", meta.dump(2) + "\n"));
  if (keep_source) OPENGE_RETURN_IF_ERROR(write_file_atomically(base + ".cce", f.source));
  if (keep_loc) {
    nlohmann::ordered_json loc;
    loc["kernelName"] = f.kernel_name;
    loc["source"] = f.kernel_name + ".cce";
    loc["map"] = nlohmann::json::array();
    for (const SourceLoc& l : f.locs) loc["map"].push_back({{"line", l.line}, {"node", l.node}, {"op", l.op}});
    OPENGE_RETURN_IF_ERROR(write_file_atomically(base + "_loc.json", loc.dump(2) + "\n"));
  }
  if (keep_compute) {
    nlohmann::ordered_json compute;
    compute["kernelName"] = f.kernel_name;
    compute["fusionOpName"] = f.spec->node_name;
    compute["inputs"] = nlohmann::json::array();
    for (size_t k = 0; k < f.spec->inputs.size(); ++k)
      compute["inputs"].push_back(
          {{"name", f.spec->input_names[k]}, {"div", f.spec->inputs[k].div}, {"mod", f.spec->inputs[k].mod}});
    compute["ops"] = nlohmann::json::array();
    for (const EltwiseStep& s : f.spec->program.steps)
      compute["ops"].push_back({{"type", s.op}, {"name", s.name}, {"args", s.args}});
    OPENGE_RETURN_IF_ERROR(write_file_atomically(base + "_compute.json", compute.dump(2) + "\n"));
  }
  return Status::Ok();
}

}  // namespace openge::compiler
