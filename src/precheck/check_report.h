// The model precheck's engine side: a model that fails to load in a run gets its report too.
// The precheck itself (ATC --mode=3) is declared in the public openge/precheck.h.
#pragma once
#include <string>
#include <vector>

#include "openge/precheck.h"
#include "openge/status.h"

namespace openge::precheck {

// A model that fails to load in a normal run gets its report too (ENV-34, ATC --mode=0): checks
// and writes it, and returns `load_error` saying where the report went (or why it could not be
// written).
Status with_check_report(const Status& load_error, const std::string& path, const void* data, size_t size,
                         const options::OptionSet& options);

}  // namespace openge::precheck
