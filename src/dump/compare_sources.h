// The folders `openge compare` reads, each turned into the list of op outputs it holds: a Data
// Dump (dump files), the .npy files `openge dump convert` makes of one, or a golden folder of .npy
// files from another framework, named {op_name}.{output_index}[.{timestamp}].npy after the model's
// node (docs/FORMATS.md, "Golden data for compare").
#pragma once
#include <string>
#include <vector>

#include "openge/status.h"
#include "openge/tensor.h"

namespace openge::dump {

enum class SourceKind { kDump, kConvertedDump, kGolden };

// "Data Dump", "converted Data Dump (.npy)", "golden .npy folder".
const char* source_kind_name(SourceKind kind);

struct SourceOutput {
  std::string path;       // the dump file or .npy file holding it
  std::string iteration;  // the iteration folder's name; "" in a golden folder
  std::string op_name;    // as the file name spells it ('.', '/', '\', ' ' made '_')
  std::string op_type;    // "" in a golden folder
  int task_id = 0;        // execution order in a dump; 0 in a golden folder
  int slot = 0;           // the op's output slot (the output index in a golden folder)
  // The model's node that produced it and that node's output index: a dump file's OriginalOp
  // (for a fused op, the merged node that computed it), else the op itself.
  std::string model_node;
  int model_output = 0;
};

struct CompareSource {
  SourceKind kind = SourceKind::kDump;
  std::vector<SourceOutput> outputs;  // a dump's in iteration, then execution order; a golden folder's by name
  // Empty, or why the folder's contents are doubtful (several runs: only the newest is read; files
  // of several processes or models; .npy files a golden folder's names do not fit).
  std::string warning;
};

// `which` ("A" or "B") names the folder in messages.
Result<CompareSource> read_compare_source(const char* which, const std::string& dir);

// Keeps only the first iteration of a dump (golden data is one inference); `warning` gets a note
// naming the iteration kept when the dump held several.
void keep_first_iteration(const char* which, const std::string& dir, CompareSource& source);

// The tensor of one output (dump files with several outputs are read once per call: callers
// that walk a dump read each file's outputs together through OutputReader).
class OutputReader {
 public:
  Result<Tensor> read(const SourceOutput& output);

 private:
  std::string cached_path_;
  std::vector<Tensor> cached_outputs_;
};

}  // namespace openge::dump
