#include "model_inputs.h"

#include <unistd.h>

#include <filesystem>

#include "frontend/tensor_proto.h"
#include "frontend/value_proto.h"
#include "io/npy.h"
#include "io/random_inputs.h"

namespace openge::cli {
namespace fs = std::filesystem;

namespace {

Result<Tensor> read_tensor_file(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".npy") return read_npy(path);
  if (ext == ".pb") return read_tensor_pb(path);
  return invalid_argument("input file " + path + " must be .npy or .pb");
}

Status check_input(const TensorInfo& info, const Tensor& t, const std::string& source) {
  if (t.kind() != info.kind)
    return invalid_argument("input '" + info.name + "' from " + source + " is a " + value_kind_name(t.kind()) +
                            " but the model expects a " + value_kind_name(info.kind));
  if (info.kind != ValueKind::kTensor) return Status::Ok();  // read with the model's element type
  if (t.dtype() != info.dtype)
    return invalid_argument("input '" + info.name + "' from " + source + " is " + dtype_name(t.dtype()) +
                            " but the model expects " + dtype_name(info.dtype));
  bool ok = info.shape.empty() || info.shape.size() == t.shape().size();
  for (size_t d = 0; ok && d < info.shape.size(); ++d) ok = info.shape[d] < 0 || info.shape[d] == t.shape()[d];
  if (!ok)
    return invalid_argument("input '" + info.name + "' from " + source + " has shape " + shape_to_string(t.shape()) +
                            " but the model expects " + shape_to_string(info.shape));
  return Status::Ok();
}

}  // namespace

Result<GatheredInputs> gather_inputs(const Session& session, const Args& args, uint32_t seed) {
  const auto& infos = session.inputs();
  GatheredInputs out;
  out.tensors.resize(infos.size());
  if (args.has("inputs")) {
    const std::string dir = args.get("inputs");
    if (!fs::is_directory(dir)) return invalid_argument("--inputs " + dir + " is not a directory");
    for (size_t i = 0; i < infos.size(); ++i) {
      const std::string path = (fs::path(dir) / ("input_" + std::to_string(i) + ".pb")).string();
      if (!fs::exists(path)) continue;
      auto t = read_value_pb(path, infos[i].kind, infos[i].dtype);  // a sequence or optional: its own proto
      if (!t.ok()) return t.status();
      OPENGE_RETURN_IF_ERROR(check_input(infos[i], *t, path));
      out.tensors[i] = std::move(t.value());
    }
  }
  for (const std::string& spec : args.all("input")) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos) return invalid_argument("--input needs NAME=FILE, got '" + spec + "'");
    const std::string name = spec.substr(0, eq), path = spec.substr(eq + 1);
    size_t index = infos.size();
    for (size_t i = 0; i < infos.size(); ++i)
      if (infos[i].name == name) index = i;
    if (index == infos.size()) {
      std::string names;
      for (const auto& info : infos) names += (names.empty() ? "" : ", ") + info.name;
      return invalid_argument("--input " + name + ": the model has no input of that name (inputs: " + names + ")");
    }
    auto t = read_tensor_file(path);
    if (!t.ok()) return t.status();
    OPENGE_RETURN_IF_ERROR(check_input(infos[index], *t, path));
    out.tensors[index] = std::move(t.value());
  }
  out.notes = fill_missing_inputs(infos, out.tensors, seed);
  return out;
}

Result<std::string> find_demo_model() {
  std::vector<fs::path> candidates;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path() / "../share/openge/demo.onnx");
    candidates.push_back(exe.parent_path() / "../models/demo.onnx");
  }
#ifdef OPENGE_DEMO_MODEL
  candidates.push_back(OPENGE_DEMO_MODEL);
#endif
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return fs::weakly_canonical(c).string();
  std::string tried;
  for (const auto& c : candidates) tried += " " + c.string();
  return io_error("the demo model was not found (looked at" + tried + "); pass --model FILE.onnx");
}

Result<std::string> model_flag_or_demo(const Args& args) {
  const std::string model = args.get("model");
  if (!model.empty()) return model;
  return find_demo_model();
}

}  // namespace openge::cli
