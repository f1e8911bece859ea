// Writing files the way the engine writes its artifacts: a file is written to a temporary name in
// its folder and renamed into place, so a crash, a full disk or a killed process never leaves a
// half-written file under the real name; folders and files get explicit modes whatever the
// umask (docs/DECISIONS.md, "File modes"), never writable by group or others.
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "openge/status.h"

namespace openge {

inline constexpr mode_t kFolderMode = 0750;
inline constexpr mode_t kDataFileMode = 0640;

// Creates `dir` and its missing parents, each folder it creates with exactly `mode` whatever the
// umask (mkdir, then chmod). Folders that exist keep their mode. Ok when `dir` is a folder at the end.
Status make_directories(const std::string& dir, mode_t mode = kFolderMode);

// `contents` written to "<path>.tmp.<pid>", then renamed to `path`; `mode` is the file's mode
// (kDataFileMode; the engine's dumps of tensors 0600). The first write of a process into a folder
// removes the temporaries there whose process is gone.
Status write_file_atomically(const std::string& path, std::string_view contents, mode_t mode = kDataFileMode);
// The same with the contents given in pieces, written one after the other (no concatenation).
Status write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces,
                             mode_t mode = kDataFileMode);

}  // namespace openge
