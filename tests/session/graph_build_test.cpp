// The graph-build and operator-compile entry points (aclgrphBuildInitialize, aclgrphBuildModel,
// aclSetCompileopt): kernel_meta of a debug compile goes to DEBUG_DIR / ACL_DEBUG_DIR >
// ASCEND_WORK_PATH > the working folder, each case compiled for real.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "../options/options_test_util.h"
#include "openge/graph_build.h"

namespace openge {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

// y = Sigmoid(Relu(x + x)), x float32 [1, 256]: one fused group of vector ops, compiled online.
std::string write_eltwise_model(const std::string& path) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("eltwise");
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(1);
  tt->mutable_shape()->add_dim()->set_dim_value(256);
  const char* ops[][3] = {{"Add", "x", "a"}, {"Relu", "a", "r"}, {"Sigmoid", "r", "y"}};
  for (const auto& op : ops) {
    auto* n = g->add_node();
    n->set_op_type(op[0]);
    n->set_name(std::string(op[0]) + "_node");
    n->add_input(op[1]);
    if (std::string(op[0]) == "Add") n->add_input(op[1]);
    n->add_output(op[2]);
  }
  g->add_output()->set_name("y");
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

// Where a build put kernel_meta folders that hold a kernel binary.
std::vector<fs::path> kernel_metas(const std::string& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory() && it->path().filename() == "kernel_meta")
      for (const auto& f : fs::directory_iterator(it->path()))
        if (f.path().extension() == ".so") {
          out.push_back(it->path());
          break;
        }
  return out;
}

struct Place {
  TempDir dir;
  std::string model = write_eltwise_model(dir.path() + "/eltwise.onnx");
  std::string cwd = dir.dir("cwd"), work = dir.path() + "/work", debug = dir.dir("debug");
  BuildPlace place(bool with_work_path) const {
    BuildPlace p{options::capture_process_environment(), cwd};
    p.env.erase("ASCEND_WORK_PATH");
    if (with_work_path) p.env["ASCEND_WORK_PATH"] = work;
    return p;
  }
  // The one kernel_meta with a binary under the test folder, or "" when there is not exactly one.
  std::string only_kernel_meta() const {
    const auto all = kernel_metas(dir.path());
    return all.size() == 1 ? all[0].string() : "";
  }
};

const BuildOptions kDebugCompile = {{"op_debug_level", "1"}};

BuildOptions with(BuildOptions o, const std::string& key, const std::string& value) {
  o[key] = value;
  return o;
}

// aclgrphBuildInitialize's DEBUG_DIR (ENV-20), three tiers.
TEST(GraphBuild, ENV_20_InitializeDebugDirWinsOverWorkPath) {
  Place p;
  auto b = GraphBuilder::initialize(with(kDebugCompile, "DEBUG_DIR", p.debug), p.place(true));
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_TRUE(b->build_model(p.model, p.dir.path() + "/m.oge").ok());
  EXPECT_EQ(p.only_kernel_meta(), p.debug + "/kernel_meta");
}

TEST(GraphBuild, ENV_20_WorkPathWhenInitializeHasNoDebugDir) {
  Place p;
  auto b = GraphBuilder::initialize(kDebugCompile, p.place(true));
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_TRUE(b->build_model(p.model, p.dir.path() + "/m.oge").ok());
  EXPECT_EQ(p.only_kernel_meta(), p.work + "/kernel_meta");
}

TEST(GraphBuild, ENV_20_DefaultIsTheWorkingFolder) {
  Place p;
  auto b = GraphBuilder::initialize(kDebugCompile, p.place(false));
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_TRUE(b->build_model(p.model, p.dir.path() + "/m.oge").ok());
  EXPECT_EQ(p.only_kernel_meta(), p.cwd + "/kernel_meta");
}

// aclgrphBuildModel's DEBUG_DIR (ENV-21), three tiers; the GE key ge.debugDir is DEBUG_DIR's value.
TEST(GraphBuild, ENV_21_BuildModelDebugDirWinsOverWorkPath) {
  Place p;
  auto b = GraphBuilder::initialize(kDebugCompile, p.place(true));
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_TRUE(b->build_model(p.model, p.dir.path() + "/m.oge", {{"ge.debugDir", p.debug}}).ok());
  EXPECT_EQ(p.only_kernel_meta(), p.debug + "/kernel_meta");
}

TEST(GraphBuild, ENV_21_WorkPathWhenBuildModelHasNoDebugDir) {
  Place p;
  auto b = GraphBuilder::initialize({}, p.place(true));
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_TRUE(b->build_model(p.model, p.dir.path() + "/m.oge", kDebugCompile).ok());
  EXPECT_EQ(p.only_kernel_meta(), p.work + "/kernel_meta");
}

TEST(GraphBuild, ENV_21_DefaultIsTheWorkingFolder) {
  Place p;
  auto b = GraphBuilder::initialize({}, p.place(false));
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_TRUE(b->build_model(p.model, p.dir.path() + "/m.oge", kDebugCompile).ok());
  EXPECT_EQ(p.only_kernel_meta(), p.cwd + "/kernel_meta");
}

// AMB-8: both set, the model's DEBUG_DIR wins over initialize's.
TEST(GraphBuild, ENV_21_BuildModelDebugDirWinsOverInitialize) {
  Place p;
  auto b = GraphBuilder::initialize(with(kDebugCompile, "DEBUG_DIR", p.dir.dir("global")), p.place(false));
  ASSERT_TRUE(b.ok()) << b.status().message();
  auto where = b->kernel_meta_folder({{"DEBUG_DIR", p.debug}});
  ASSERT_TRUE(where.ok());
  EXPECT_EQ(where->first, p.debug + "/kernel_meta");
  ASSERT_TRUE(b->build_model(p.model, p.dir.path() + "/m.oge", {{"DEBUG_DIR", p.debug}}).ok());
  EXPECT_EQ(p.only_kernel_meta(), p.debug + "/kernel_meta");
}

// aclSetCompileopt's ACL_DEBUG_DIR (ENV-22), three tiers.
TEST(GraphBuild, ENV_22_AclDebugDirWinsOverWorkPath) {
  Place p;
  auto r = compile_with_compile_opts(p.model, p.dir.path() + "/m.oge",
                                     {{"ACL_DEBUG_DIR", p.debug}, {"ACL_OP_DEBUG_LEVEL", "1"}}, p.place(true));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(p.only_kernel_meta(), p.debug + "/kernel_meta");
}

TEST(GraphBuild, ENV_22_WorkPathWithoutAclDebugDir) {
  Place p;
  auto r = compile_with_compile_opts(p.model, p.dir.path() + "/m.oge", {{"ACL_OP_DEBUG_LEVEL", "1"}}, p.place(true));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(p.only_kernel_meta(), p.work + "/kernel_meta");
}

TEST(GraphBuild, ENV_22_DefaultIsTheWorkingFolder) {
  Place p;
  auto r = compile_with_compile_opts(p.model, p.dir.path() + "/m.oge", {{"ACL_OP_DEBUG_LEVEL", "1"}}, p.place(false));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(p.only_kernel_meta(), p.cwd + "/kernel_meta");
}

TEST(GraphBuild, AWrongOptionIsOneErrorNamingIt) {
  Place p;
  auto b = GraphBuilder::initialize({{"ACL_PRECISION_MODE", "fastest"}}, p.place(false));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("precision_mode"), std::string::npos) << b.status().message();
}

}  // namespace
}  // namespace openge
