// `openge compare`: op-by-op comparison of two Data Dumps. Expected errors and
// cosines are worked out by hand from the tensors written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "openge/dump_compare.h"
#include "dump/dump_file.h"
#include "dump/dump_test_util.h"
#include "openge/tensor_files.h"

namespace openge::dump::testing {
namespace {

Tensor floats(const std::vector<float>& values) {
  Tensor t(DType::kFloat32, {static_cast<int64_t>(values.size())});
  std::memcpy(t.raw(), values.data(), values.size() * sizeof(float));
  return t;
}

void write_op(const std::string& dir, const std::string& type, const std::string& name, int task,
              std::vector<float> values, const std::string& model_node = "", const std::string& iteration = "0") {
  DumpRecord r;
  r.op_name = name;
  if (!model_node.empty()) r.original_outputs.push_back({model_node, 0});
  Tensor t(DType::kFloat32, {static_cast<int64_t>(values.size())});
  std::memcpy(t.raw(), values.data(), values.size() * sizeof(float));
  r.outputs.push_back(t);
  fs::create_directories(dir + "/" + iteration);
  ASSERT_TRUE(
      write_dump_file(dir + "/" + iteration + "/" + type + "." + name + "." + std::to_string(task) + ".0.17", r).ok());
}

// Golden data ({node}.{index}[.{timestamp}].npy) meets a dump's first iteration by the model node
// in each output's OriginalOp: a fused op by the merged node it computes (its name written with
// '_' for '.'), another op by its own name.
TEST(DumpCompare, GoldenFolderMeetsTheDumpByModelNode) {
  const std::string dump = scratch_dir("cmp_golden_dump"), golden = scratch_dir("cmp_golden");
  write_op(dump, "FusedElementwise", "fused", 0, {1, 2}, "node.b");
  write_op(dump, "MatMul", "mm", 1, {1, 2});
  write_op(dump, "MatMul", "mm", 1, {9, 9}, "", "1");  // iteration 1: not compared with golden data
  ASSERT_TRUE(write_npy(floats({1, 2}), golden + "/node_b.0.npy").ok());
  ASSERT_TRUE(write_npy(floats({1, 2.1f}), golden + "/mm.0.1733000000.npy").ok());
  ASSERT_TRUE(write_npy(floats({5}), golden + "/fused.0.npy").ok());  // merged away
  ASSERT_TRUE(write_npy(floats({5}), golden + "/notes.npy").ok());    // no golden name
  auto r = compare_dumps(dump, golden, 0.01);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->kind_a, "Data Dump");
  EXPECT_EQ(r->kind_b, "golden .npy folder");
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0].model_node, "node.b");
  EXPECT_EQ(r->rows[0].max_abs_error, 0.0);
  EXPECT_EQ(r->rows[1].model_node, "mm");
  EXPECT_NEAR(r->rows[1].max_rel_error, 0.05, 1e-6);  // 0.1 / 2
  ASSERT_TRUE(r->first_exceeding.has_value());
  EXPECT_EQ(*r->first_exceeding, 1u);
  EXPECT_EQ(r->ops_only_in_b, std::vector<std::string>{"'fused' output 0"});
  EXPECT_TRUE(r->ops_only_in_a.empty());
  EXPECT_NE(r->warning.find("holds 2 iterations; compared iteration 0"), std::string::npos) << r->warning;
  EXPECT_NE(r->warning.find("notes.npy"), std::string::npos) << r->warning;
  const std::string line = first_deviation_line(*r);
  EXPECT_NE(line.find("model node 'mm'"), std::string::npos) << line;
  EXPECT_NE(line.find("the output before it ('node.b') had max rel error 0"), std::string::npos) << line;
  // Golden data as A: the rows still follow the dump's execution order, errors relative to A.
  auto swapped = compare_dumps(golden, dump, 0.01);
  ASSERT_TRUE(swapped.ok()) << swapped.status().message();
  ASSERT_EQ(swapped->rows.size(), 2u);
  EXPECT_EQ(swapped->rows[1].model_node, "mm");
  EXPECT_NEAR(swapped->rows[1].max_rel_error, 0.1 / 2.1, 1e-6);
  EXPECT_EQ(swapped->ops_only_in_a, std::vector<std::string>{"'fused' output 0"});
}

TEST(DumpCompare, IssueTen_9_FirstOpOverTheThresholdByHand) {
  const std::string a = scratch_dir("cmp_a"), b = scratch_dir("cmp_b");
  write_op(a, "Relu", "first", 0, {1, 2});
  write_op(b, "Relu", "first", 0, {1, 2});
  write_op(a, "MatMul", "second", 1, {1, 2});
  write_op(b, "MatMul", "second", 3, {1, 2.04f});  // another task id: matched by name
  write_op(a, "Add", "third", 2, {4, -4});
  write_op(b, "Add", "third", 4, {2, -4});
  write_op(a, "Neg", "only_in_a", 3, {1});
  write_op(b, "Cast", "cast_added_in_b", 1, {1});
  write_op(b, "Cast", "cast_added_first", 0, {1});
  auto r = compare_dumps(a, b, 0.01);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 3u);
  EXPECT_EQ(r->only_in_a, 1);
  EXPECT_EQ(r->only_in_b, 2);
  EXPECT_EQ(r->ops_only_in_a, std::vector<std::string>{"Neg 'only_in_a' (iteration 0)"});
  EXPECT_EQ(r->ops_only_in_b, (std::vector<std::string>{"Cast 'cast_added_first' (iteration 0)",
                                                        "Cast 'cast_added_in_b' (iteration 0)"}));  // task order
  EXPECT_EQ(r->rows[0].op_name, "first");
  EXPECT_EQ(r->rows[0].cosine, 1.0);
  EXPECT_EQ(r->rows[0].max_abs_error, 0.0);
  const auto& second = r->rows[1];
  EXPECT_EQ(second.op_name, "second");
  EXPECT_NEAR(second.max_abs_error, 0.04, 1e-6);
  EXPECT_NEAR(second.max_rel_error, 0.02, 1e-6);  // 0.04 / max |A| = 2
  EXPECT_NEAR(second.cosine, (1 + 2 * 2.04) / (std::sqrt(5.0) * std::sqrt(1 + 2.04 * 2.04)), 1e-6);
  ASSERT_TRUE(r->first_exceeding.has_value());
  EXPECT_EQ(*r->first_exceeding, 1u) << "'second' is the first op above 1 %";
  EXPECT_NEAR(r->rows[2].max_rel_error, 0.5, 1e-9);  // |4 - 2| / 4
  auto loose = compare_dumps(a, b, 0.6);
  ASSERT_TRUE(loose.ok());
  EXPECT_FALSE(loose->first_exceeding.has_value());
  const std::string csv = comparison_csv(*r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "Iteration,Op Name,Op Type,Task ID,Output,Shape,Cosine Similarity,Max Abs Error,Max Rel Error,Exceeds,Note,"
            "Model Node");
  EXPECT_NE(csv.find("\n0,\"second\",\"MatMul\",1,0,\"2\","), std::string::npos) << csv;
}

// A dump path that two runs wrote into holds two timestamp folders with the same iterations and
// op names: the newest run is compared, never a mix of both, and the warning names the runs.
TEST(DumpCompare, SeveralRunsInOneDumpPathAreNamedAndTheNewestCompared) {
  const std::string a = scratch_dir("cmp_runs_a"), b = scratch_dir("cmp_runs_b");
  write_op(a + "/20261207101500", "Relu", "r", 0, {1, 2});  // an older run: would deviate
  write_op(a + "/20261207111500", "Relu", "r", 0, {4, 5});
  write_op(b + "/20261207111600", "Relu", "r", 0, {4, 5});
  auto r = compare_dumps(a, b, 0.01);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0].max_abs_error, 0.0) << "the older run's file was compared";
  EXPECT_NE(r->warning.find("holds the dumps of 2 runs (20261207101500 20261207111500)"), std::string::npos)
      << r->warning;
  EXPECT_NE(r->warning.find("compared the newest, 20261207111500"), std::string::npos) << r->warning;
  auto one = compare_dumps(a + "/20261207111500", b, 0.01);  // one run's folder given: no warning
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->warning, "");
}

TEST(DumpCompare, IssueTen_9_BadFoldersGetClearErrors) {
  const std::string empty = scratch_dir("cmp_empty");
  auto r = compare_dumps(empty, empty, 0.01);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no dump files"), std::string::npos) << r.status().message();
  r = compare_dumps(empty + "/missing", empty, 0.01);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is not a folder"), std::string::npos) << r.status().message();
}

TEST(DumpCompare, FolderHoldingSeveralRunsGetsOneWarningLine) {
  // Two runs (model id folders 1 and 2) of the same model below one folder: their files are
  // matched across runs, so the result may be wrong and says so.
  const std::string mixed = scratch_dir("cmp_two_runs"), single = scratch_dir("cmp_one_run");
  write_op(mixed + "/1", "Relu", "first", 0, {1, 2});
  write_op(mixed + "/2", "Relu", "first", 0, {5, 6});
  write_op(single + "/1", "Relu", "first", 0, {1, 2});
  auto r = compare_dumps(single, mixed, 0.01);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NE(r->warning.find("B (" + mixed + ") holds the dumps of 2 runs"), std::string::npos) << r->warning;
  EXPECT_EQ(r->warning.find('\n'), std::string::npos) << "one line";
  auto clean = compare_dumps(single, single, 0.01);
  ASSERT_TRUE(clean.ok());
  EXPECT_EQ(clean->warning, "");
}

std::string dump_demo_with(const std::string& root, const Flags& extra) {
  Flags flags = {{"dump_config.enable_dump", "True"}, {"dump_config.dump_path", root}};
  flags.insert(flags.end(), extra.begin(), extra.end());
  SessionOptions so;
  so.config = make_options(flags);
  so.num_threads = 1;
  auto session = Session::open(kDemoModel, so);
  EXPECT_TRUE(session.ok());
  if (!session.ok()) return "";
  EXPECT_TRUE((*session)->run(demo_inputs(**session)).ok());
  EXPECT_TRUE((*session)->flush_dump().ok());
  return (*session)->dump_dir();
}

TEST(DumpCompare, IssueTen_9_Float32AgainstMixedPrecisionNamesTheFirstDeviatingOp) {
  const std::string fp32 = dump_demo_with(scratch_dir("cmp_fp32"), {});
  const std::string again = dump_demo_with(scratch_dir("cmp_fp32_again"), {});
  const std::string mixed = dump_demo_with(scratch_dir("cmp_mixed"), {{"precision_mode", "allow_mix_precision"}});
  auto same = compare_dumps(fp32, again, 0.0);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_FALSE(same->first_exceeding.has_value()) << "two float32 runs are identical";
  for (const auto& row : same->rows) EXPECT_EQ(row.max_abs_error, 0.0) << row.op_name;
  auto diff = compare_dumps(fp32, mixed, 1e-4);
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  ASSERT_TRUE(diff->first_exceeding.has_value());
  const auto& first = diff->rows[*diff->first_exceeding];
  EXPECT_LT(first.cosine, 1.0);
  EXPECT_GT(first.cosine, 0.99) << "float16 stays close";
  // Nothing before it deviates.
  for (size_t i = 0; i < *diff->first_exceeding; ++i) EXPECT_LE(diff->rows[i].max_rel_error, 1e-4);
}

}  // namespace
}  // namespace openge::dump::testing
