// RNN, GRU and LSTM under the precision pass with the SoC profiles of opp/: they are AI Core ops
// (DynamicRNNV3, DynamicGRUV2, DynamicRNN), so under the default profile (Ascend910B,
// must_keep_origin_dtype) a float32 model keeps float32 and runs on oneDNN's RNN primitives
// instead of falling back to the AI CPU reference kernels. The outputs are compared with the
// same model on the reference engine (use_aicore=false), the oracle of the kernel tests.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <map>

#include "openge/session.h"
#include "options/option_builder.h"

namespace openge {
namespace {

constexpr int64_t kSeq = 4, kBatch = 2, kInput = 3, kHidden = 5;

// X [T, N, C] feeds one LSTM, one GRU and one RNN (forward, default activations, biases), whose
// Y outputs are the graph's outputs. Weights are a fixed pseudo-random pattern in [-0.5, 0.5).
onnx::ModelProto recurrent_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(14);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("recurrent");
  auto typed = [](onnx::ValueInfoProto* v, const std::string& name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  typed(g->add_input(), "X", {kSeq, kBatch, kInput});
  uint32_t state = 12345;
  const std::map<std::string, int64_t> gates = {{"LSTM", 4}, {"GRU", 3}, {"RNN", 1}};
  for (const auto& [op, k] : gates) {
    const std::vector<std::pair<std::string, std::vector<int64_t>>> weights = {
        {"W", {1, k * kHidden, kInput}}, {"R", {1, k * kHidden, kHidden}}, {"B", {1, 2 * k * kHidden}}};
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(op + "_node");
    n->add_input("X");
    for (const auto& [w, dims] : weights) {
      auto* t = g->add_initializer();
      t->set_name(op + "_" + w);
      t->set_data_type(onnx::TensorProto::FLOAT);
      int64_t count = 1;
      for (int64_t d : dims) t->add_dims(d), count *= d;
      for (int64_t i = 0; i < count; ++i) {
        state = state * 1664525u + 1013904223u;
        t->add_float_data(static_cast<float>(state >> 8) / 16777216.0f - 0.5f);
      }
      n->add_input(t->name());
    }
    n->add_output(op + "_Y");
    auto* hidden = n->add_attribute();
    hidden->set_name("hidden_size");
    hidden->set_type(onnx::AttributeProto::INT);
    hidden->set_i(kHidden);
    typed(g->add_output(), op + "_Y", {kSeq, 1, kBatch, kHidden});
  }
  return m;
}

std::unique_ptr<Session> open(const std::vector<options::OptionAssignment>& flags, bool use_aicore) {
  options::OptionInputs in;
  in.flags = flags;
  auto config = options::build_option_set(in);
  EXPECT_TRUE(config.ok()) << config.status().message();
  if (!config.ok()) return nullptr;
  SessionOptions so;
  so.config = std::make_shared<const options::OptionSet>(std::move(config.value()));
  so.use_aicore = use_aicore;
  so.num_threads = 1;
  const std::string bytes = recurrent_model().SerializeAsString();
  auto s = Session::open_from_memory(bytes.data(), bytes.size(), so, "recurrent.onnx");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s.value()) : nullptr;
}

Tensor input_x() {
  Tensor x(DType::kFloat32, {kSeq, kBatch, kInput});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::sin(0.7f * static_cast<float>(i));
  return x;
}

// The precision report's row of each recurrent node, after one run (the compile happens there).
std::map<std::string, PrecisionRecord> recurrent_rows(Session& s) {
  auto out = s.run({input_x()});
  EXPECT_TRUE(out.ok()) << out.status().message();
  std::map<std::string, PrecisionRecord> rows;
  for (const PrecisionRecord& r : s.precision_report()) rows[r.op_type] = r;
  return rows;
}

TEST(RecurrentPrecision, DefaultProfileRunsFp32RecurrentOpsOnTheAiCoreWithReferenceOutputs) {
  auto aicore = open({}, true);
  auto reference = open({}, false);
  ASSERT_TRUE(aicore && reference);
  const std::map<std::string, PrecisionRecord> rows = recurrent_rows(*aicore);
  const std::map<std::string, std::string> ascend = {
      {"LSTM", "DynamicRNN"}, {"GRU", "DynamicGRUV2"}, {"RNN", "DynamicRNNV3"}};
  for (const auto& [op, ascend_type] : ascend) {
    ASSERT_TRUE(rows.count(op)) << op;
    EXPECT_EQ(rows.at(op).engine, "AI_CORE") << op << ": " << rows.at(op).rule;
    EXPECT_EQ(rows.at(op).ascend_type, ascend_type);
    EXPECT_EQ(rows.at(op).input_dtype, "float32") << op;
    EXPECT_EQ(rows.at(op).output_dtype, "float32") << op;
  }
  RunInfo info;
  auto got = aicore->run({input_x()}, &info);
  auto want = reference->run({input_x()});
  ASSERT_TRUE(got.ok() && want.ok());
  EXPECT_EQ(info.aicore_nodes, 3);
  ASSERT_EQ(got->size(), 3u);
  for (size_t o = 0; o < got->size(); ++o) {
    ASSERT_EQ((*got)[o].shape(), (*want)[o].shape());
    for (int64_t i = 0; i < (*got)[o].numel(); ++i)
      EXPECT_NEAR((*got)[o].data<float>()[i], (*want)[o].data<float>()[i], 1e-5) << "output " << o << " element " << i;
  }
}

// Ascend910's default (allow_fp32_to_fp16) lowers cube ops: the recurrent ops compute in float16
// on the AI Core there, as CANN's float16 DynamicRNN / DynamicGRUV2 kernels do.
TEST(RecurrentPrecision, Ascend910LowersRecurrentOpsToFloat16OnTheAiCore) {
  auto s = open({{"soc_version", "Ascend910", "api"}}, true);
  ASSERT_TRUE(s);
  for (const auto& [op, row] : recurrent_rows(*s)) {
    if (op != "LSTM" && op != "GRU" && op != "RNN") continue;
    EXPECT_EQ(row.engine, "AI_CORE") << op << ": " << row.rule;
    EXPECT_EQ(row.input_dtype, "float16") << op << ": " << row.rule;
  }
}

}  // namespace
}  // namespace openge
