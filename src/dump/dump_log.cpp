#include "dump/dump_log.h"

#include "logging/log.h"

namespace openge::dump {

// A warning: it is what the user of overflow detection is waiting for, and it is not an error of
// the run (ASCEND_GLOBAL_LOG_LEVEL=2 or lower shows it).
void log_dump_event(const std::string& message) { OPENGE_LOG_WARNING("GE", "dump: " + message); }

}  // namespace openge::dump
