// Where and how `openge run` writes a model's outputs: --outputs/--output DIR, in the default
// form (output_<i>.pb and .npy) or in msame / ais_bench's --outfmt NPY, BIN (raw bytes) or TXT.
#pragma once
#include <string>
#include <vector>

#include "openge/session.h"

namespace openge::cli {

enum class OutputFormat { kPbAndNpy, kNpy, kBin, kTxt };

// NPY, BIN or TXT (any case); an empty text is the default form.
Result<OutputFormat> output_format_from_flag(const std::string& text);

// Creates `dir` (and its parents) and proves it writable with a probe file, so a folder the run
// could not write into is refused before the model runs. `flag` names it in the message.
// Sets `created` when the folder did not exist before.
Status prepare_output_folder(const std::string& dir, const std::string& flag, bool& created);

// Writes every output as output_<i>.<ext> (temporary file, then rename); returns the paths written.
Result<std::vector<std::string>> write_outputs(const Session& session, const std::vector<Tensor>& outputs,
                                               const std::string& dir, OutputFormat format);

}  // namespace openge::cli
