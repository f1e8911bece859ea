// C++ source of a fused elementwise kernel (FusedElementwise, ops/fused/fused_elementwise.h).
//
// The kernel's entry point (extern "C", named after the kernel):
//   int <kernel_name>(const float* const* in, float* out, int64_t begin, int64_t end,
//                     int64_t* report, int* done)
// computes output elements [begin, end). The output is walked in blocks inside which every
// input is either one value or a contiguous run (operand_pattern.h), so the inner loop is plain
// loads, arithmetic and a store that the compiler vectorises. Returns 0, or with oom the trap
// code of CANN's CheckInvalidAccessOfDDR (0x5A5A0001 read / 0x5A5A0002 write) after writing
// {kind, operand, offset, size} to report. With check_flag its last instruction is the set_flag
// that the launching thread's wait_flag waits for (an atomic release store of 1 to *done).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ops/fused/operand_pattern.h"
#include "ops/fused/fused_elementwise.h"

namespace openge::compiler {

struct EltwiseKernelSpec {
  std::string kernel_name;  // a C identifier, also the base name of its files
  std::string node_name;    // the fused node (messages)
  EltwiseProgram program;
  std::vector<OperandPattern> inputs;    // one per node input
  std::vector<std::string> input_names;  // the values' names (messages, dump_loc)
  int64_t numel = 0;                     // output elements
};

struct CodegenOptions {
  bool oom = false;         // bounds-check every load and store (op_debug_config oom)
  bool check_flag = false;  // each chunk ends with its set_flag (op_debug_config check_flag)
  // TEST ONLY: shifts every read of input 0 / every write of the output by this many elements,
  // planting the out-of-bounds access that the oom tests must catch; drops the chunk's set_flag,
  // planting the synchronisation mismatch the check_flag tests must catch. Nothing outside tests
  // sets them.
  int64_t test_only_input0_shift = 0;
  int64_t test_only_output_shift = 0;
  bool test_only_drop_set_flag = false;
};

// One line of the source-to-graph map (dump_loc): which model node a source line computes.
struct SourceLoc {
  int line = 0;
  std::string node;
  std::string op;
};

int64_t block_size(const EltwiseKernelSpec& spec);

std::string generate_eltwise_source(const EltwiseKernelSpec& spec, const CodegenOptions& options,
                                    std::vector<SourceLoc>* locs = nullptr);

}  // namespace openge::compiler
