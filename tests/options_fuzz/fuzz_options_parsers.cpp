// libFuzzer targets for the option parsers, one binary per parser (OPENGE_FUZZ_PARSER selects
// it): any byte string must come back as a value or as an error that says where and why, never
// as a crash, hang, leak or undefined behaviour. Run with tests/fuzz/run_fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "options/config_files.h"
#include "options/options_file.h"
#include "options/profiling_options.h"
#include "options/value_parsers.h"

namespace {

using namespace openge::options;
const std::string kFile = "fuzz.cfg";

// A refusal must name the file (all file parsers report "file:line:column: ...").
template <class R>
void check_names_file(const R& r) {
  if (!r.ok() && r.status().message().find(kFile) == std::string::npos) {
    std::fprintf(stderr, "error does not name the file: %s\n", r.status().message().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
#if OPENGE_FUZZ_PARSER == 0
  auto p = parse_options_text(text, kFile);
  for (const auto& e : p.errors)
    if (e.rfind(kFile + ":", 0) != 0) std::abort();
#elif OPENGE_FUZZ_PARSER == 1
  std::vector<Problem> errors;
  std::vector<std::string> warnings;
  (void)check_profiling_options(text, "profiling_options", ProfilingContext{"Ascend910B", 1}, errors, warnings);
  (void)parse_dump_step(text);
  (void)parse_stream_parallel(text);
  (void)parse_aic_metrics(text);
  (void)parse_storage_limit_mb(text);
  (void)check_path_charset(text);
#elif OPENGE_FUZZ_PARSER == 2
  check_names_file(parse_modify_mixlist(text, kFile));
#elif OPENGE_FUZZ_PARSER == 3
  check_names_file(parse_customize_dtypes(text, kFile));
#elif OPENGE_FUZZ_PARSER == 4
  check_names_file(parse_fusion_switch(text, kFile));
#elif OPENGE_FUZZ_PARSER == 5
  check_names_file(parse_op_precision_ini(text, kFile));
#elif OPENGE_FUZZ_PARSER == 6
  check_names_file(parse_op_debug_config(text, kFile));
#elif OPENGE_FUZZ_PARSER == 7
  check_names_file(parse_aoe_config(text, kFile));
#elif OPENGE_FUZZ_PARSER == 8
  auto ini = parse_op_cache_ini(text, kFile);
  for (const auto& p : ini.problems)
    if (p.rfind(kFile + ":", 0) != 0) std::abort();
#else
#error "OPENGE_FUZZ_PARSER must be 0..8"
#endif
  return 0;
}
