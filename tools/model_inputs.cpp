#include "model_inputs.h"

#include <unistd.h>

#include <filesystem>

#include "input_files.h"
#include "openge/random_inputs.h"
#include "openge/did_you_mean.h"

namespace openge::cli {
namespace fs = std::filesystem;

namespace {

std::string input_names(const std::vector<TensorInfo>& infos) {
  std::string names;
  for (const auto& info : infos) names += (names.empty() ? "" : ", ") + info.name;
  return names;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

// One --input value: NAME=FILE, or (as msame and ais_bench take it) FILE[,FILE...] for the
// inputs in order. NAME= is recognised only when NAME is an input of the model, so a file name
// holding '=' still works; a NAME= that matches no input and no file is a wrong input name.
Status read_input_flag(const std::vector<TensorInfo>& infos, const std::string& spec, std::vector<Tensor>& tensors,
                       std::vector<bool>& given, bool& positional_used) {
  if (const auto eq = spec.find('='); eq != std::string::npos) {
    const std::string name = spec.substr(0, eq), path = spec.substr(eq + 1);
    for (size_t i = 0; i < infos.size(); ++i) {
      if (infos[i].name != name) continue;
      auto t = read_input_file(infos[i], path);
      if (!t.ok()) return t.status();
      tensors[i] = std::move(t.value());
      given[i] = true;
      return Status::Ok();
    }
    std::error_code ec;
    if (!fs::exists(spec, ec)) {
      std::vector<std::string> names;
      for (const auto& info : infos) names.push_back(info.name);
      return invalid_argument("--input " + name + "=...: the model has no input '" + name + "'; its inputs are " +
                              input_names(infos) + options::did_you_mean_suffix(options::closest_names(name, names)));
    }
  }
  if (positional_used)
    return invalid_argument(
        "--input FILE,FILE... is given twice; list every input's file in one --input, in input order");
  positional_used = true;
  const auto files = split_commas(spec);
  if (files.size() != infos.size())
    return invalid_argument("--input lists " + std::to_string(files.size()) + (files.size() == 1 ? " file" : " files") +
                            " but the model has " + std::to_string(infos.size()) + " inputs (" + input_names(infos) +
                            "); give one file per input, comma-separated in that order, or NAME=FILE");
  for (size_t i = 0; i < files.size(); ++i) {
    auto t = read_input_file(infos[i], files[i]);
    if (!t.ok()) return t.status();
    tensors[i] = std::move(t.value());
    given[i] = true;
  }
  return Status::Ok();
}

// The files --inputs DIR may hold for input i, in the order they are looked for: the ONNX test
// layout (input_<i>.pb), its .npy twin, and the input's own name.
std::vector<std::string> folder_candidates(const TensorInfo& info, size_t i) {
  std::vector<std::string> names = {"input_" + std::to_string(i) + ".pb", "input_" + std::to_string(i) + ".npy"};
  if (!info.name.empty() && info.name.find('/') == std::string::npos && info.name != "." && info.name != "..") {
    names.push_back(info.name + ".npy");
    names.push_back(info.name + ".pb");
  }
  return names;
}

// Every input not given by --input must have its file in DIR: a folder that lacks one is refused
// (never filled with random data), and the message lists what was looked for and what is there.
Status read_inputs_folder(const std::vector<TensorInfo>& infos, const std::string& dir, std::vector<Tensor>& tensors,
                          const std::vector<bool>& given) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return invalid_argument("--inputs " + dir + " is not a folder; give the folder that holds the input files");
  for (size_t i = 0; i < infos.size(); ++i) {
    if (given[i]) continue;
    const auto candidates = folder_candidates(infos[i], i);
    std::string found;
    for (const auto& c : candidates)
      if (fs::is_regular_file(fs::path(dir) / c, ec)) {
        found = (fs::path(dir) / c).string();
        break;
      }
    if (found.empty()) {
      std::string looked, present;
      for (const auto& c : candidates) looked += (looked.empty() ? "" : ", ") + c;
      int shown = 0;
      for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (shown++ == 5) {
          present += ", ...";
          break;
        }
        present += (present.empty() ? "" : ", ") + entry.path().filename().string();
      }
      return invalid_argument("--inputs " + dir + " has no file for input '" + infos[i].name + "' (looked for " +
                              looked + "; the folder holds " + (present.empty() ? "nothing" : present) +
                              "); name the file so, or give it with --input " + infos[i].name + "=FILE");
    }
    auto t = read_input_file(infos[i], found);
    if (!t.ok()) return t.status();
    tensors[i] = std::move(t.value());
  }
  return Status::Ok();
}

}  // namespace

Result<GatheredInputs> gather_inputs(const Session& session, const Args& args, uint32_t seed) {
  const auto& infos = session.inputs();
  GatheredInputs out;
  out.tensors.resize(infos.size());
  std::vector<bool> given(infos.size(), false);
  bool positional_used = false;
  for (const std::string& spec : args.all("input"))
    OPENGE_RETURN_IF_ERROR(read_input_flag(infos, spec, out.tensors, given, positional_used));
  if (args.has("inputs")) OPENGE_RETURN_IF_ERROR(read_inputs_folder(infos, args.get("inputs"), out.tensors, given));
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
