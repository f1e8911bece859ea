#include "paths/data_dump_layout.h"

#include <filesystem>

namespace openge::paths {

std::string data_dump_safe_name(const std::string& name) {
  std::string out = name.empty() ? "unnamed" : name;
  for (char& c : out)
    if (c == '.' || c == '/' || c == '\\' || c == ' ') c = '_';
  return out;
}

std::string data_dump_session_dir(const std::string& dump_path, std::time_t when) {
  std::tm tm{};
  localtime_r(&when, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
  return (std::filesystem::path(dump_path) / stamp).lexically_normal().string();
}

std::string data_dump_session_dir_of_process(const std::string& dump_path, std::time_t when, long pid) {
  return data_dump_session_dir(dump_path, when) + "_" + std::to_string(pid);
}

std::string data_dump_iteration_dir(const std::string& session_dir, int device_id, const std::string& model_name,
                                    uint32_t model_id, int64_t iteration) {
  return (std::filesystem::path(session_dir) / std::to_string(device_id) / data_dump_safe_name(model_name) /
          std::to_string(model_id) / std::to_string(iteration))
      .string();
}

std::string data_dump_file_name(const std::string& op_type, const std::string& op_name, uint32_t task_id,
                                uint32_t stream_id, uint64_t timestamp_us) {
  return data_dump_safe_name(op_type) + "." + data_dump_safe_name(op_name) + "." + std::to_string(task_id) + "." +
         std::to_string(stream_id) + "." + std::to_string(timestamp_us);
}

}  // namespace openge::paths
