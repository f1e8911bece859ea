// The old-opset table (src/ops/opset_forms.cpp) checked against ONNX's own schemas, and
// LegacyAxisAlign, the op its broadcast rows insert.
#include <gtest/gtest.h>
#include <onnx/defs/schema.h>

#include "op_test_util.h"
#include "ops/opset_forms.h"

namespace openge {
namespace {
using testing::make_node;
using testing::make_tensor;
using testing::run_node;
using testing::set_int;

// Every row names a registered op and, where it names an attribute, an attribute that ONNX's
// schema of that op has at every opset of the row's range (a typo would silently match nothing).
TEST(OldOpsetForms, RowsNameRegisteredOpsAndAttributesOnnxDefines) {
  ASSERT_FALSE(all_old_opset_forms().empty());
  for (const OldOpsetForm& f : all_old_opset_forms()) {
    const std::string op(f.op_type);
    EXPECT_NE(find_op_schema(f.op_type), nullptr) << op;
    EXPECT_LE(f.first_opset, f.last_opset) << op;
    EXPECT_LT(f.last_opset, 7) << op << ": the table holds forms older than opset 7 only";
    for (int64_t opset = f.first_opset; opset <= f.last_opset; ++opset) {
      const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op, static_cast<int>(opset), onnx::ONNX_DOMAIN);
      ASSERT_NE(schema, nullptr) << op << " at opset " << opset;
      if (f.attribute.empty()) continue;
      EXPECT_TRUE(schema->attributes().count(std::string(f.attribute)))
          << op << " has no attribute '" << f.attribute << "' at opset " << opset;
    }
  }
}

TEST(OldOpsetForms, RowsApplyOnlyInsideTheirOpsetRange) {
  auto concat3 = old_opset_forms("Concat", 3);
  ASSERT_EQ(concat3.size(), 1u);
  EXPECT_EQ(concat3[0]->kind, OldFormKind::kDefaultAttribute);
  EXPECT_EQ(concat3[0]->value, 1);
  EXPECT_TRUE(old_opset_forms("Concat", 4).empty());
  EXPECT_EQ(old_opset_forms("Add", 5).size(), 2u);  // consumed_inputs and broadcast
  EXPECT_EQ(old_opset_forms("Add", 6).size(), 1u);  // broadcast
  EXPECT_TRUE(old_opset_forms("Add", 7).empty());
  EXPECT_TRUE(old_opset_forms("Conv", 1).empty());
}

// B [3] aligned at axis 1 of A [2,3,4,5] becomes [3,1,1] (worked out by hand: 4 - 1 - 1 = 2 ones).
TEST(OldOpsetForms, LegacyAxisAlignAppendsTrailingOnes) {
  Node n = make_node(std::string(kLegacyAxisAlign), 2);
  set_int(n, "axis", 1);
  const Tensor b = make_tensor<float>(DType::kFloat32, {3}, {1.0f, 2.0f, 3.0f});
  const Tensor a(DType::kFloat32, {2, 3, 4, 5});
  auto r = run_node(n, {&b, &a}, 6);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].shape(), (Shape{3, 1, 1}));
  EXPECT_EQ((*r)[0].data<float>()[2], 3.0f);
  set_int(n, "axis", -2);  // counted from A's end: axis 2, so B [3] gets one trailing 1
  r = run_node(n, {&b, &a}, 6);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].shape(), (Shape{3, 1}));
}

TEST(OldOpsetForms, LegacyAxisAlignRefusesBPastTheEndOfA) {
  Node n = make_node(std::string(kLegacyAxisAlign), 2);
  set_int(n, "axis", 3);
  const Tensor b(DType::kFloat32, {3, 4});
  const Tensor a(DType::kFloat32, {2, 3, 4, 5});
  auto r = run_node(n, {&b, &a}, 6);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("broadcast axis 3"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(n.name), std::string::npos) << r.status().message();
  set_int(n, "axis", 5);
  EXPECT_FALSE(run_node(n, {&b, &a}, 6).ok());
}

}  // namespace
}  // namespace openge
