// Folders of temporary files that must not outlive the process (external_weight's
// tmp_weight_<pid>_<sessionid>, OPT-external_weight-6): a TempFolderGuard removes its folder when
// it is destroyed, and every folder still guarded is also removed at exit() and on SIGINT or
// SIGTERM. The signal handler removes the registered files and folders with async-signal-safe
// calls only (unlink, rmdir) on paths prepared at registration, then lets the signal take its
// previous course: the default action terminates the process as it would have (re-raised), a
// handler installed before the first guard runs, an ignored signal stays ignored (no handler is
// installed for it, nothing is removed).
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace openge {

class TempFolderGuard {
 public:
  // Guards `folder` and the files in it named by `file_names` (the folder's whole content,
  // known before any of it is written, so that a signal during the writing removes it too).
  // Installs the SIGINT/SIGTERM handlers and the exit handler the first time.
  TempFolderGuard(std::string folder, const std::vector<std::string>& file_names);
  ~TempFolderGuard();  // removes the files and the folder, unless a signal or exit() already did
  TempFolderGuard(const TempFolderGuard&) = delete;
  TempFolderGuard& operator=(const TempFolderGuard&) = delete;

  const std::string& folder() const { return folder_; }

 private:
  std::string folder_;
  int slot_ = -1;  // in the handlers' table; -1 when it was full (the destructor still removes)
};

}  // namespace openge
