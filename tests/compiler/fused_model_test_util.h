// Models with fusable vector-op groups for the online-compiler tests, their compile with given
// options, and a counting stand-in for the system compiler: a script that records each build and
// then runs g++, so a test sees how often the compiler really ran (cache hits run nothing).
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../kernels/kernel_test_util.h"
#include "compiler/compile_config_test_util.h"
#include "../options/options_test_util.h"
#include "../passes/pass_test_util.h"
#include "ops/fused/fused_elementwise.h"
#include "options/option_set.h"
#include "compiler/pipeline.h"

namespace openge::testing::fused {

struct Model {
  Graph graph;
  std::vector<Shape> input_shapes;
};

// Two fusable groups on N x C x H x W = 2 x 3 x 5 x 7:
//   y = Max(Relu((x + bias_c) * 2) - z, LeakyRelu(z))     exact ops; bias per channel ([3,1,1])
//   w = Sigmoid(y) * Tanh(y * row)                          libm vs the reference approximations;
//                                                           row on the last axis ([7])
// y is a graph output and read by the second group, so the two groups stay apart.
inline Model two_groups(bool dynamic = false) {
  GraphBuilder b;
  const int x = b.input("x"), z = b.input("z");
  const int bias = b.constant("bias_c", random_tensor({3, 1, 1}, 11));
  int t = b.node("Add", {x, bias});
  t = b.node("Mul", {t, b.constant("two", scalar(2.0f))});
  t = b.node("Relu", {t});
  t = b.node("Sub", {t, z});
  const int lz = b.node("LeakyRelu", {z}, float_attr("alpha", 0.25f));
  const int y = b.node("Max", {t, lz});
  const int s = b.node("Sigmoid", {y});
  const int r = b.node("Mul", {y, b.constant("row", random_tensor({7}, 12))});
  const int th = b.node("Tanh", {r});
  const int w = b.node("Mul", {s, th});
  b.g.outputs = {y, w};
  const Shape shape = {2, 3, 5, 7};
  for (int v : {x, z}) {
    b.g.values[static_cast<size_t>(v)].dtype = DType::kFloat32;
    b.g.values[static_cast<size_t>(v)].shape = dynamic ? Shape{-1, 3, 5, 7} : shape;
  }
  return {std::move(b.g), {shape, shape}};
}

// One group, one kernel (the cheapest compile): y = Relu((x + 1) * 0.5), x [4, 8].
inline Model one_group() {
  GraphBuilder b;
  const int x = b.input("x");
  int t = b.node("Add", {x, b.constant("one", scalar(1.0f))});
  t = b.node("Mul", {t, b.constant("half", scalar(0.5f))});
  t = b.node("Relu", {t});
  b.g.outputs = {t};
  b.g.values[static_cast<size_t>(x)].dtype = DType::kFloat32;
  b.g.values[static_cast<size_t>(x)].shape = Shape{4, 8};
  return {std::move(b.g), {{4, 8}}};
}

inline std::shared_ptr<const options::OptionSet> config(const options::test::Flags& flags,
                                                        const options::EnvMap& env = {}) {
  auto r = options::test::build(flags, env);
  EXPECT_TRUE(r.errors.empty()) << options::test::dump_errors(r);
  return r.options ? std::make_shared<const options::OptionSet>(std::move(*r.options)) : nullptr;
}

inline Result<std::unique_ptr<Executable>> try_compile(Model m, std::shared_ptr<const options::OptionSet> cfg,
                                                       bool passes = true) {
  CompileOptions o;
  o.num_threads = 2;
  o.run_passes = passes;
  o.config = openge::test::compile_config(cfg);
  return compiler::compile(std::move(m.graph), m.input_shapes, o);
}

inline std::unique_ptr<Executable> compile(Model m, std::shared_ptr<const options::OptionSet> cfg, bool passes = true) {
  auto exe = try_compile(std::move(m), std::move(cfg), passes);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  return exe.ok() ? std::move(exe.value()) : nullptr;
}

inline std::vector<Tensor> run(const Executable& exe, const std::vector<Tensor>& inputs) {
  auto out = exe.run(inputs);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(out.value()) : std::vector<Tensor>{};
}

inline std::vector<const CompiledNode*> fused_nodes(const Executable& exe) {
  std::vector<const CompiledNode*> out;
  for (const CompiledNode& n : exe.nodes())
    if (n.node.op_type == kFusedElementwise) out.push_back(&n);
  return out;
}

inline bool bitwise_equal(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data<float>(), b.data<float>(), a.numel() * sizeof(float)) == 0;
}

// A compiler (for CXX) that appends one line to `<dir>/cxx_runs.log` per build (not per
// --version query) and then runs g++ with the same arguments.
inline std::string counting_compiler(const std::string& dir) {
  const std::string path = dir + "/counting-cxx";
  {
    std::ofstream f(path);
    f << "#!/bin/sh\n"
         "[ \"$1\" = --version ] || echo build >> '"
      << dir
      << "/cxx_runs.log'\n"
         "exec g++ \"$@\"\n";
  }
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

inline int compiler_runs(const std::string& dir) {
  std::ifstream in(dir + "/cxx_runs.log");
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line == "build";
  return n;
}

// Files of `dir` (not recursive) whose name ends with `suffix`.
inline int count_files(const std::string& dir, const std::string& suffix) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    n += name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  return n;
}

}  // namespace openge::testing::fused
