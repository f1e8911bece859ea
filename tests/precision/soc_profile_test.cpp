// SoC profiles (MISC-20, OPT-modify_mixlist-9, OPT-op_precision_mode-7): the
// shipped opp/ data, the ONNX -> Ascend IR mapping (AMB-14), and the loader's errors.
#include "precision/soc_profile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "options/options_test_util.h"
#include "ops/op_registry.h"

namespace openge::precision {
namespace {

using options::test::TempDir;
namespace fs = std::filesystem;

const std::string kSourceOpp = std::string(OPENGE_SOURCE_DIR) + "/opp";
const std::string kConfig = "built-in/op_impl/ai_core/tbe/config";
const std::string kIni = "built-in/op_impl/ai_core/tbe/impl_mode/all_ops_impl_mode.ini";

SocProfile load_ok(const std::string& soc, const std::string& root = kSourceOpp) {
  auto p = load_soc_profile(root, soc);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? std::move(p).value() : SocProfile{};
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A copy of the shipped opp/ tree in a temp folder, to break or extend.
void copy_opp(const TempDir& tmp) {
  fs::copy(kSourceOpp, tmp.path(), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

std::string ops_info_path(const TempDir& tmp, const std::string& soc) {
  return tmp.path() + "/" + kConfig + "/" + soc + "/aic-" + soc + "-ops-info.json";
}

// Replaces the first occurrence of `from` after `anchor` and returns the 1-based line of it.
int replace_after(const std::string& path, const std::string& anchor, const std::string& from, const std::string& to) {
  std::string text = read(path);
  const size_t a = text.find(anchor);
  EXPECT_NE(a, std::string::npos) << anchor;
  const size_t p = text.find(from, a);
  EXPECT_NE(p, std::string::npos) << from;
  text.replace(p, from.size(), to);
  std::ofstream(path, std::ios::binary) << text;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + p, '\n'));
}

// The loader's contract for a malformed file: one error (one line) naming file:line.
void expect_one_error_at(const Result<SocProfile>& r, const std::string& file, int line, const std::string& word) {
  ASSERT_FALSE(r.ok()) << "expected an error at " << file << ":" << line;
  const std::string& m = r.status().message();
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_NE(m.find(file + ":" + std::to_string(line) + ":"), std::string::npos) << m;
  EXPECT_NE(m.find(word), std::string::npos) << m;
}

const std::vector<std::string> kCubeOnnxOps = {"Conv", "ConvTranspose", "MatMul", "Gemm", "FusedConv", "FusedMatMul"};

TEST(SocProfile, MISC_20_ShippedProfilesLoad) {
  const std::pair<const char*, const char*> socs[] = {
      {"Ascend910", "ascend910"}, {"Ascend910B", "ascend910b"}, {"Ascend310P", "ascend310p"}};
  for (const auto& [soc, folder] : socs) {
    SocProfile p = load_ok(soc);
    EXPECT_EQ(p.soc_version, soc);
    EXPECT_GT(p.ops.size(), 100u) << soc;
    EXPECT_NE(p.ops_info_file.find(kConfig + "/" + folder + "/aic-" + folder + "-ops-info.json"), std::string::npos)
        << p.ops_info_file;
    EXPECT_NE(p.impl_mode_file.find("all_ops_impl_mode.ini"), std::string::npos);
  }
  EXPECT_EQ(available_soc_profiles(kSourceOpp), (std::vector<std::string>{"ascend310p", "ascend910", "ascend910b"}));
}

TEST(SocProfile, Ascend910CubeOpsTakeFp16Only) {
  SocProfile p = load_ok("Ascend910");
  for (const auto& onnx : kCubeOnnxOps) {
    const SocOpInfo* op = p.find_onnx(onnx);
    ASSERT_NE(op, nullptr) << onnx;
    EXPECT_EQ(op->op_class, OpClass::kCube) << onnx;
    EXPECT_TRUE(op->supports(DType::kFloat16)) << onnx;
    EXPECT_FALSE(op->supports(DType::kFloat32)) << onnx;
    EXPECT_FALSE(op->supports(DType::kBFloat16)) << onnx;
    EXPECT_TRUE(op->supports_combination(DType::kFloat16, DType::kFloat32)) << onnx << " (cube_fp16in_fp32out)";
    EXPECT_FALSE(op->supports_combination(DType::kFloat32, DType::kFloat32)) << onnx;
  }
  // Vector ops keep fp32 on the training series.
  for (const char* onnx : {"Add", "Relu", "Softmax", "Exp", "LayerNormalization"}) {
    const SocOpInfo* op = p.find_onnx(onnx);
    ASSERT_NE(op, nullptr) << onnx;
    EXPECT_EQ(op->op_class, OpClass::kVector) << onnx;
    EXPECT_TRUE(op->supports(DType::kFloat32) && op->supports(DType::kFloat16)) << onnx;
    EXPECT_FALSE(op->supports(DType::kBFloat16)) << onnx;
  }
}

TEST(SocProfile, Ascend910BCubeOpsTakeBf16Fp16Fp32) {
  SocProfile p = load_ok("Ascend910B");
  for (const auto& onnx : kCubeOnnxOps) {
    const SocOpInfo* op = p.find_onnx(onnx);
    ASSERT_NE(op, nullptr) << onnx;
    EXPECT_EQ(op->op_class, OpClass::kCube) << onnx;
    for (DType t : {DType::kFloat16, DType::kFloat32, DType::kBFloat16}) EXPECT_TRUE(op->supports(t)) << onnx;
    EXPECT_TRUE(op->supports_combination(DType::kBFloat16, DType::kFloat32)) << onnx;
  }
  for (const char* onnx : {"Add", "Relu", "Softmax", "Sigmoid", "Gather", "Where"})
    EXPECT_TRUE(p.find_onnx(onnx) && p.find_onnx(onnx)->supports(DType::kBFloat16)) << onnx;
}

TEST(SocProfile, Ascend310PHasNoBf16AnywhereAndFp16Cube) {
  SocProfile p = load_ok("Ascend310P");
  for (const auto& [type, op] : p.ops) {
    for (const auto* lists : {&op.input_dtype_lists, &op.output_dtype_lists})
      for (const auto& l : *lists) EXPECT_EQ(std::count(l.begin(), l.end(), DType::kBFloat16), 0) << type;
  }
  for (const auto& onnx : kCubeOnnxOps) {
    const SocOpInfo* op = p.find_onnx(onnx);
    ASSERT_NE(op, nullptr) << onnx;
    EXPECT_TRUE(op->supports(DType::kFloat16) && !op->supports(DType::kFloat32)) << onnx;
  }
}

// OPT-modify_mixlist-9: precision_reduce.flag true/false/absent = white/black/gray.
TEST(SocProfile, OPT_modify_mixlist_9_ListsFromPrecisionReduce) {
  SocProfile a910 = load_ok("Ascend910");
  SocProfile a910b = load_ok("Ascend910B");
  struct Row {
    const char* onnx;
    MixList on_910, on_910b;
  };
  const Row rows[] = {
      {"Conv", MixList::kWhite, MixList::kWhite}, {"MatMul", MixList::kWhite, MixList::kWhite},
      {"Log", MixList::kBlack, MixList::kBlack},  {"ReduceSum", MixList::kBlack, MixList::kBlack},
      {"Pow", MixList::kBlack, MixList::kBlack},  {"LogSoftmax", MixList::kBlack, MixList::kWhite},
      {"Relu", MixList::kGray, MixList::kWhite},  {"Softmax", MixList::kGray, MixList::kWhite},
      {"Add", MixList::kGray, MixList::kGray},    {"Reshape", MixList::kGray, MixList::kGray},
      {"Exp", MixList::kGray, MixList::kGray},
  };
  for (const auto& r : rows) {
    ASSERT_TRUE(a910.find_onnx(r.onnx) && a910b.find_onnx(r.onnx)) << r.onnx;
    EXPECT_STREQ(mix_list_name(a910.find_onnx(r.onnx)->mix_list), mix_list_name(r.on_910)) << r.onnx;
    EXPECT_STREQ(mix_list_name(a910b.find_onnx(r.onnx)->mix_list), mix_list_name(r.on_910b)) << r.onnx;
  }
}

// OPT-op_precision_mode-7: impl modes come from all_ops_impl_mode.ini.
TEST(SocProfile, OPT_op_precision_mode_7_ImplModesFromIni) {
  SocProfile p = load_ok("Ascend910B");
  EXPECT_TRUE(p.find_onnx("Softmax")->supports_impl_mode("high_precision"));
  EXPECT_TRUE(p.find_onnx("Softmax")->supports_impl_mode("high_performance"));
  EXPECT_TRUE(p.find_onnx("Gather")->supports_impl_mode("support_out_of_bound_index"));
  EXPECT_TRUE(p.find_onnx("Add")->impl_modes.empty());
}

// AMB-14: the names CANN's ONNX parser gives (its onnx_plugin registrations).
TEST(SocProfile, AMB_14_OnnxToAscendMapping) {
  const std::pair<const char*, const char*> rows[] = {
      {"Conv", "Conv2D"},
      {"ConvTranspose", "Conv2DTranspose"},
      {"MatMul", "MatMulV2"},
      {"Gemm", "MatMulV2"},
      {"BatchNormalization", "BatchNorm"},
      {"Softmax", "SoftmaxV2"},
      {"LogSoftmax", "LogSoftmaxV2"},
      {"LayerNormalization", "LayerNorm"},
      {"MaxPool", "MaxPoolV3"},
      {"AveragePool", "AvgPoolV2"},
      {"Div", "RealDiv"},
      {"Where", "SelectV2"},
      {"And", "LogicalAnd"},
      {"GreaterOrEqual", "GreaterEqual"},
      {"Gather", "GatherV2"},
      {"Relu", "Relu"},
      {"Erf", "Erf"},
  };
  for (const auto& [onnx, ascend] : rows) {
    EXPECT_EQ(ascend_op_type(onnx), ascend) << onnx;
    EXPECT_TRUE(ascend_op_type_known(onnx)) << onnx;
  }
  EXPECT_EQ(ascend_op_type("NoSuchOp"), "NoSuchOp");
  EXPECT_FALSE(ascend_op_type_known("NoSuchOp"));
}

// Every op OpenGE registers has a mapping row, and every profile lists it unless it is one of
// the ops that have no AI Core kernel (they run on the AI CPU engine).
TEST(SocProfile, EveryRegisteredOpIsMappedAndProfiled) {
  const std::set<std::string> ai_cpu_only = {
      "Range", "NonZero", "Unique", "NonMaxSuppression", "Multinomial", "RandomNormal", "RandomNormalLike",
      "RandomUniform", "RandomUniformLike", "Bernoulli", "BlackmanWindow", "HammingWindow", "HannWindow",
      "MelWeightMatrix", "DFT", "STFT", "Compress", "Det", "EyeLike", "GridSample", "MaxUnpool",
      // Not in the SoC profiles (CANN lists them with AI CPU or float16-only kernels): under a
      // precision mode they run on the AI CPU engine, even where OpenGE has a oneDNN kernel.
      "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "ConvInteger",
      // Control flow runs in the graph engine (its subgraphs' nodes have their own entries).
      "If", "Loop", "Scan", "SequenceMap",
      // Sequences, optionals and strings: no ops-info entry (not tensor arithmetic on AI Core).
      "SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceLength", "SequenceInsert", "SequenceErase",
      "SplitToSequence", "ConcatFromSequence", "Optional", "OptionalHasElement", "OptionalGetElement",
      "StringNormalizer", "TfIdfVectorizer",
      // Training optimizers (ai.onnx.preview.training): no inference profile lists them.
      "Adagrad", "Adam", "Momentum", "Gradient",
      // The Trainer's in-graph optimizer update (domain openge): runs on the AI CPU engine.
      "OptimizerUpdate",
      // The backward ops of training (src/ops/grad/) without an AI Core kernel.
      "ActivationGrad", "AveragePoolGrad", "BatchNormalizationGrad", "GatherGrad", "LayerNormalizationGrad",
      "MaxPoolGrad", "NegativeLogLikelihoodLossGrad", "SoftmaxCrossEntropyLossGrad", "SoftmaxGrad", "SumToShape",
      "TrainingDropout", "DropoutGrad", "LSTMGrad", "GRUGrad", "RNNGrad",
      // Made by TbeEltwiseFusionPass after the precision pass: never looked up in a profile.
      "FusedElementwise",
      // external_weight's weights (a node of GE's): folded into constants before the precision pass.
      "FileConstant"};
  std::vector<SocProfile> profiles;
  for (const char* soc : {"Ascend910", "Ascend910B", "Ascend310P"}) profiles.push_back(load_ok(soc));
  for (const auto& schema : all_op_schemas()) {
    const std::string onnx(schema.op_type);
    EXPECT_TRUE(ascend_op_type_known(onnx)) << onnx << " has no row in src/precision/ascend_op_types.cpp";
    for (const auto& p : profiles) {
      const bool listed = p.find_onnx(onnx) != nullptr;
      EXPECT_EQ(listed, !ai_cpu_only.count(onnx)) << onnx << " (" << ascend_op_type(onnx) << ") on " << p.soc_version;
    }
  }
}

TEST(SocProfile, MissingProfileNamesFileAndProfiles) {
  auto r = load_soc_profile(kSourceOpp, "Ascend999");
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_NE(m.find(kConfig + "/ascend999/aic-ascend999-ops-info.json"), std::string::npos) << m;
  EXPECT_NE(m.find("ascend310p, ascend910, ascend910b"), std::string::npos) << m;
  auto bad = load_soc_profile(kSourceOpp, "../ascend910");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("soc_version"), std::string::npos);
}

TEST(SocProfile, MalformedJsonIsOneErrorWithFileAndLine) {
  TempDir tmp;
  copy_opp(tmp);
  const std::string f = ops_info_path(tmp, "ascend910");
  // Drop the comma after Abs's input0 object: a syntax error on the line after it.
  const int line = replace_after(f, "\"Abs\"", "},\n        \"output0\"", "}\n        \"output0\"");
  expect_one_error_at(load_soc_profile(tmp.path(), "Ascend910"), f, line + 1, "invalid JSON");
}

TEST(SocProfile, UnknownDtypeIsOneErrorWithFileAndLine) {
  TempDir tmp;
  copy_opp(tmp);
  const std::string f = ops_info_path(tmp, "ascend910b");
  const int line = replace_after(f, "\"Relu\"", "float16,", "float17,");
  expect_one_error_at(load_soc_profile(tmp.path(), "Ascend910B"), f, line, "float17");
}

TEST(SocProfile, BadFlagIsOneErrorWithFileAndLine) {
  TempDir tmp;
  copy_opp(tmp);
  const std::string f = ops_info_path(tmp, "ascend310p");
  const int line = replace_after(f, "\"Conv2D\"", "\"flag\": \"true\"", "\"flag\": \"yes\"");
  expect_one_error_at(load_soc_profile(tmp.path(), "Ascend310P"), f, line, "\"yes\"");
}

TEST(SocProfile, BadOpClassAndUnpairedColumnsAreErrors) {
  TempDir tmp;
  copy_opp(tmp);
  const std::string f = ops_info_path(tmp, "ascend910");
  int line = replace_after(f, "\"MatMulV2\"", "\"value\": \"cube\"", "\"value\": \"matrix\"");
  expect_one_error_at(load_soc_profile(tmp.path(), "Ascend910"), f, line, "opengeOpClass");
  replace_after(f, "\"MatMulV2\"", "\"value\": \"matrix\"", "\"value\": \"cube\"");
  // Sigmoid's output0 loses a column: the lists no longer pair by position.
  line = replace_after(f, "\"Sigmoid\"",
                       "\"dtype\": \"float16,float\",\n            \"paramType\": \"required\"\n        }\n    }",
                       "\"dtype\": \"float16\",\n            \"paramType\": \"required\"\n        }\n    }");
  expect_one_error_at(load_soc_profile(tmp.path(), "Ascend910"), f, line, "by position");
}

TEST(SocProfile, OPT_op_precision_mode_7_BadIniLineIsOneError) {
  for (const auto& [content, line, word] : std::vector<std::tuple<std::string, int, std::string>>{
           {"# comment\nSoftmaxV2=high_precision\nGelu high_precision\n", 3, "OpType=mode1,mode2"},
           {"SoftmaxV2=high_precision\n\nGelu=fastest\n", 3, "fastest"},
           {"Gelu=high_precision\nGelu=high_performance\n", 2, "line 1"},
           {"=high_precision\n", 1, "op type"}}) {
    TempDir tmp;
    copy_opp(tmp);
    const std::string ini = tmp.file(kIni, content);
    expect_one_error_at(load_soc_profile(tmp.path(), "Ascend910"), ini, line, word);
  }
}

// An edited ini saved with a BOM and CRLF line ends still reads.
TEST(SocProfile, OPT_op_precision_mode_7_IniWithBomAndCrlf) {
  TempDir tmp;
  copy_opp(tmp);
  tmp.file(kIni, "\xEF\xBB\xBFSoftmaxV2=high_precision\r\n# c\r\nGelu=high_performance\r\n");
  auto r = load_soc_profile(tmp.path(), "Ascend910");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->find_onnx("Softmax")->impl_modes, std::vector<std::string>{"high_precision"});
  EXPECT_EQ(r->find_onnx("Gelu")->impl_modes, std::vector<std::string>{"high_performance"});
  EXPECT_TRUE(r->find_onnx("Exp")->impl_modes.empty());
}

TEST(SocProfile, UserAddedProfileAndSplitFileLoadWithoutCodeChanges) {
  TempDir tmp;
  const std::string dir = kConfig + "/myboard/";
  tmp.file(dir + "aic-myboard-ops-info.json", R"({
  "Conv2D": {"opengeOpClass": {"value": "cube"},
             "input0": {"name": "x", "dtype": "float,bfloat16"},
             "output0": {"name": "y", "dtype": "float,float"},
             "precision_reduce": {"flag": "false"}}
})");
  tmp.file(dir + "aic-myboard-ops-info-Relu.json", R"({"Relu": {"input0": {"dtype": "float16"}}})");
  EXPECT_EQ(available_soc_profiles(tmp.path()), std::vector<std::string>{"myboard"});
  auto r = load_soc_profile(tmp.path(), "MyBoard");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const SocOpInfo* conv = r->find_onnx("Conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->op_class, OpClass::kCube);
  EXPECT_EQ(conv->mix_list, MixList::kBlack);
  EXPECT_TRUE(conv->supports_combination(DType::kBFloat16, DType::kFloat32));
  EXPECT_FALSE(conv->supports(DType::kFloat16));
  ASSERT_NE(r->find_onnx("Relu"), nullptr);
  EXPECT_EQ(r->find_onnx("Relu")->mix_list, MixList::kGray);
  EXPECT_EQ(r->find_onnx("Relu")->op_class, OpClass::kVector);
  EXPECT_EQ(r->impl_mode_file, "");  // no ini in this root: no impl modes, no error
  // The same op in two files is an error naming both.
  const std::string dup = tmp.file(dir + "aic-myboard-ops-info-Z.json", "{\n\"Relu\": {}\n}");
  auto d = load_soc_profile(tmp.path(), "MyBoard");
  expect_one_error_at(d, dup, 2, "aic-myboard-ops-info-Relu.json:1");
}

// ASCEND_OPP_PATH (its value reaches default_opp_root) replaces the shipped data.
TEST(SocProfile, AscendOppPathRootOverride) {
  EXPECT_EQ(default_opp_root("/opt/somewhere/opp"), "/opt/somewhere/opp");
  const std::string fallback = default_opp_root("");
  EXPECT_TRUE(fs::is_directory(fallback + "/" + kConfig)) << fallback;
  TempDir tmp;
  copy_opp(tmp);
  // Give Ascend910's Conv2D fp32 in the user's copy.
  const std::string f = ops_info_path(tmp, "ascend910");
  replace_after(f, "\"Conv2D\"", "\"dtype\": \"float16,float16\"", "\"dtype\": \"float16,float16,float\"");
  replace_after(f, "\"Conv2D\"", "\"dtype\": \"float16,float\"", "\"dtype\": \"float16,float,float\"");
  replace_after(f, "\"Conv2D\"", "\"dtype\": \"float16,float16\"", "\"dtype\": \"float16,float16,float\"");
  auto r = load_soc_profile(default_opp_root(tmp.path()), "Ascend910");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->find_onnx("Conv")->supports(DType::kFloat32));
  EXPECT_FALSE(load_ok("Ascend910").find_onnx("Conv")->supports(DType::kFloat32));
}

}  // namespace
}  // namespace openge::precision
