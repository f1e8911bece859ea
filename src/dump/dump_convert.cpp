#include "dump/dump_convert.h"

#include <algorithm>
#include <filesystem>

#include "io/npy.h"
#include "base/file_modes.h"

namespace openge::dump {
namespace fs = std::filesystem;

namespace {

std::string npy_name(const std::string& base, const char* kind, size_t slot, const Tensor& t) {
  const DType stored = t.dtype() == DType::kBFloat16 ? DType::kFloat32 : t.dtype();
  return base + "." + kind + "." + std::to_string(slot) + "." + (t.rank() == 4 ? "NCHW" : "ND") + "." +
         dtype_name(stored) + ".npy";
}

}  // namespace

std::vector<std::string> dump_name_fields(const std::string& name) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t dot; (dot = name.find('.', start)) != std::string::npos; start = dot + 1)
    fields.push_back(name.substr(start, dot - start));
  fields.push_back(name.substr(start));
  return fields;
}

bool looks_like_dump_file(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  // Five '.'-separated fields, the last three numbers (task, stream, timestamp).
  const std::vector<std::string> fields = dump_name_fields(name);
  if (fields.size() != 5) return false;
  for (size_t i = 2; i < 5; ++i)
    if (fields[i].empty() || !std::all_of(fields[i].begin(), fields[i].end(), ::isdigit)) return false;
  return true;
}

std::vector<std::string> npy_names(const std::string& base, const DumpRecord& record) {
  std::vector<std::string> names;
  for (size_t i = 0; i < record.inputs.size(); ++i)
    if (record.inputs[i].defined()) names.push_back(npy_name(base, "input", i, record.inputs[i]));
  for (size_t o = 0; o < record.outputs.size(); ++o)
    if (record.outputs[o].defined()) names.push_back(npy_name(base, "output", o, record.outputs[o]));
  return names;
}

Result<ConvertSummary> convert_dumps_to_npy(const std::string& dir, const std::string& output_dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return invalid_argument(dir + " is not a folder (give the dump folder to convert)");
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && looks_like_dump_file(it->path().filename().string())) files.push_back(it->path());
  if (ec) return io_error("cannot list " + dir + ": " + ec.message());
  if (files.empty())
    return invalid_argument("no dump files under " + dir +
                            " (expected {op_type}.{op_name}.{task_id}.{stream_id}.{timestamp} files written with "
                            "dump_config.enable_dump=True and dump_data=tensor)");
  std::sort(files.begin(), files.end());
  ConvertSummary summary;
  for (const fs::path& file : files) {
    auto record = read_dump_file(file.string());
    if (!record.ok()) return record.status();
    fs::path target = file.parent_path();
    if (!output_dir.empty()) {
      target = fs::path(output_dir) / fs::relative(file.parent_path(), dir);
      OPENGE_RETURN_IF_ERROR(make_directories(target.string(), kFolderMode));
    }
    const std::vector<std::string> names = npy_names(file.filename().string(), *record);
    size_t n = 0;
    for (const auto* list : {&record->inputs, &record->outputs})
      for (const Tensor& t : *list) {
        if (!t.defined()) continue;
        OPENGE_RETURN_IF_ERROR(write_npy(t, (target / names[n++]).string()));
        ++summary.npy_files;
      }
    ++summary.dump_files;
  }
  return summary;
}

}  // namespace openge::dump
