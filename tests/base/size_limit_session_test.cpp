// The size-limit policy end to end through the public Session API: models whose tensor sizes
// are computed from data (the "500-byte model that aborts the process") end in an error
// naming the node, the shape and the limit, in constant-folded and run-time forms, and the
// max_tensor_bytes option moves the limit.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "openge/session.h"
#include "options/option_builder.h"
#include "options/option_set.h"

namespace openge {
namespace {
namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// y = ConstantOfShape(s): s an int64 initializer holding `dims`, or (dims empty) a graph input.
std::string constant_of_shape_model(const std::vector<int64_t>& dims, size_t rank = 2) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("cos");
  if (!dims.empty()) {
    auto* s = g->add_initializer();
    s->set_name("s");
    s->set_data_type(onnx::TensorProto::INT64);
    s->add_dims(static_cast<int64_t>(dims.size()));
    for (int64_t d : dims) s->add_int64_data(d);
  } else {
    auto* s = g->add_input();
    s->set_name("s");
    auto* tt = s->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::INT64);
    tt->mutable_shape()->add_dim()->set_dim_value(static_cast<int64_t>(rank));
  }
  auto* n = g->add_node();
  n->set_op_type("ConstantOfShape");
  n->set_name("cos1");
  n->add_input("s");
  n->add_output("y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

class SessionSizeLimit : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const auto& p : files_) fs::remove(p);
  }
  std::string write(const std::string& bytes) {
    const std::string path = (fs::temp_directory_path() / ("openge_sl_" + std::to_string(::getpid()) + "_" +
                                                           std::to_string(files_.size()) + ".onnx"))
                                 .string();
    std::ofstream(path, std::ios::binary) << bytes;
    files_.push_back(path);
    return path;
  }
  static SessionOptions with_limit(const std::string& bytes) {
    options::OptionInputs in;
    in.flags.push_back({"max_tensor_bytes", bytes, "test"});
    in.check_files = false;
    auto set = options::build_option_set(in);
    EXPECT_TRUE(set.ok()) << set.status().message();
    SessionOptions so;
    so.num_threads = 1;
    if (set.ok()) so.config = std::make_shared<const options::OptionSet>(std::move(set.value()));
    return so;
  }
  static Tensor shape_tensor(const std::vector<int64_t>& dims) {
    Tensor t(DType::kInt64, {static_cast<int64_t>(dims.size())});
    for (size_t i = 0; i < dims.size(); ++i) t.data<int64_t>()[i] = dims[i];
    return t;
  }
  std::vector<std::string> files_;
};

void expect_limit_error(const Status& s, const std::string& shape) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.message();
  EXPECT_TRUE(contains(s.message(), "ConstantOfShape 'cos1'")) << s.message();
  EXPECT_TRUE(contains(s.message(), shape)) << s.message();
  EXPECT_TRUE(contains(s.message(), "max_tensor_bytes")) << s.message();
}

TEST_F(SessionSizeLimit, ConstantFormIsRefusedWithTheNodeShapeAndLimit) {
  // The reproducer: 10^10 floats (40 GB) used to end in an uncaught std::bad_alloc.
  auto session = Session::open(write(constant_of_shape_model({100000, 100000})));
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto out = (*session)->run({});
  expect_limit_error(out.status(), "[100000,100000]");
  EXPECT_TRUE(contains(out.status().message(), "4294967296 bytes")) << out.status().message();
}

TEST_F(SessionSizeLimit, RunTimeFormIsRefusedTooAndTheSessionStaysUsable) {
  auto session = Session::open(write(constant_of_shape_model({})));
  ASSERT_TRUE(session.ok()) << session.status().message();
  expect_limit_error((*session)->run({shape_tensor({100000, 100000})}).status(), "[100000,100000]");
  // Overflowing and negative dims: errors, not wrap-arounds.
  EXPECT_FALSE((*session)->run({shape_tensor({int64_t{1} << 40, int64_t{1} << 40})}).ok());
  EXPECT_FALSE((*session)->run({shape_tensor({-3, 5})}).ok());
  // A sane shape still runs: 2x3 zeros.
  auto ok = (*session)->run({shape_tensor({2, 3})});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].shape(), (Shape{2, 3}));
  EXPECT_EQ((*ok)[0].data<float>()[5], 0.0f);
}

TEST_F(SessionSizeLimit, OptionMovesTheLimit) {
  // 10x10 floats = 400 bytes, 20x20 = 1600: a 1000-byte limit takes the first only.
  const SessionOptions so = with_limit("1000");
  auto small = Session::open(write(constant_of_shape_model({10, 10})), so);
  ASSERT_TRUE(small.ok()) << small.status().message();
  auto small_out = (*small)->run({});
  EXPECT_TRUE(small_out.ok()) << small_out.status().message();
  auto big = Session::open(write(constant_of_shape_model({20, 20})), so);
  ASSERT_TRUE(big.ok()) << big.status().message();
  auto out = (*big)->run({});
  expect_limit_error(out.status(), "[20,20]");
  EXPECT_TRUE(contains(out.status().message(), "1000 bytes")) << out.status().message();
  // Without the option the same model runs.
  auto unlimited = Session::open(write(constant_of_shape_model({20, 20})));
  ASSERT_TRUE(unlimited.ok());
  EXPECT_TRUE((*unlimited)->run({}).ok());
}

TEST_F(SessionSizeLimit, InitializersOverTheLimitFailAtOpen) {
  // The shape initializer itself is 2 int64 = 16 bytes; a 15-byte limit refuses it.
  auto session = Session::open(write(constant_of_shape_model({1, 1})), with_limit("15"));
  ASSERT_FALSE(session.ok());
  EXPECT_TRUE(contains(session.status().message(), "initializer")) << session.status().message();
  EXPECT_TRUE(contains(session.status().message(), "15 bytes")) << session.status().message();
}

TEST_F(SessionSizeLimit, OptionValuesAreValidated) {
  options::OptionInputs in;
  in.flags.push_back({"max_tensor_bytes", "0", "test"});
  EXPECT_FALSE(options::build_option_set(in).ok());
  in.flags = {{"max_tensor_bytes", "lots", "test"}};
  EXPECT_FALSE(options::build_option_set(in).ok());
  in.flags.clear();
  in.env = {{"OPENGE_MAX_TENSOR_BYTES", "4096"}};
  auto set = options::build_option_set(in);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->get_int("max_tensor_bytes"), 4096);
}

}  // namespace
}  // namespace openge
