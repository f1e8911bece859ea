// The run-time checks of op_debug_config on a real generated kernel: oom's two trap codes and
// their messages (CANN's CheckInvalidAccessOfDDR: 0X5A5A0001 read, 0X5A5A0002 write), and
// check_flag's pipeline synchronisation: a chunk whose set_flag never comes ends, after the
// timeout, in CANN's two messages at the faulty operator. The faults are planted by the code
// generator's test-only switches. Each TEST builds one or two kernels with g++.
#include <gtest/gtest.h>

#include <chrono>

#include "compiler/codegen_eltwise.h"
#include "compiler/online_compiler.h"
#include "fused_model_test_util.h"

namespace openge::testing {
namespace {
using options::test::TempDir;

struct Planted {
  Node node;
  compiler::KernelRequest request;
};

// y = Relu(x + 1) on [4, 8] as one fused node named "planted".
Planted planted_node() {
  Planted p;
  p.node.name = "planted";
  p.node.op_type = kFusedElementwise;
  p.node.inputs = {0, 1};
  EltwiseProgram program;
  program.steps = {{"Add", {0, 1}, 0, 0, "add_1", ""}, {"Relu", {-1}, 0, 0, "relu_1", ""}};
  write_eltwise_program(p.node, program);
  p.request = compiler::KernelRequest{&p.node, {{4, 8}, {}}, {"x", "one"}, {4, 8}};
  return p;
}

// Builds the kernel with `debug_flags` and the planted fault, runs it once.
Status run_planted(const TempDir& d, std::vector<std::string> debug_flags, const compiler::CodegenOptions& fault,
                   int64_t timeout_ms = 10000) {
  Planted p = planted_node();
  compiler::JitSettings settings;
  settings.decision.online = true;
  settings.compiler = "g++";
  settings.debug.config.flags.insert(debug_flags.begin(), debug_flags.end());
  settings.debug.check_flag_timeout_ms = timeout_ms;
  settings.kernel_meta.path = d.path() + "/kernel_meta";
  auto kernels = compiler::compile_kernels({p.request}, settings, &fault);
  if (!kernels.ok()) return kernels.status();
  Tensor in = random_tensor({4, 8}, 5), one = scalar(1.0f), out(DType::kFloat32, {4, 8});
  KernelContext ctx(p.node, 13, {&in, &one}, {&out});
  return (*kernels)[0]->run(ctx);
}

TEST(OpDebugChecks, OPT_op_debug_config_4_ReadTrapCodeAndMessage_Compiles) {
  TempDir d;
  compiler::CodegenOptions fault;
  fault.test_only_input0_shift = 1;
  const Status s = run_planted(d, {"oom"}, fault);
  ASSERT_FALSE(s.ok());
  const std::string msg = s.message();
  EXPECT_NE(msg.find("EZ9999: out-of-bounds Global Memory access"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(trap 0X5A5A0001, op_debug_config oom)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("read of input 0 ('x') at element 32 of a tensor of 32 elements"), std::string::npos) << msg;
}

TEST(OpDebugChecks, OPT_op_debug_config_4_WriteTrapCodeAndMessage_Compiles) {
  TempDir d;
  compiler::CodegenOptions fault;
  fault.test_only_output_shift = 3;
  const Status s = run_planted(d, {"oom"}, fault);
  ASSERT_FALSE(s.ok());
  const std::string msg = s.message();
  EXPECT_NE(msg.find("(trap 0X5A5A0002, op_debug_config oom)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("write of the output at element 32 of a tensor of 32 elements"), std::string::npos) << msg;
  EXPECT_NE(msg.find("FusedElementwise 'planted' (ops Add 'add_1', Relu 'relu_1')"), std::string::npos) << msg;
}

// A set_flag that never comes: the wait gives up after the timeout, not at once, and says so in
// CANN's two messages naming the kernel and the node. Without the fault the same check passes.
TEST(OpDebugChecks, OPT_op_debug_config_12_13_CheckFlagTimesOutOnAMissingSetFlag_Compiles) {
  TempDir d;
  compiler::CodegenOptions fault;
  fault.test_only_drop_set_flag = true;
  const auto start = std::chrono::steady_clock::now();
  const Status s = run_planted(d, {"check_flag"}, fault, /*timeout_ms=*/300);
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(s.ok());
  const std::string msg = s.message();
  EXPECT_NE(msg.find("Aicore kernel execute failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fault kernel_name=te_fused_add_relu_"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'planted'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rtStreamSynchronizeWithTimeout execute failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("after 300 ms chunk 0 of 1 has not set its flag"), std::string::npos) << msg;
  EXPECT_GE(waited, std::chrono::milliseconds(300)) << "the check gave up before its timeout";
  // The same kernel source with its set_flag: the wait sees it and the run passes.
  EXPECT_TRUE(run_planted(d, {"check_flag"}, compiler::CodegenOptions{}, 300).ok());
}

// check_flag's timeout is stream_sync_timeout when that is set.
TEST(OpDebugChecks, OPT_op_debug_config_13_CheckFlagTimeoutFollowsStreamSyncTimeout) {
  TempDir d;
  const std::string cfg = d.file("a.cfg", "op_debug_config = check_flag\n");
  auto settings = compiler::read_debug_settings(*fused::config({{"op_debug_config", cfg}}));
  ASSERT_TRUE(settings.ok()) << settings.status().message();
  EXPECT_EQ(settings->check_flag_timeout_ms, 10000);
  settings = compiler::read_debug_settings(*fused::config({{"op_debug_config", cfg}, {"stream_sync_timeout", "1500"}}));
  ASSERT_TRUE(settings.ok());
  EXPECT_EQ(settings->check_flag_timeout_ms, 1500);
  EXPECT_TRUE(settings->config.has("check_flag"));
}

}  // namespace
}  // namespace openge::testing
