// openge ops [--list]: the op types the engine registers, one per line, sorted; an op of another
// domain than the default one as "domain::OpType". Tools read it (the ONNX conformance harness
// takes its scope from it) so that no list of ops is kept twice.
#include <cstdio>
#include <cstring>

#include "commands.h"
#include "openge/ops.h"

namespace openge::cli {

int cmd_ops(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: openge ops [--list]\n  prints every registered op type, one per line, sorted (domain::OpType outside "
          "the default domain)\n");
      return 0;
    }
    if (std::strcmp(argv[i], "--list") != 0) {
      std::fprintf(stderr, "openge ops: unknown flag '%s' (usage: openge ops [--list])\n", argv[i]);
      return 2;
    }
  }
  for (const OpTypeName& s : supported_op_types()) {
    if (!s.domain.empty()) std::printf("%s::", s.domain.c_str());
    std::printf("%s\n", s.op_type.c_str());
  }
  return 0;
}

}  // namespace openge::cli
