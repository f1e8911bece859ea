// Parsers of the files options point to: the samples of spec/seeds/002 verbatim, both spellings
// the spec allows, and file:line:column errors.
#include <gtest/gtest.h>

#include "options/config_files.h"

namespace openge::options {
namespace {

bool error_at(const Status& s, const std::string& where) { return s.message().find(where) != std::string::npos; }

// ---- modify_mixlist (S2:L218-238, with its // comments) ----------------------------------------
const char* kMixlistSample = R"({
  "black-list": {                  // 黑名单
     "to-remove": [                // 黑名单算子转换为灰名单算子
     "Xlog1py"
     ],
     "to-add": [                   // 白名单或灰名单算子转换为黑名单算子
     "Matmul",
     "Cast"
     ]
  },
  "white-list": {                  // 白名单
     "to-remove": [                // 白名单算子转换为灰名单算子 
     "Conv2D"
     ],
     "to-add": [                   // 黑名单或灰名单算子转换为白名单算子
     "Bias"
     ]
  }
})";

TEST(OptModifyMixlist, OPT_modify_mixlist_8_SampleWithCommentsParses) {
  auto m = parse_modify_mixlist(kMixlistSample, "ops_info.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->black_remove, std::vector<std::string>{"Xlog1py"});
  EXPECT_EQ(m->black_add, (std::vector<std::string>{"Matmul", "Cast"}));
  EXPECT_EQ(m->white_remove, std::vector<std::string>{"Conv2D"});
  EXPECT_EQ(m->white_add, std::vector<std::string>{"Bias"});
}

TEST(OptModifyMixlist, OPT_modify_mixlist_3_CommaSeparatedStringsToo) {
  auto m = parse_modify_mixlist(R"({"black-list":{"to-add":"MatMul, Cast"}})", "m.json");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->black_add, (std::vector<std::string>{"MatMul", "Cast"}));
}

TEST(OptModifyMixlist, ErrorsNameFileLineAndSuggest) {
  auto m = parse_modify_mixlist("{\n \"black-list\": {\n  \"to-ad\": [\"A\"]\n }\n}", "m.json");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(error_at(m.status(), "m.json:3:")) << m.status().message();
  EXPECT_TRUE(error_at(m.status(), "did you mean 'to-add'"));
  auto bad = parse_modify_mixlist("{\n \"black-list\": {\n  \"to-add\": [\"A\",]\n }\n}", "m.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(error_at(bad.status(), "m.json:3:")) << bad.status().message();
  EXPECT_FALSE(parse_modify_mixlist(R"({"grey-list":{}})", "m.json").ok());
  EXPECT_FALSE(parse_modify_mixlist(R"({"white-list":{"to-add":[1]}})", "m.json").ok());
}

// ---- customize_dtypes (S2:L267-279) -----------------------------------------------------------
TEST(OptCustomizeDtypes, OPT_customize_dtypes_10_SampleParses) {
  const char* sample =
      "# 按照算子名称配置\n"
      "resnet_v1_50/block1/unit_3/bottleneck_v1/Relu::InputDtype:float16,int8,OutputDtype:float16,int8\n"
      "# 按照算子类型配置\n"
      "OpType::Relu:InputDtype:float16,int8,OutputDtype:float16,int8\n";
  auto r = parse_customize_dtypes(sample, "customize_dtypes.cfg");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_FALSE((*r)[0].by_type);
  EXPECT_EQ((*r)[0].name, "resnet_v1_50/block1/unit_3/bottleneck_v1/Relu");
  EXPECT_EQ((*r)[0].input_dtypes, (std::vector<std::string>{"float16", "int8"}));
  EXPECT_EQ((*r)[0].output_dtypes, (std::vector<std::string>{"float16", "int8"}));
  EXPECT_TRUE((*r)[1].by_type);
  EXPECT_EQ((*r)[1].name, "Relu");
  EXPECT_EQ((*r)[1].line, 4);
}

TEST(OptCustomizeDtypes, DISC_14_OutputDtypeWithoutComma) {
  auto r = parse_customize_dtypes("Op1::InputDtype:float16,int8OutputDtype:float32\n", "c.cfg");
  // "int8OutputDtype" is ambiguous only in appearance: OutputDtype: is the keyword.
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].input_dtypes, (std::vector<std::string>{"float16", "int8"}));
  EXPECT_EQ((*r)[0].output_dtypes, std::vector<std::string>{"float32"});
  auto only_out = parse_customize_dtypes("OpType::MatMul:OutputDtype:float32", "c.cfg");
  ASSERT_TRUE(only_out.ok()) << only_out.status().message();
  EXPECT_TRUE((*only_out)[0].input_dtypes.empty());
}

TEST(OptCustomizeDtypes, ErrorsHaveLineAndColumn) {
  auto r = parse_customize_dtypes("# c\nOp1::InputDtype:float17\nnot a rule\nOp1::InputDtype:float16\n", "c.cfg");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(error_at(r.status(), "c.cfg:2:17: unknown dtype 'float17' (did you mean 'float16'"))
      << r.status().message();
  EXPECT_TRUE(error_at(r.status(), "c.cfg:3:1: "));
  EXPECT_TRUE(error_at(r.status(), "c.cfg:4:1: operator 'Op1' is already configured at line 2"));
  EXPECT_FALSE(parse_customize_dtypes("Op::InputDtype:", "c.cfg").ok());
  EXPECT_FALSE(parse_customize_dtypes("Op::InputDtype:float16,,int8", "c.cfg").ok());
  EXPECT_FALSE(parse_customize_dtypes("OpType::InputDtype:float16", "c.cfg").ok());
  EXPECT_FALSE(parse_customize_dtypes("Op::OutputDtype:float16,InputDtype:int8", "c.cfg").ok());
  EXPECT_FALSE(parse_customize_dtypes("::InputDtype:float16", "c.cfg").ok());
}

// ---- fusion_switch_file (S2:L291-342) ---------------------------------------------------------
TEST(OptFusionSwitchFile, OPT_fusion_switch_file_5_SampleParses) {
  const char* sample = R"({
    "Switch":{
        "GraphFusion":{
            "RequantFusionPass":"on",
            "ConvToFullyConnectionFusionPass":"off",
            "SoftmaxFusionPass":"on",
            "NotRequantFusionPass":"on",
            "ConvConcatFusionPass":"on",
            "MatMulBiasAddFusionPass":"on",
            "PoolingFusionPass":"on",
            "ZConcatv2dFusionPass":"on",
            "ZConcatExt2FusionPass":"on",
            "TfMergeSubFusionPass":"on"
        },
        "UBFusion":{
            "TbePool2dQuantFusionPass":"on"
        }
    }
})";
  auto r = parse_fusion_switch(sample, "fusion_switch.cfg");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->graph_fusion.size(), 10u);
  EXPECT_FALSE(r->graph_fusion.at("ConvToFullyConnectionFusionPass"));
  EXPECT_TRUE(r->ub_fusion.at("TbePool2dQuantFusionPass"));
}

TEST(OptFusionSwitchFile, OPT_fusion_switch_file_6_8_AllOffWithExceptions) {
  auto r = parse_fusion_switch(R"({
       "Switch":{
           "GraphFusion":{
               "ALL":"off",
               "SoftmaxFusionPass":"on"
           },
           "UBFusion":{
               "ALL":"off",
               "TbePool2dQuantFusionPass":"on"
           }
       }
   })",
                               "f.cfg");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->graph_fusion.at("ALL"));
  EXPECT_TRUE(r->graph_fusion.at("SoftmaxFusionPass"));
  EXPECT_FALSE(r->ub_fusion.at("ALL"));
}

TEST(OptFusionSwitchFile, Errors) {
  auto r = parse_fusion_switch("{\"Switch\":{\n\"GraphFusion\":{\n\"A\":\"yes\"}}}", "f.cfg");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(error_at(r.status(), "f.cfg:3:1: GraphFusion.A: must be \"on\" or \"off\""));
  EXPECT_FALSE(parse_fusion_switch(R"({"Switch":{"GraphFuson":{}}})", "f.cfg").ok());
  EXPECT_FALSE(parse_fusion_switch(R"({"switch":{}})", "f.cfg").ok());
  EXPECT_FALSE(parse_fusion_switch(R"([])", "f.cfg").ok());
  EXPECT_FALSE(parse_fusion_switch(R"({"Switch":{"UBFusion":{"A":true}}})", "f.cfg").ok());
}

// ---- op_precision_mode ini (S2:L449-456) ------------------------------------------------------
TEST(OptOpPrecisionMode, OPT_op_precision_mode_3_SampleParses) {
  auto r = parse_op_precision_ini(
      "[ByOpType]\noptype1=high_precision\noptype2=high_performance\noptype3=support_out_of_bound_index\n"
      "[ByNodeName]\nnodename1=high_precision\nnodename2=high_performance\nnodename3=support_out_of_bound_index\n",
      "op_precision.ini");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->by_op_type.at("optype3"), "support_out_of_bound_index");
  EXPECT_EQ(r->by_node_name.at("nodename2"), "high_performance");
}

TEST(OptOpPrecisionMode, IniErrors) {
  auto r = parse_op_precision_ini("a=high_precision\n[ByOptype]\n[ByOpType]\nb=fast\nb\n", "p.ini");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(error_at(r.status(), "p.ini:1:1: entry outside"));
  EXPECT_TRUE(error_at(r.status(), "p.ini:2:1: unknown section [ByOptype]"));
  EXPECT_TRUE(error_at(r.status(), "did you mean 'ByOpType'"));
  EXPECT_TRUE(error_at(r.status(), "p.ini:4:3: unknown mode 'fast'"));
  EXPECT_TRUE(error_at(r.status(), "p.ini:5:1: expected name=mode"));
  EXPECT_FALSE(parse_op_precision_ini("[ByOpType]\na=high_precision\na=high_performance\n", "p.ini").ok());
}

// ---- op_debug_config (S2:L124-126) ------------------------------------------------------------
TEST(OptOpDebugConfig, OPT_op_debug_config_2_SampleParses) {
  auto r = parse_op_debug_config("op_debug_config = ccec_O0,ccec_g,oom", "/root/test0.cfg");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->flags, (std::set<std::string>{"ccec_O0", "ccec_g", "oom"}));
}

TEST(OptOpDebugConfig, OPT_op_debug_config_3_12_EveryOptionAndTrailingSpace) {
  auto r =
      parse_op_debug_config("op_debug_config=oom,dump_bin,dump_cce,dump_loc,ccec_O0,ccec_g ,check_flag\n", "d.cfg");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->flags.size(), 7u);
}

TEST(OptOpDebugConfig, Errors) {
  auto r = parse_op_debug_config("op_debug_config = oom,dump_bim\n", "d.cfg");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(error_at(r.status(), "d.cfg:1:23: unknown op_debug_config option 'dump_bim'")) << r.status().message();
  EXPECT_TRUE(error_at(r.status(), "did you mean 'dump_bin'"));
  EXPECT_FALSE(parse_op_debug_config("", "d.cfg").ok());
  EXPECT_FALSE(parse_op_debug_config("debug = oom", "d.cfg").ok());
  EXPECT_FALSE(parse_op_debug_config("op_debug_config = oom,,dump_bin", "d.cfg").ok());
}

// ---- aoe_config_file (S2:L635-642) --------------------------------------------------------------
TEST(OptAoeConfigFile, OPT_aoe_config_aoe_config_file_2_SampleWithMissingCommaParses) {
  const char* sample = R"({
       "tune_ops_name":["bert/embeddings/addbert/embeddings/add_1","loss/MatMul"],
       "tune_ops_type":["Add", "Mul"]
       "tune_optimization_level":"O1",
       "feature":["deeper_opat"]
})";
  auto r = parse_aoe_config(sample, "tuning_config.cfg");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tune_ops_name.size(), 2u);
  EXPECT_EQ(r->tune_ops_type, (std::vector<std::string>{"Add", "Mul"}));
  EXPECT_EQ(r->tune_optimization_level, "O1");
  EXPECT_EQ(r->feature, std::vector<std::string>{"deeper_opat"});
  ASSERT_EQ(r->repairs.size(), 1u);
  EXPECT_EQ(r->repairs[0].rfind("tuning_config.cfg:3:", 0), 0u) << r->repairs[0];
}

TEST(OptAoeConfigFile, OPT_aoe_config_aoe_config_file_5_DefaultLevelO2) {
  auto r = parse_aoe_config(R"({"tune_ops_type":"Add,Mul"})", "a.json");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tune_optimization_level, "O2");
  EXPECT_EQ(r->tune_ops_type.size(), 2u);
}

TEST(OptAoeConfigFile, Errors) {
  EXPECT_FALSE(parse_aoe_config(R"({"tune_optimization_level":"O3"})", "a.json").ok());
  EXPECT_FALSE(parse_aoe_config(R"({"feature":["deep"]})", "a.json").ok());
  EXPECT_FALSE(parse_aoe_config(R"({"tune_ops":["x"]})", "a.json").ok());
  EXPECT_FALSE(parse_aoe_config(R"({"a" "b"})", "a.json").ok());  // not a line break: not repaired
  auto r = parse_aoe_config("{\n\"feature\": [\"deeper_opat\"\n", "a.json");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(error_at(r.status(), "a.json:3:")) << r.status().message();
}

TEST(OptAoeConfigFile, RepairNeverReadsBeforeTheText) {
  // A string token at the very start of the text where a ',' or '}' was expected.
  for (const char* t : {"\"a\"", "{\"a\":1\n\"b\"", "\"\"\n\"x\"", "{\n\"\"\n\"\"", "{\"\\\"\"\n\"x\""})
    (void)parse_aoe_config(t, "a.json");
}

// ---- op_cache.ini (S2:L674-681) -----------------------------------------------------------------
TEST(OptOpCompilerCacheMode, OPT_op_compiler_cache_mode_11_SampleParses) {
  const char* sample =
      "#配置文件格式，必须包含，自动生成的文件中默认包括如下信息，手动创建时，需要输入\n"
      "[op_compiler_cache]\n"
      "#限制某个芯片下缓存文件夹的磁盘空间的大小，单位为MB\n"
      "ascend_max_op_cache_size=500\n"
      "#设置需要保留缓存的空间大小比例，取值范围：[1,100]，单位为百分比；例如80表示缓存空间不足时，删除缓存，保留80%\n"
      "ascend_remain_cache_size_ratio=80    \n";
  auto r = parse_op_cache_ini(sample, "op_cache.ini");
  EXPECT_TRUE(r.effective()) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(*r.max_op_cache_size_mb, 500);
  EXPECT_EQ(*r.remain_cache_size_ratio, 80);
}

TEST(OptOpCompilerCacheMode, OPT_op_compiler_cache_mode_12_BothValuesMustBeValid) {
  EXPECT_TRUE(
      parse_op_cache_ini("[op_compiler_cache]\nmax_op_cache_size=10\nremain_cache_size_ratio=1\n", "i").effective());
  EXPECT_TRUE(
      parse_op_cache_ini("[op_compiler_cache]\nmax_op_cache_size=10\nremain_cache_size_ratio=100\n", "i").effective());
  EXPECT_FALSE(
      parse_op_cache_ini("[op_compiler_cache]\nmax_op_cache_size=10\nremain_cache_size_ratio=0\n", "i").effective());
  // A size whose byte count no int64 holds is refused, not wrapped negative (it emptied the cache).
  EXPECT_TRUE(
      parse_op_cache_ini("[op_compiler_cache]\nmax_op_cache_size=8796093022207\nremain_cache_size_ratio=50\n", "i")
          .effective());
  const auto huge =
      parse_op_cache_ini("[op_compiler_cache]\nmax_op_cache_size=8796093022208\nremain_cache_size_ratio=50\n", "i");
  EXPECT_FALSE(huge.effective());
  ASSERT_FALSE(huge.problems.empty());
  EXPECT_NE(huge.problems[0].find("[1, 8796093022207]"), std::string::npos) << huge.problems[0];
  EXPECT_FALSE(
      parse_op_cache_ini("[op_compiler_cache]\nmax_op_cache_size=10\nremain_cache_size_ratio=101\n", "i").effective());
  EXPECT_FALSE(parse_op_cache_ini("[op_compiler_cache]\nmax_op_cache_size=10\n", "i").effective());
  EXPECT_FALSE(parse_op_cache_ini("ascend_max_op_cache_size=10\nascend_remain_cache_size_ratio=5\n", "i").effective());
  auto r =
      parse_op_cache_ini("[op_compiler_cache]\nascend_max_op_cache_size=-5\nascend_remain_cache_size_ratio=50\n", "i");
  ASSERT_FALSE(r.effective());
  EXPECT_EQ(r.problems[0].rfind("i:2:26: ", 0), 0u) << r.problems[0];
}

}  // namespace
}  // namespace openge::options
