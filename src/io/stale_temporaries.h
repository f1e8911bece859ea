// Temporaries of killed processes: a writer names its temporary "<final name>.tmp.<pid>" (atomic
// writes, checkpoints) and removes it when it finishes or fails; one killed with SIGKILL cannot,
// so the next process that writes into the same folder removes the temporaries whose pid is no
// longer alive (docs/DECISIONS.md, "Leftovers of killed runs").
#pragma once
#include <string>

namespace openge {

// The pid in a temporary's name "<anything>.tmp.<pid>", or -1 when the name has another form.
long temporary_owner_pid(const std::string& file_name);

// True while a process of this pid exists (also one of another user, which kill(pid, 0) reports
// with EPERM).
bool process_alive(long pid);

// Removes, in `folder` (not below it), every file or folder named "<anything>.tmp.<pid>" whose
// process is gone and that this user owns. Runs once per folder and process; never fails (what
// cannot be removed stays, as before). Returns how many entries it removed.
int remove_dead_temporaries(const std::string& folder);

// remove_dead_temporaries in `root` and in every folder below it down to `depth` levels (links
// not followed), for writers whose temporaries sit in folders of their own process that no later
// process writes into again (a Data Dump's iteration folders, a PROF_ folder). Not once per
// folder: each call walks. Returns how many entries it removed.
int remove_dead_temporaries_below(const std::string& root, int depth);

// The same for folders whose name is `prefix` + "<pid>" + "_<anything>" (tmp_weight_<pid>_<id>),
// on every call.
int remove_dead_prefixed_folders(const std::string& folder, const std::string& prefix);

}  // namespace openge
