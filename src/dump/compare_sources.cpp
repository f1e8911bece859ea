#include "dump/compare_sources.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>

#include "dump/dump_convert.h"
#include "dump/dump_file.h"
#include "openge/tensor_files.h"

namespace openge::dump {
namespace fs = std::filesystem;

namespace {

bool all_digits(std::string_view t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The run a file belongs to: the timestamp folder (YYYYMMDDhhmmss, or YYYYMMDDhhmmss_<pid> for a
// process that found the second's folder taken) each run of a dump path gets, when `dir` is the
// dump path; "" when `dir` is inside one run.
std::string run_folder_of(const fs::path& file, const std::string& dir) {
  const fs::path rel = file.lexically_relative(dir);
  if (rel.empty() || std::distance(rel.begin(), rel.end()) < 2) return "";
  const std::string first = rel.begin()->string();
  const std::string_view stamp = std::string_view(first).substr(0, 14);
  const bool is_run = first.size() >= 14 && all_digits(stamp) &&
                      (first.size() == 14 || (first[14] == '_' && all_digits(std::string_view(first).substr(15))));
  return is_run ? first : "";
}

// A converted dump's .npy name: {dump file name}.output.{slot}.{format}.{dtype}.npy (inputs are
// not compared). Returns the slot, or -1 for another name.
int converted_output_slot(const std::vector<std::string>& fields) {
  if (fields.size() != 10 || fields[9] != "npy" || fields[5] != "output" || !all_digits(fields[6])) return -1;
  std::string dump_name = fields[0];
  for (size_t i = 1; i < 5; ++i) dump_name += "." + fields[i];
  return looks_like_dump_file(dump_name) ? std::stoi(fields[6]) : -1;
}

// A golden file's name: {op_name}.{output_index}[.{timestamp}].npy. Returns the output index, or -1.
int golden_output_index(const std::vector<std::string>& fields) {
  if (fields.size() < 3 || fields.size() > 4 || fields.back() != "npy" || fields[0].empty()) return -1;
  if (!all_digits(fields[1]) || fields[1].size() > 9 || (fields.size() == 4 && !all_digits(fields[2]))) return -1;
  return std::stoi(fields[1]);
}

// Iterations in numeric order, then execution (task) order, then slot.
bool in_execution_order(const SourceOutput& x, const SourceOutput& y) {
  if (x.iteration.size() != y.iteration.size()) return x.iteration.size() < y.iteration.size();
  if (x.iteration != y.iteration) return x.iteration < y.iteration;
  return x.task_id != y.task_id ? x.task_id < y.task_id : x.slot < y.slot;
}

// Of a dump path holding several runs, only the newest run's outputs, with a warning naming the
// runs; then a warning when the outputs come from several <model_id> folders (processes,
// sessions or models).
void keep_newest_run(const char* which, const std::string& dir,
                     std::map<std::string, std::vector<SourceOutput>>& by_run, CompareSource& source) {
  std::vector<std::string> warnings;
  if (by_run.size() > 1) {
    std::string runs;
    for (const auto& [run, entries] : by_run)
      runs += " " + (run.empty() ? std::string("(files outside a run folder)") : run);
    warnings.push_back(std::string(which) + " (" + dir + ") holds the dumps of " + std::to_string(by_run.size()) +
                       " runs (" + runs.substr(1) + "); compared the newest, " + by_run.rbegin()->first +
                       " (give that run's folder to choose another)");
  }
  source.outputs = std::move(by_run.rbegin()->second);
  std::set<std::string> models;
  for (const SourceOutput& o : source.outputs) models.insert(fs::path(o.path).parent_path().parent_path().string());
  if (models.size() > 1)
    warnings.push_back(std::string(which) + " (" + dir + ") holds the dumps of " + std::to_string(models.size()) +
                       " runs (processes, sessions or models), e.g. " + *models.begin() + " and " +
                       *std::next(models.begin()) +
                       "; ops are matched across them, so the first deviating op may be wrong: give one run's folder");
  for (const std::string& w : warnings) source.warning += (source.warning.empty() ? "" : "; ") + w;
}

}  // namespace

const char* source_kind_name(SourceKind kind) {
  switch (kind) {
    case SourceKind::kDump:
      return "Data Dump";
    case SourceKind::kConvertedDump:
      return "converted Data Dump (.npy)";
    case SourceKind::kGolden:
      return "golden .npy folder";
  }
  return "";
}

Result<CompareSource> read_compare_source(const char* which, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return invalid_argument(dir +
                            " is not a folder (give a Data Dump folder, its `openge dump convert` output, or a "
                            "golden folder of {op_name}.{output_index}.npy files)");
  std::map<std::string, std::vector<SourceOutput>> dumps, converted;
  std::vector<SourceOutput> golden;
  std::vector<std::string> other_npy;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file() || name.empty() || name[0] == '.') continue;
    const std::vector<std::string> fields = dump_name_fields(name);
    SourceOutput base;
    base.path = it->path().string();
    base.iteration = it->path().parent_path().filename().string();
    if (looks_like_dump_file(name)) {
      auto header = read_dump_header(base.path);
      if (!header.ok()) return header.status();
      base.op_type = fields[0];
      base.op_name = fields[1];
      base.task_id = std::stoi(fields[2]);
      auto& run = dumps[run_folder_of(it->path(), dir)];
      for (size_t slot = 0; slot < header->original_outputs.size(); ++slot) {
        SourceOutput o = base;
        o.slot = static_cast<int>(slot);
        const auto& original = header->original_outputs[slot];
        o.model_node = original.name.empty() ? header->op_name : original.name;
        o.model_output = original.name.empty() ? o.slot : static_cast<int>(original.output_index);
        run.push_back(std::move(o));
      }
    } else if (const int slot = converted_output_slot(fields); slot >= 0) {
      base.op_type = fields[0];
      base.op_name = base.model_node = fields[1];
      base.task_id = std::stoi(fields[2]);
      base.slot = base.model_output = slot;
      converted[run_folder_of(it->path(), dir)].push_back(std::move(base));
    } else if (const int index = golden_output_index(fields); index >= 0) {
      base.iteration.clear();
      base.op_name = base.model_node = fields[0];
      base.slot = base.model_output = index;
      golden.push_back(std::move(base));
    } else if (fields.size() > 1 && fields.back() == "npy") {
      other_npy.push_back(base.path);
    }
  }
  if (ec) return io_error("cannot list " + dir + ": " + ec.message());
  CompareSource source;
  if (!dumps.empty() || !converted.empty()) {
    source.kind = dumps.empty() ? SourceKind::kConvertedDump : SourceKind::kDump;
    keep_newest_run(which, dir, dumps.empty() ? converted : dumps, source);
    std::sort(source.outputs.begin(), source.outputs.end(), in_execution_order);
    return source;
  }
  if (golden.empty())
    return invalid_argument(
        "no dump files or golden .npy files under " + dir +
        (other_npy.empty() ? std::string() : " (" + other_npy.front() + " does not follow the golden names)") +
        " (give a Data Dump folder written with dump_config.enable_dump=True and dump_data=tensor, its `openge dump "
        "convert` output, or a golden folder of {op_name}.{output_index}[.{timestamp}].npy files)");
  source.kind = SourceKind::kGolden;
  // Of one output saved more than once (several timestamps), the newest.
  std::sort(golden.begin(), golden.end(), [](const SourceOutput& x, const SourceOutput& y) {
    return std::tie(x.op_name, x.slot, x.path) < std::tie(y.op_name, y.slot, y.path);
  });
  for (SourceOutput& o : golden) {
    if (!source.outputs.empty() && source.outputs.back().op_name == o.op_name && source.outputs.back().slot == o.slot)
      source.outputs.back() = std::move(o);
    else
      source.outputs.push_back(std::move(o));
  }
  if (!other_npy.empty())
    source.warning = std::string(which) + " (" + dir + "): " + std::to_string(other_npy.size()) +
                     " .npy file(s) not named {op_name}.{output_index}[.{timestamp}].npy were left out, e.g. " +
                     other_npy.front();
  return source;
}

void keep_first_iteration(const char* which, const std::string& dir, CompareSource& source) {
  if (source.kind == SourceKind::kGolden || source.outputs.empty()) return;
  const std::string first = source.outputs.front().iteration;  // the outputs are in iteration order
  std::set<std::string> iterations;
  for (const SourceOutput& o : source.outputs) iterations.insert(o.iteration);
  if (iterations.size() < 2) return;
  source.outputs.erase(std::remove_if(source.outputs.begin(), source.outputs.end(),
                                      [&](const SourceOutput& o) { return o.iteration != first; }),
                       source.outputs.end());
  const std::string note = std::string(which) + " (" + dir + ") holds " + std::to_string(iterations.size()) +
                           " iterations; compared iteration " + first +
                           " with the golden data (give another iteration's folder to choose it)";
  source.warning += (source.warning.empty() ? "" : "; ") + note;
}

Result<Tensor> OutputReader::read(const SourceOutput& output) {
  if (output.path.size() > 4 && output.path.compare(output.path.size() - 4, 4, ".npy") == 0)
    return read_npy(output.path);
  if (output.path != cached_path_) {
    auto record = read_dump_file(output.path);
    if (!record.ok()) return record.status();
    cached_path_ = output.path;
    cached_outputs_ = std::move(record->outputs);
  }
  if (output.slot < 0 || static_cast<size_t>(output.slot) >= cached_outputs_.size()) return Tensor();
  return cached_outputs_[static_cast<size_t>(output.slot)];
}

}  // namespace openge::dump
