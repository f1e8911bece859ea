#include "dump/exception_dump.h"

#include <chrono>
#include <cstring>
#include <filesystem>

#include "dump/dump_file.h"
#include "logging/log.h"
#include "options/option_set.h"
#include "paths/artifact_paths.h"
#include "paths/data_dump_layout.h"
#include "runtime/executable.h"

namespace openge::dump {
namespace {

uint64_t now_us() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

// "float32 [4,3] ND, 48 bytes": what NPU-13 asks the plog to show of each tensor.
std::string describe(const Tensor* t) {
  if (!t || !t->defined()) return "absent";
  return std::string(dtype_name(t->dtype())) + " " + shape_to_string(t->shape()) + (t->rank() == 4 ? " NCHW" : " ND") +
         ", " + std::to_string(t->nbytes()) + " bytes";
}

// The record's tensors: copies, so that the dump does not depend on the run's arena.
std::vector<Tensor> copies(const std::vector<const Tensor*>& tensors) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor* t : tensors) out.push_back(t && t->defined() ? t->clone() : Tensor());
  return out;
}

// The workspace as one uint8 buffer (copied: the thread's next kernel reuses the scratchpad).
std::vector<Tensor> workspace_buffers(KernelWorkspace workspace) {
  if (!workspace.data || workspace.size == 0) return {};
  Tensor bytes(DType::kUInt8, {static_cast<int64_t>(workspace.size)});
  std::memcpy(bytes.raw(), workspace.data, workspace.size);
  return {std::move(bytes)};
}

}  // namespace

std::shared_ptr<const ExceptionDumper> ExceptionDumper::from_options(const options::OptionSet& options) {
  const int64_t level = options.get_int("enable_exception_dump", 0);
  if (level != 1 && level != 2) return nullptr;
  const auto resolved = paths::resolve_artifact(paths::ArtifactKind::kExceptionDump, options, paths::RunIds::current());
  const std::string folder =
      (std::filesystem::path(resolved.path) / std::to_string(options.device_id())).lexically_normal().string();
  return std::shared_ptr<const ExceptionDumper>(
      new ExceptionDumper(level == 1 ? Level::kL1 : Level::kLite, folder, resolved.rule));
}

Status ExceptionDumper::on_node_failed(size_t index, const CompiledNode& cn, const std::vector<const Tensor*>& inputs,
                                       const std::vector<const Tensor*>& outputs, KernelWorkspace workspace,
                                       const Status& failure) const {
  const Node& node = cn.node;
  const std::string op_name = node.name.empty() ? node.op_type + "_" + std::to_string(index) : node.name;
  DumpRecord record;
  record.op_name = op_name;
  record.dump_time_us = now_us();
  record.inputs = copies(inputs);
  record.outputs = copies(outputs);
  record.buffers = workspace_buffers(workspace);
  const std::string file =
      folder_ + "/" +
      paths::data_dump_file_name(node.op_type, op_name, static_cast<uint32_t>(index), 0, record.dump_time_us);
  Status written = make_dump_directories(folder_);
  if (written.ok()) written = write_dump_file(file, record);
  if (!written.ok()) {
    const std::string why = "the exception dump could not be written (" + rule_ + "): " + written.message();
    OPENGE_LOG_ERROR("GE", why);
    return Status(failure.code(), failure.message() + "; " + why);
  }
  log(index, cn, inputs, outputs, workspace, file);
  return Status(failure.code(),
                failure.message() + "; exception dump of " + node.op_type + " '" + op_name + "' written to " + file);
}

void ExceptionDumper::log(size_t index, const CompiledNode& cn, const std::vector<const Tensor*>& inputs,
                          const std::vector<const Tensor*>& outputs, KernelWorkspace workspace,
                          const std::string& file) const {
  const Node& node = cn.node;
  const std::string op = node.op_type + " '" + node.name + "' (task " + std::to_string(index) + ")";
  if (level_ == Level::kLite) {
    OPENGE_LOG_ERROR("GE", "exception dump (lite, L0) of " + op + ": " + file);
    return;
  }
  // L1 (NPU-13): the op, its kernel and each tensor's dtype, shape and format.
  std::string attrs;
  for (const auto& [name, value] : node.attrs.all()) attrs += (attrs.empty() ? "" : ",") + name;
  OPENGE_LOG_ERROR("GE", "exception dump (L1) of " + op + ", kernel on " + engine_name(cn.engine) +
                             (cn.kernel ? " (compiled)" : " (reference)") + ", attributes [" + attrs + "]: " + file);
  for (size_t i = 0; i < inputs.size(); ++i)
    OPENGE_LOG_ERROR("GE", "exception dump of " + op + ": input " + std::to_string(i) + " " + describe(inputs[i]));
  for (size_t i = 0; i < outputs.size(); ++i)
    OPENGE_LOG_ERROR("GE", "exception dump of " + op + ": output " + std::to_string(i) + " " + describe(outputs[i]));
  if (workspace.size)
    OPENGE_LOG_ERROR("GE", "exception dump of " + op + ": workspace 0 " + std::to_string(workspace.size) + " bytes");
}

}  // namespace openge::dump
