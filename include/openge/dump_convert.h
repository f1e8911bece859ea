// `openge dump convert DIR --to npy`: every Data Dump file under DIR becomes one .npy per tensor,
// named as msprobe names them (docs/FORMATS.md, "Data Dump: .npy conversion"):
//   <dump file>.<input|output>.<slot>.<FORMAT>.<dtype>.npy     e.g. Conv.conv1.0.0.1733....output.0.NCHW.float32.npy
// bfloat16 tensors become float32 (NumPy has no bfloat16, as msprobe does).
#pragma once
#include <string>

#include "openge/status.h"

namespace openge::dump {

struct ConvertSummary {
  int dump_files = 0;
  int npy_files = 0;
};

// `output_dir` empty: each .npy beside its dump file; otherwise the folder tree under DIR is
// mirrored there. Files that are not dump files by name (.csv, .json, .npy, hidden files) are
// skipped; a file that looks like a dump file but does not parse is an error naming it.
Result<ConvertSummary> convert_dumps_to_npy(const std::string& dir, const std::string& output_dir);

}  // namespace openge::dump
