// Exception dump (OPT-enable_exception_dump-*, NPU-6..13, ENV-26/27, DISC-2/3) and
// stream_sync_timeout (OPT-stream_sync_timeout-1, MISC-17): a real model whose Gather gets an
// out-of-range index from its input data fails at run time (the reference kernel's bounds check),
// and the failing op's inputs and outputs land in the exception-dump folder of each tier of the
// chain, in folders created 0700, with the plog lines of the level asked for. A oneDNN matmul
// that times out adds its scratchpad to the dump as the op's workspace.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/omp_threads.h"
#include "dump/dump_convert.h"
#include "dump/dump_file.h"
#include "kernels/onednn_common.h"
#include "logging/log.h"
#include "runtime/demo_run_util.h"

namespace openge::dump::testing {
namespace {
namespace fs = std::filesystem;
using openge::test::options_from;
using options::EnvMap;
using options::test::TempDir;

void add_input(onnx::GraphProto* g, const std::string& name, int elem_type, const Shape& shape) {
  auto* in = g->add_input();
  in->set_name(name);
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  for (int64_t d : shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

// y = Gather(data float32 [4,3], idx int64 [2], axis 0), node "gather_bad".
std::string gather_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("gather");
  add_input(g, "data", onnx::TensorProto::FLOAT, {4, 3});
  add_input(g, "idx", onnx::TensorProto::INT64, {2});
  auto* n = g->add_node();
  n->set_op_type("Gather");
  n->set_name("gather_bad");
  n->add_input("data");
  n->add_input("idx");
  n->add_output("y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

// y = MatMul(a, b), both float32 [n,n], node "slow_matmul": 2n^3 flops, far above 1 ms for n=1024.
std::string matmul_model(int64_t n) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("matmul");
  add_input(g, "a", onnx::TensorProto::FLOAT, {n, n});
  add_input(g, "b", onnx::TensorProto::FLOAT, {n, n});
  auto* node = g->add_node();
  node->set_op_type("MatMul");
  node->set_name("slow_matmul");
  node->add_input("a");
  node->add_input("b");
  node->add_output("y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

// What oneDNN itself asks as scratchpad for an n x n by n x n float32 matmul of two run-time
// inputs (plain row-major, user scratchpad), planned on one thread as the session's kernel is.
size_t onednn_matmul_scratchpad_bytes(int64_t n) {
  using tag = dnnl::memory::format_tag;
  const dnnl::memory::desc md({n, n}, dnnl::memory::data_type::f32, tag::ab);
  ScopedNumThreads one(1);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(md, md, md), attr, onednn::cpu_engine())
      .scratchpad_desc()
      .get_size();
}

Tensor data_4x3() {
  Tensor t(DType::kFloat32, {4, 3});
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i) + 0.5f;
  return t;
}

Tensor indices(int64_t a, int64_t b) {
  Tensor t(DType::kInt64, {2});
  t.data<int64_t>()[0] = a;
  t.data<int64_t>()[1] = b;
  return t;
}

Result<std::vector<Tensor>> run_model(const std::string& model, const std::shared_ptr<const options::OptionSet>& config,
                                      const std::vector<Tensor>& inputs) {
  if (!config) return invalid_argument("the options are invalid");
  SessionOptions so;
  so.config = config;
  so.num_threads = 1;
  auto session = Session::open_from_memory(model.data(), model.size(), so, "exception_dump_test.onnx");
  if (!session.ok()) return session.status();
  return (*session)->run(inputs);
}

// Runs the Gather model with index 7 (of 4 rows) and returns the run's error.
Status run_bad_gather(const EnvMap& env, const std::string& cwd, const options::test::Flags& flags = {}) {
  auto out = run_model(gather_model(), options_from(env, cwd, flags), {data_4x3(), indices(1, 7)});
  EXPECT_FALSE(out.ok()) << "index 7 of 4 rows must fail";
  return out.ok() ? Status::Ok() : out.status();
}

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path());
  return out;
}

bool private_folder(const fs::path& dir) {
  return (fs::status(dir).permissions() & fs::perms::all) == fs::perms::owner_all;
}

// The one dump file of the failed Gather in `device_dir`, checked against the run's inputs: the
// data and indices byte for byte, and the output's dtype and shape as ONNX's Gather defines them.
void expect_gather_dump(const fs::path& device_dir) {
  const auto files = files_in(device_dir);
  ASSERT_EQ(files.size(), 1u) << device_dir;
  const std::string name = files[0].filename().string();
  EXPECT_EQ(name.rfind("Gather.gather_bad.0.0.", 0), 0u) << name;
  auto record = read_dump_file(files[0].string());
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->op_name, "gather_bad");
  ASSERT_EQ(record->inputs.size(), 2u);
  const Tensor data = data_4x3();
  EXPECT_EQ(record->inputs[0].shape(), (Shape{4, 3}));
  EXPECT_EQ(std::memcmp(record->inputs[0].raw(), data.raw(), data.nbytes()), 0);
  ASSERT_EQ(record->inputs[1].dtype(), DType::kInt64);
  EXPECT_EQ(record->inputs[1].data<int64_t>()[0], 1);
  EXPECT_EQ(record->inputs[1].data<int64_t>()[1], 7);
  ASSERT_EQ(record->outputs.size(), 1u);
  EXPECT_EQ(record->outputs[0].dtype(), DType::kFloat32);
  EXPECT_EQ(record->outputs[0].shape(), (Shape{2, 3}));
  EXPECT_TRUE(record->buffers.empty()) << "the reference Gather has no workspace";
}

// The error names the op, the bad index and the dump file.
void expect_error_names_op_and_file(const Status& st, const fs::path& device_dir) {
  EXPECT_NE(st.message().find("Gather 'gather_bad'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("7"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("exception dump of Gather 'gather_bad' written to " + device_dir.string() + "/"),
            std::string::npos)
      << st.message();
}

class ExceptionDump : public ::testing::Test {
 protected:
  void SetUp() override { logging::unconfigure(); }
  void TearDown() override { logging::unconfigure(); }
  TempDir d;
};

TEST_F(ExceptionDump, NPU_10_NpuCollectPathIsTheFirstTierAndTurnsTheDumpOn) {
  // NPU_COLLECT_PATH alone switches it on (NPU-6) and wins over ASCEND_WORK_PATH (ENV-27).
  const fs::path collect = d.path() + "/collect";  // missing: created (NPU-4)
  const Status st =
      run_bad_gather({{"NPU_COLLECT_PATH", collect.string()}, {"ASCEND_WORK_PATH", d.path() + "/work_path"}}, d.path());
  const fs::path device_dir = collect / "extra-info/data-dump/0";
  expect_gather_dump(device_dir);
  expect_error_names_op_and_file(st, device_dir);
  for (const fs::path& p : {collect, collect / "extra-info", collect / "extra-info/data-dump", device_dir})
    EXPECT_TRUE(private_folder(p)) << p << " must be created 0700: it holds user data";
  EXPECT_FALSE(fs::exists(d.path() + "/work_path/extra-info"));
  EXPECT_FALSE(fs::exists(d.path() + "/extra-info"));
}

TEST_F(ExceptionDump, ENV_26_WorkPathIsTheSecondTier) {
  const std::string work = d.dir("work_path");
  const Status st = run_bad_gather({{"ASCEND_WORK_PATH", work}}, d.path(), {{"enable_exception_dump", "1"}});
  const fs::path device_dir = fs::path(work) / "extra-info/data-dump/0";
  expect_gather_dump(device_dir);
  expect_error_names_op_and_file(st, device_dir);
  for (const fs::path& p : {fs::path(work) / "extra-info", fs::path(work) / "extra-info/data-dump", device_dir})
    EXPECT_TRUE(private_folder(p)) << p;
  EXPECT_FALSE(fs::exists(d.path() + "/extra-info"));
}

TEST_F(ExceptionDump, DISC_2_WorkingDirectoryIsTheDefaultTierWithTheDeviceFolder) {
  const Status st = run_bad_gather({}, d.path(), {{"enable_exception_dump", "2"}, {"device_id", "3"}});
  const fs::path device_dir = fs::path(d.path()) / "extra-info/data-dump/3";
  expect_gather_dump(device_dir);
  expect_error_names_op_and_file(st, device_dir);
  for (const fs::path& p : {fs::path(d.path()) / "extra-info", fs::path(d.path()) / "extra-info/data-dump", device_dir})
    EXPECT_TRUE(private_folder(p)) << p;
}

TEST_F(ExceptionDump, OPT_enable_exception_dump_2_OffWritesNothing) {
  const Status st = run_bad_gather({{"ASCEND_WORK_PATH", d.path() + "/work_path"}}, d.path());
  EXPECT_NE(st.message().find("Gather 'gather_bad'"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find("exception dump"), std::string::npos) << st.message();
  for (const auto& f : files_in(d.path()))  // the plog and atrace of the error are expected; no dump
    EXPECT_EQ(f.string().find("extra-info"), std::string::npos) << f;
}

TEST_F(ExceptionDump, OPT_enable_exception_dump_3_HealthyRunWritesNothing) {
  auto out = run_model(gather_model(), options_from({}, d.path(), {{"enable_exception_dump", "1"}}),
                       {data_4x3(), indices(3, -4)});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // Rows 3 and -4 (= 0) of data, by hand: 9.5 10.5 11.5 and 0.5 1.5 2.5.
  EXPECT_EQ((*out)[0].data<float>()[0], 9.5f);
  EXPECT_EQ((*out)[0].data<float>()[5], 2.5f);
  EXPECT_FALSE(fs::exists(d.path() + "/extra-info"));
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// L1 prints each tensor's dtype, shape and format to the plog with the op and kernel (NPU-13);
// lite prints one line naming the op and the file.
TEST_F(ExceptionDump, NPU_13_L1LogsEachTensorLiteOnlyTheFile) {
  for (const char* level : {"1", "2"}) {
    const std::string logs = d.dir(std::string("log") + level);
    const Status st = run_bad_gather({{"ASCEND_PROCESS_LOG_PATH", logs}}, d.dir(std::string("cwd") + level),
                                     {{"enable_exception_dump", level}});
    ASSERT_FALSE(logging::current_log_file().empty());
    const std::string text = read_all(logging::current_log_file());
    const bool l1 = std::string(level) == "1";
    EXPECT_NE(text.find(l1 ? "exception dump (L1) of Gather 'gather_bad' (task 0), kernel on AI_"
                           : "exception dump (lite, L0) of Gather 'gather_bad' (task 0)"),
              std::string::npos)
        << text;
    const bool has_tensors = text.find("input 0 float32 [4,3] ND, 48 bytes") != std::string::npos &&
                             text.find("input 1 int64 [2] ND, 16 bytes") != std::string::npos &&
                             text.find("output 0 float32 [2,3] ND, 24 bytes") != std::string::npos;
    EXPECT_EQ(has_tensors, l1) << level << "\n" << text;
    logging::unconfigure();
  }
}

TEST_F(ExceptionDump, OPT_stream_sync_timeout_1_ExpiredRunNamesTheRunningOpAndDumpsIt) {
  const int64_t n = 1024;
  Tensor a(DType::kFloat32, {n, n}), b(DType::kFloat32, {n, n});
  auto out =
      run_model(matmul_model(n),
                options_from({}, d.path(), {{"stream_sync_timeout", "1"}, {"enable_exception_dump", "2"}}), {a, b});
  ASSERT_FALSE(out.ok()) << "2 GFLOP cannot take under 1 ms";
  const std::string msg = out.status().message();
  EXPECT_NE(msg.find("stream_sync_timeout=1 ms expired while MatMul 'slow_matmul' (task 0 of 1) was running"),
            std::string::npos)
      << msg;
  const auto files = files_in(fs::path(d.path()) / "extra-info/data-dump/0");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename().string().rfind("MatMul.slow_matmul.0.0.", 0), 0u);
  // The default (-1) never times out (MISC-17).
  auto ok = run_model(matmul_model(64), options_from({}, d.path()),
                      {Tensor(DType::kFloat32, {64, 64}), Tensor(DType::kFloat32, {64, 64})});
  EXPECT_TRUE(ok.ok()) << ok.status().message();
}

// Both levels dump the workspace (CANN's brief dump holds inputs, outputs and workspace); L1 also
// logs its size. The timed-out matmul's file holds its scratchpad: exactly the bytes oneDNN asks
// for that matmul, after the two inputs and the output, and the file converts to .npy.
TEST_F(ExceptionDump, NPU_12_TimedOutOneDnnKernelDumpsItsScratchpadAsWorkspaceAtBothLevels) {
  const int64_t n = 768;  // 0.9 GFLOP: far above 1 ms
  const size_t scratchpad = onednn_matmul_scratchpad_bytes(n);
  ASSERT_GT(scratchpad, 0u) << "this matmul must have a scratchpad for the test to mean anything";
  Tensor a(DType::kFloat32, {n, n}), b(DType::kFloat32, {n, n});
  for (int64_t i = 0; i < a.numel(); ++i) {
    a.data<float>()[i] = static_cast<float>(i % 7);
    b.data<float>()[i] = static_cast<float>(i % 5);
  }
  for (const char* level : {"1", "2"}) {
    const std::string cwd = d.dir(std::string("mm") + level);
    auto out = run_model(matmul_model(n),
                         options_from({{"ASCEND_PROCESS_LOG_PATH", d.dir(std::string("mmlog") + level)}}, cwd,
                                      {{"stream_sync_timeout", "1"}, {"enable_exception_dump", level}}),
                         {a, b});
    ASSERT_FALSE(out.ok()) << "0.9 GFLOP cannot take under 1 ms";
    EXPECT_NE(out.status().message().find("expired while MatMul 'slow_matmul'"), std::string::npos)
        << out.status().message();
    const auto files = files_in(fs::path(cwd) / "extra-info/data-dump/0");
    ASSERT_EQ(files.size(), 1u) << level;
    auto record = read_dump_file(files[0].string());
    ASSERT_TRUE(record.ok()) << record.status().message();
    ASSERT_EQ(record->buffers.size(), 1u) << level;
    EXPECT_EQ(record->buffers[0].nbytes(), scratchpad) << level;
    ASSERT_EQ(record->inputs.size(), 2u);
    EXPECT_EQ(std::memcmp(record->inputs[1].raw(), b.raw(), b.nbytes()), 0);
    const uint64_t tensor_bytes = 3 * a.nbytes();
    EXPECT_GT(fs::file_size(files[0]), tensor_bytes + scratchpad) << "8 + header + tensors + workspace";
    EXPECT_LT(fs::file_size(files[0]), tensor_bytes + scratchpad + 1024);
    const std::string text = read_all(logging::current_log_file());
    const bool logged =
        text.find("'slow_matmul' (task 0): workspace 0 " + std::to_string(scratchpad) + " bytes") != std::string::npos;
    EXPECT_EQ(logged, std::string(level) == "1") << level << "\n" << text;
    auto converted = convert_dumps_to_npy(cwd + "/extra-info", cwd + "/npy");
    ASSERT_TRUE(converted.ok()) << converted.status().message();
    EXPECT_EQ(converted->npy_files, 3) << "a, b and y; the workspace is not a tensor";
    logging::unconfigure();
  }
}

// NPU_COLLECT_PATH collects the L1 exception dump only (NPU-9); a Data Dump the user asks for
// still goes to its dump_path, never into NPU_COLLECT_PATH (AMB-39).
TEST_F(ExceptionDump, NPU_9_AMB_39_CollectPathAddsOnlyTheL1ExceptionDump) {
  const fs::path collect = d.path() + "/collect";
  const std::string dumps = d.dir("dumps");
  const EnvMap env = {{"NPU_COLLECT_PATH", collect.string()}, {"ASCEND_PROCESS_LOG_PATH", d.dir("logs")}};
  const options::test::Flags flags = {{"dump_config.enable_dump", "True"}, {"dump_config.dump_path", dumps}};
  auto healthy = run_model(gather_model(), options_from(env, d.path(), flags), {data_4x3(), indices(0, 1)});
  ASSERT_TRUE(healthy.ok()) << healthy.status().message();
  EXPECT_NE(run_bad_gather(env, d.path(), flags).message().find("exception dump of Gather"), std::string::npos);
  const auto collected = files_in(collect);
  ASSERT_EQ(collected.size(), 1u) << "the exception dump and nothing else";
  EXPECT_EQ(collected[0].parent_path(), collect / "extra-info/data-dump/0");
  EXPECT_FALSE(files_in(dumps).empty()) << "the healthy run's Data Dump goes to dump_path";
  const std::string text = read_all(logging::current_log_file());
  EXPECT_NE(text.find("exception dump (L1) of Gather 'gather_bad'"), std::string::npos) << text;
  EXPECT_NE(text.find("input 0 float32 [4,3] ND, 48 bytes"), std::string::npos) << "L1 describes each tensor";
}

}  // namespace
}  // namespace openge::dump::testing
