#include "precheck/check_report.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <map>
#include <nlohmann/json.hpp>

#include "base/mapped_file.h"
#include "frontend/onnx_loader.h"
#include "io/atomic_file.h"
#include "ops/op_registry.h"
#include "paths/artifact_paths.h"
#include "compiler/pipeline.h"
#include "options/option_set.h"

namespace openge::precheck {
namespace fs = std::filesystem;

namespace {

void add_cause(std::vector<Cause>& causes, CauseCode code, const std::string& message) {
  for (const Cause& c : causes)
    if (c.code == code && c.message == message) return;  // CANN de-duplicates causes
  causes.push_back({code, message});
}

// The bytes an inline initializer holds (raw or typed data: the element count times the size).
uint64_t inline_bytes(const onnx::TensorProto& t) {
  if (!t.raw_data().empty()) return t.raw_data().size();
  const DType dtype = static_cast<DType>(t.data_type());  // DType values are ONNX's TensorProto types
  if (!dtype_supported(dtype) || dtype == DType::kString) return 0;
  uint64_t n = dtype_size(dtype);
  for (int64_t d : t.dims()) n *= d > 0 ? static_cast<uint64_t>(d) : 0;
  return n;
}

// The OK cause of an external-data weight: its file, offset and length as the entries say.
std::string external_data_message(const onnx::TensorProto& t) {
  std::string location, offset = "0", length = "the rest of the file";
  for (const auto& e : t.external_data()) {
    if (e.key() == "location") location = e.value();
    if (e.key() == "offset") offset = e.value();
    if (e.key() == "length") length = e.value() + " bytes";
  }
  return "FileConstant: file " + location + ", offset " + offset + ", length " + length;
}

// The OK cause of a weight external_weight writes out (session/external_weights.h).
std::string external_weight_message(uint64_t bytes) {
  return "FileConstant (external_weight): a session writes its " + std::to_string(bytes) +
         " bytes to a file of its own in tmp_weight_<pid>_<sessionid>/ (ASCEND_WORK_PATH, else the working "
         "directory), offset 0, length " +
         std::to_string(bytes) + ", and the node reads them there";
}

// The nodes as the loader names them ("<op_type>_<index>" for an unnamed node), after a
// FileConstant op for each weight stored as external data: GE's ONNX parser turns those into
// FileConstant nodes (file, offset, length), as external_weight does with the others
// (OPT-external_weight-5): with `external_weight` every initializer is one, and so is every
// Constant node.
std::vector<OpCheck> nodes_of(const onnx::GraphProto& g, bool external_weight) {
  std::vector<OpCheck> ops;
  std::map<std::string, int> seen;
  for (const auto& init : g.initializer()) {
    const bool external_data = init.data_location() == onnx::TensorProto::EXTERNAL;
    if (!external_data && !external_weight) continue;
    OpCheck op{init.name(), "FileConstant", {}};
    add_cause(op.causes, CauseCode::kOk,
              external_data ? external_data_message(init) : external_weight_message(inline_bytes(init)));
    if (++seen[op.name] > 1) add_cause(op.causes, CauseCode::kNameRepeated, "The name is repeated.");
    ops.push_back(std::move(op));
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& np = g.node(i);
    OpCheck op{np.name().empty() ? np.op_type() + "_" + std::to_string(i) : np.name(), np.op_type(), {}};
    if (external_weight && np.op_type() == "Constant" && (np.domain().empty() || np.domain() == "ai.onnx")) {
      op.type = "FileConstant";
      for (const auto& a : np.attribute())
        if (a.name() == "value" && a.has_t())
          add_cause(op.causes, CauseCode::kOk, external_weight_message(inline_bytes(a.t())));
    }
    // The domain rule of the loader (src/frontend/onnx_loader.cpp): the default ONNX domain, and
    // ops the table registers in their own domain (the ai.onnx.preview.training optimizers).
    const OpSchema* schema = find_op_schema(np.op_type());
    const bool default_domain = np.domain().empty() || np.domain() == "ai.onnx";
    if (!default_domain && !(schema && schema->domain == np.domain()))
      add_cause(op.causes, CauseCode::kTypeUnsupported,
                "The type is not supported: domain '" + np.domain() +
                    "' (OpenGE runs the default ONNX domain and ai.onnx.preview.training's optimizers)");
    else if (!schema)
      add_cause(op.causes, CauseCode::kTypeUnsupported,
                "The type is not supported: OpenGE has no " + np.op_type() + " operator (openge ops lists them)");
    if (++seen[op.name] > 1) add_cause(op.causes, CauseCode::kNameRepeated, "The name is repeated.");
    ops.push_back(std::move(op));
  }
  return ops;
}

// A load or compile error naming a node ("Conv 'conv1'") is that node's; others are the model's.
void attribute_error(CheckReport& report, const Status& error) {
  const std::string& m = error.message();
  for (OpCheck& op : report.ops) {
    if (m.find(op.type + " '" + op.name + "'") == std::string::npos) continue;
    if (op.ok()) add_cause(op.causes, CauseCode::kParamInvalid, m);
    return;
  }
  bool some_op_failed = false;
  for (const OpCheck& op : report.ops) some_op_failed = some_op_failed || !op.ok();
  // An unsupported op also stops the loader; its message adds nothing to the per-op causes.
  if (!some_op_failed) add_cause(report.model_causes, CauseCode::kParamInvalid, m);
}

}  // namespace

bool OpCheck::ok() const {
  return std::none_of(causes.begin(), causes.end(), [](const Cause& c) {
    const int code = static_cast<int>(c.code);
    return code >= 1 && code <= 99;
  });
}

bool CheckReport::ok() const { return model_causes.empty() && failed_ops() == 0; }

size_t CheckReport::failed_ops() const {
  size_t n = 0;
  for (const OpCheck& op : ops) n += !op.ok();
  return n;
}

CheckReport check_model(const std::string& path, const void* data, size_t size, const options::OptionSet* options) {
  CheckReport report;
  report.model_name = fs::path(path).stem().string();
  std::shared_ptr<const MappedFile> file;
  if (!data) {
    auto mapped = MappedFile::open(path);
    if (!mapped.ok()) {
      add_cause(report.model_causes, CauseCode::kParamInvalid, "cannot read the model file " + path);
      return report;
    }
    file = std::move(mapped.value());
    data = file->data();
    size = file->size();
  }
  onnx::ModelProto model;
  if (size > 0 && size <= kMaxModelBytes && model.ParseFromArray(data, static_cast<int>(size)) && model.has_graph()) {
    if (!model.graph().name().empty()) report.model_name = model.graph().name();
    report.ops = nodes_of(model.graph(), options && options->get_bool("external_weight"));
  }
  const std::string base = fs::path(path).parent_path().string();
  auto graph = load_onnx_from_bytes(data, size, path, base.empty() ? "." : base);
  if (!graph.ok()) {
    attribute_error(report, graph.status());
    return report;
  }
  // Then compile it as a run would (every node's shape inference and attribute checks), with 1 for
  // each dimension the inputs leave open: an op that would fail there fails the check.
  std::vector<Shape> shapes;
  for (int v : graph->inputs) {
    Shape shape = graph->values[static_cast<size_t>(v)].shape.value_or(Shape{});
    for (auto& d : shape) d = d < 0 ? 1 : d;
    shapes.push_back(std::move(shape));
  }
  CompileOptions co;
  co.num_threads = 1;
  auto compiled = compiler::compile(std::move(graph.value()), shapes, co);
  if (!compiled.ok()) attribute_error(report, compiled.status());
  return report;
}

std::string to_json(const CheckReport& report) {
  using Json = nlohmann::ordered_json;
  auto causes_json = [](const std::vector<Cause>& causes) {
    Json out = Json::array();
    for (const Cause& c : causes) out.push_back(Json{{"code", static_cast<int>(c.code)}, {"message", c.message}});
    return out;
  };
  const size_t fail = report.failed_ops();
  Json j;
  j["name"] = report.model_name;
  j["result"] = report.ok() ? "success" : "failed";
  j["total"] = report.ops.size();
  j["pass"] = report.ops.size() - fail;
  j["fail"] = fail;
  if (!report.model_causes.empty()) j["cause"] = causes_json(report.model_causes);
  Json ops = Json::array();
  for (const OpCheck& op : report.ops) {
    Json o{{"name", op.name}, {"type", op.type}, {"result", op.ok() ? "success" : "failed"}};
    if (!op.causes.empty()) o["cause"] = causes_json(op.causes);
    ops.push_back(std::move(o));
  }
  j["op"] = std::move(ops);
  // Non-UTF-8 names from a hostile model are replaced rather than thrown on.
  return j.dump(4, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<std::string> write_check_report(const CheckReport& report, const options::OptionSet& options,
                                       const std::string& check_report) {
  paths::RunIds ids = paths::RunIds::current();
  ids.check_report = check_report;
  const paths::ResolvedPath where = paths::resolve_artifact(paths::ArtifactKind::kCheckResult, options, ids);
  OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(where));
  OPENGE_RETURN_IF_ERROR(write_file_atomically(where.path, to_json(report)));
  return where.path;
}

Status with_check_report(const Status& load_error, const std::string& path, const void* data, size_t size,
                         const options::OptionSet& options) {
  auto written = write_check_report(check_model(path, data, size, &options), options);
  const std::string note = written.ok()
                               ? " (precheck report: " + *written + ")"
                               : " (the precheck report could not be written: " + written.status().message() + ")";
  return Status(load_error.code(), load_error.message() + note);
}

}  // namespace openge::precheck
