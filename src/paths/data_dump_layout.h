// Where each Data Dump file goes below dump_config.dump_path (docs/FORMATS.md, "Data Dump: folder and file names"):
//   <dump_path>/<YYYYmmddHHMMSS>[_<pid>]/<device_id>/<model_name>/<model_id>/<iteration>/
//       {op_type}.{op_name}.{task_id}.{stream_id}.{timestamp_us}
// The root (dump_path) comes from resolve_artifact(ArtifactKind::kDataDump, ...).
#pragma once
#include <cstdint>
#include <ctime>
#include <string>

namespace openge::paths {

// <dump_path>/<YYYYmmddHHMMSS>: the folder of one session's dumps (GE's CurrentTimeInStr, local time).
std::string data_dump_session_dir(const std::string& dump_path, std::time_t when);

// <dump_path>/<YYYYmmddHHMMSS>_<pid>: the folder of a process's dumps when another process has
// already made the per-second folder (docs/DECISIONS.md, "Data Dump of concurrent processes").
std::string data_dump_session_dir_of_process(const std::string& dump_path, std::time_t when, long pid);

// <session_dir>/<device_id>/<model_name>/<model_id>/<iteration>
std::string data_dump_iteration_dir(const std::string& session_dir, int device_id, const std::string& model_name,
                                    uint32_t model_id, int64_t iteration);

// {op_type}.{op_name}.{task_id}.{stream_id}.{timestamp_us}; '.', '/', '\\' and ' ' inside the
// names become '_' (as GE does) so that the five fields split on '.' unambiguously.
std::string data_dump_file_name(const std::string& op_type, const std::string& op_name, uint32_t task_id,
                                uint32_t stream_id, uint64_t timestamp_us);

// A name made safe for one path component and for the '.'-separated file name.
std::string data_dump_safe_name(const std::string& name);

}  // namespace openge::paths
