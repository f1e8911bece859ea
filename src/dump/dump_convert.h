// The parts of the .npy conversion of Data Dump files that tests and the converter share; the
// conversion itself is declared in the public openge/dump_convert.h.
#pragma once
#include <string>
#include <vector>

#include "dump/dump_file.h"
#include "openge/dump_convert.h"
#include "openge/status.h"

namespace openge::dump {

// The .npy names of one dump file's tensors (without folder), inputs first, in slot order.
std::vector<std::string> npy_names(const std::string& dump_file_name, const DumpRecord& record);

// The '.'-separated fields of a dump file name: {op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}.
std::vector<std::string> dump_name_fields(const std::string& file_name);

// True for a file name that Data Dump writes ({op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}).
bool looks_like_dump_file(const std::string& file_name);

}  // namespace openge::dump
