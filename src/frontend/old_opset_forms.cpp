#include "frontend/old_opset_forms.h"

#include <onnx/onnx_pb.h>

#include "ir/attribute_values.h"
#include "ops/opset_forms.h"

namespace openge {
namespace {

Attributes without(const Attributes& attrs, std::initializer_list<std::string_view> names) {
  Attributes kept;
  for (const auto& [name, a] : attrs.all()) {
    bool drop = false;
    for (std::string_view n : names) drop = drop || name == n;
    if (!drop) kept.set(name, a);
  }
  return kept;
}

class OldFormRewriter {
 public:
  explicit OldFormRewriter(Graph& graph) : graph_(graph) {}

  Status run() {
    const size_t original = graph_.nodes.size();
    for (size_t i = 0; i < original; ++i) {
      for (const OldOpsetForm* form : old_opset_forms(graph_.nodes[i].op_type, graph_.opset))
        OPENGE_RETURN_IF_ERROR(apply(i, *form));
    }
    for (Node& n : added_) graph_.nodes.push_back(std::move(n));
    return Status::Ok();
  }

 private:
  Status fail(size_t i, const std::string& what) const {
    const Node& n = graph_.nodes[i];
    return unsupported("node " + n.op_type + " '" + n.name + "' (opset " + std::to_string(graph_.opset) + "): " + what);
  }

  Status apply(size_t i, const OldOpsetForm& form) {
    Node& node = graph_.nodes[i];
    const std::string attr(form.attribute);
    switch (form.kind) {
      case OldFormKind::kIgnoredAttribute:
        node.attrs = without(node.attrs, {form.attribute});
        return Status::Ok();
      case OldFormKind::kDefaultAttribute:
        if (!node.attrs.has(attr)) node.attrs.set(attr, int_attr(form.value));
        return Status::Ok();
      case OldFormKind::kDefaultFloatAttribute:
        if (!node.attrs.has(attr)) {
          Attribute a;
          a.kind = Attribute::Kind::kFloat;
          a.f = form.float_value;
          node.attrs.set(attr, std::move(a));
        }
        return Status::Ok();
      case OldFormKind::kRenamedAttribute:
        if (const Attribute* a = node.attrs.find(attr)) {
          Attribute moved = *a;
          node.attrs = without(node.attrs, {form.attribute});
          node.attrs.set(std::string(form.detail), std::move(moved));
        }
        return Status::Ok();
      case OldFormKind::kTypeNameAttribute:
        return type_name_to_enum(i, attr);
      case OldFormKind::kLegacyBroadcast:
        return legacy_broadcast(i);
      case OldFormKind::kTestModeOnly:
        if (node.attrs.get_int(attr, 0) == 0) return fail(i, std::string(form.detail));
        node.attrs = without(node.attrs, {form.attribute});
        return Status::Ok();
      case OldFormKind::kTestModeAsTraining: {
        const bool training = node.attrs.get_int(attr, 0) == 0;
        node.attrs = without(node.attrs, {form.attribute});
        node.attrs.set("training_mode", int_attr(training ? 1 : 0));
        return Status::Ok();
      }
      case OldFormKind::kSlopeOfOneValue:
        return slope_of_one_value(i);
      case OldFormKind::kUpsampleScales:
        return upsample_scales(i);
      case OldFormKind::kConstantInputToAttribute:
        return constant_input_to_attribute(i, form);
      case OldFormKind::kNotSupported:
        return check_old_form_supported(node, graph_.opset);
    }
    return Status::Ok();
  }

  // Cast-1's `to` names the type ("FLOAT"); later opsets give TensorProto's enum value.
  Status type_name_to_enum(size_t i, const std::string& attr) {
    Node& node = graph_.nodes[i];
    const Attribute* a = node.attrs.find(attr);
    if (!a || a->kind != Attribute::Kind::kString) return Status::Ok();
    onnx::TensorProto_DataType type{};
    if (!onnx::TensorProto_DataType_Parse(a->s, &type) || type == onnx::TensorProto::UNDEFINED)
      return fail(i,
                  "'" + attr + "' names the type '" + a->s + "', which is not an ONNX tensor type (FLOAT, INT64, …)");
    node.attrs.set(attr, int_attr(static_cast<int64_t>(type)));
    return Status::Ok();
  }

  // Opsets 1-6: without broadcast = 1, A and B have one shape (NumPy broadcasting gives the same
  // result); with it and no axis, B's shape is a suffix of A's (again NumPy's rule); with an
  // axis, B's dims line up with A's from that axis on, which LegacyAxisAlign turns into NumPy's
  // rule by appending 1-dims to B once A's rank is known.
  Status legacy_broadcast(size_t i) {
    Node& node = graph_.nodes[i];
    const bool broadcast = node.attrs.get_int("broadcast", 0) != 0;
    const Attribute* axis = node.attrs.find("axis");
    const bool align = broadcast && axis != nullptr && node.inputs.size() == 2 && node.inputs[1] >= 0;
    Node aligner;
    if (align) {
      aligner.name = node.name + "/legacy_axis_align";
      aligner.op_type = std::string(kLegacyAxisAlign);
      aligner.domain = "openge";
      aligner.attrs.set("axis", *axis);
      Attribute origin;  // the node its messages name
      origin.kind = Attribute::Kind::kString;
      origin.s = node.op_type + " '" + node.name + "' (opset " + std::to_string(graph_.opset) + ")";
      aligner.attrs.set("aligns_for", std::move(origin));
      aligner.inputs = {node.inputs[1], node.inputs[0]};
    }
    node.attrs = without(node.attrs, {"broadcast", "axis"});
    if (!align) return Status::Ok();
    const std::string b_name = graph_.values[static_cast<size_t>(aligner.inputs[0])].name;
    const int v = graph_.add_value(b_name + "/aligned_for_" + graph_.nodes[i].name);
    graph_.values[static_cast<size_t>(v)].producer = static_cast<int>(graph_.nodes.size() + added_.size());
    aligner.outputs = {v};
    graph_.nodes[i].inputs[1] = v;
    added_.push_back(std::move(aligner));
    return Status::Ok();
  }

  // PRelu before opset 7 does not say how a slope broadcasts against X (Caffe2 applied a [C]
  // slope per channel, NumPy's rule would apply it along the last axis): one value only.
  Status slope_of_one_value(size_t i) {
    const Node& node = graph_.nodes[i];
    const int s = node.inputs.size() > 1 ? node.inputs[1] : -1;
    const Value* slope = s >= 0 ? &graph_.values[static_cast<size_t>(s)] : nullptr;
    if (slope && slope->constant && slope->constant->numel() == 1) return Status::Ok();
    return fail(i,
                "the slope must be a constant with one value: before opset 7 ONNX does not define how a "
                "larger slope broadcasts against X (re-export with opset >= 7)");
  }

  // Upsample-1: height_scale and width_scale of an NCHW input become the scales [1, 1, h, w] of
  // Upsample-7 (same output size floor(dim * scale), same asymmetric sampling).
  Status upsample_scales(size_t i) {
    Node& node = graph_.nodes[i];
    Attribute scales;
    scales.kind = Attribute::Kind::kFloats;
    scales.floats = {1.0f, 1.0f, node.attrs.get_float("height_scale", 1.0f), node.attrs.get_float("width_scale", 1.0f)};
    node.attrs = without(node.attrs, {"height_scale", "width_scale"});
    node.attrs.set("scales", std::move(scales));
    return Status::Ok();
  }

  Status constant_input_to_attribute(size_t i, const OldOpsetForm& form) {
    Node& node = graph_.nodes[i];
    const size_t index = static_cast<size_t>(form.value);
    if (index >= node.inputs.size() || node.inputs[index] < 0) return Status::Ok();
    const Value& v = graph_.values[static_cast<size_t>(node.inputs[index])];
    if (!v.constant || !dtype_is_integer(v.constant->dtype())) return fail(i, std::string(form.detail));
    Attribute a;
    a.kind = Attribute::Kind::kInts;
    a.ints = v.constant->to_int64_vector();
    node.attrs.set(std::string(form.attribute), std::move(a));
    node.inputs.resize(index);
    return Status::Ok();
  }

  Graph& graph_;
  std::vector<Node> added_;
};

}  // namespace

Status apply_old_opset_forms(Graph& graph) { return OldFormRewriter(graph).run(); }

Status check_old_form_supported(const Node& node, int64_t opset) {
  for (const OldOpsetForm* form : old_opset_forms(node.op_type, opset)) {
    if (form->kind != OldFormKind::kNotSupported) continue;
    if (form->value == 0 || static_cast<int64_t>(node.inputs.size()) > form->value)
      return unsupported("node " + node.op_type + " '" + node.name + "' (opset " + std::to_string(opset) +
                         "): " + std::string(form->detail));
  }
  return Status::Ok();
}

}  // namespace openge
