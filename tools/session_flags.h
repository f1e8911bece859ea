// The flags every command that opens a Session takes (--threads, --engine, --profile,
// --profile-options, --option, --options-file) and the one call that turns them plus the
// environment into SessionOptions, the options checked before any model is read.
#pragma once
#include <filesystem>
#include <optional>
#include <vector>

#include "cli_args.h"
#include "model_inputs.h"
#include "openge/session.h"

namespace openge::cli {

std::vector<FlagSpec> session_flag_specs();

// The folder --profile created, removed again (when still empty) unless the command got as far
// as collecting into it: bad input leaves nothing behind.
struct CreatedFolder {
  std::filesystem::path path;
  bool keep = false;
  ~CreatedFolder();
};

// The SessionOptions of the flags and the process environment. On bad input prints every
// problem ("openge COMMAND: ...") and returns nullopt; option warnings are printed too.
// --profile without an "output" and without ASCEND_WORK_PATH collects into ./profiling_data
// (created and named in `created`), where CANN would refuse (ENV-13): the shortcut is for a
// quick look (docs/DECISIONS.md).
std::optional<SessionOptions> session_options_from_flags(const char* command, const Args& args, CreatedFolder& created);

// --model (or the demo model, announced on stdout when `announce_demo`) opened with `options`,
// and its inputs gathered (random ones with `seed`). The folder in `created` is kept once the
// Session opened. Errors name the model when the inputs are at fault.
struct OpenedModel {
  std::string path;
  std::unique_ptr<Session> session;
  GatheredInputs inputs;
};
Result<OpenedModel> open_model_with_inputs(const Args& args, const SessionOptions& options, uint32_t seed,
                                           bool announce_demo, CreatedFolder& created);

}  // namespace openge::cli
