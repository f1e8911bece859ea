#include "graph_dump/graph_to_onnx.h"

#include <onnx/onnx_pb.h>

#include <set>
#include <string_view>
#include <utility>

#include "base/file_backed_memory.h"
#include "ops/generator/file_constant.h"
#include "ops/op_registry.h"

namespace openge::graph_dump {
namespace {

// The domains besides the default one whose ops OpenGE registers, and the opset a file imports.
constexpr std::pair<std::string_view, int64_t> kOtherDomainOpsets[] = {{"ai.onnx.preview.training", 1}};

// The tensor type inside `type`: itself, or wrapped in a sequence and/or optional type.
onnx::TypeProto::Tensor* tensor_type_of(ValueKind kind, DType dtype, onnx::TypeProto* type) {
  if (kind == ValueKind::kOptional || kind == ValueKind::kOptionalSequence)
    type = type->mutable_optional_type()->mutable_elem_type();
  if (kind == ValueKind::kSequence || kind == ValueKind::kOptionalSequence)
    type = type->mutable_sequence_type()->mutable_elem_type();
  auto* tensor_type = type->mutable_tensor_type();
  tensor_type->set_elem_type(static_cast<int32_t>(dtype));
  return tensor_type;
}

void set_type(const Value& v, bool with_shape, onnx::ValueInfoProto& info) {
  info.set_name(v.name);
  if (v.dtype == DType::kUndefined) return;
  auto* tensor_type = tensor_type_of(v.kind, v.dtype, info.mutable_type());
  if (!with_shape || !v.shape) return;
  auto* shape = tensor_type->mutable_shape();
  for (int64_t d : *v.shape) {
    if (d >= 0)
      shape->add_dim()->set_dim_value(d);
    else
      shape->add_dim()->set_dim_param("?");
  }
}

void set_tensor(const Tensor& t, const std::string& name, bool with_data, onnx::TensorProto& proto) {
  proto.set_name(name);
  proto.set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) proto.add_dims(d);
  if (!with_data) return;
  if (t.dtype() == DType::kString) {
    for (int64_t i = 0; i < t.numel(); ++i) proto.add_string_data(t.data<std::string>()[i]);
    return;
  }
  proto.set_raw_data(t.raw(), t.nbytes());
}

void add_attribute(const std::string& name, const Attribute& a, bool with_data, onnx::NodeProto& node) {
  using K = Attribute::Kind;
  if (a.kind == K::kGraph) return;  // subgraphs are not kept in the IR's attributes
  auto* p = node.add_attribute();
  p->set_name(name);
  switch (a.kind) {
    case K::kFloat:
      p->set_type(onnx::AttributeProto::FLOAT);
      p->set_f(a.f);
      break;
    case K::kInt:
      p->set_type(onnx::AttributeProto::INT);
      p->set_i(a.i);
      break;
    case K::kString:
      p->set_type(onnx::AttributeProto::STRING);
      p->set_s(a.s);
      break;
    case K::kTensor:
      p->set_type(onnx::AttributeProto::TENSOR);
      set_tensor(a.t, "", with_data, *p->mutable_t());
      break;
    case K::kFloats:
      p->set_type(onnx::AttributeProto::FLOATS);
      for (float f : a.floats) p->add_floats(f);
      break;
    case K::kInts:
      p->set_type(onnx::AttributeProto::INTS);
      for (int64_t i : a.ints) p->add_ints(i);
      break;
    case K::kStrings:
      p->set_type(onnx::AttributeProto::STRINGS);
      for (const auto& s : a.strings) p->add_strings(s);
      break;
    case K::kType:
      p->set_type(onnx::AttributeProto::TYPE_PROTO);
      tensor_type_of(a.type_kind, a.type_dtype, p->mutable_tp());
      break;
    case K::kGraph:
      break;
  }
}

const std::string& name_of(const Graph& g, int v) {
  static const std::string kNone;
  return v < 0 ? kNone : g.values[static_cast<size_t>(v)].name;
}

}  // namespace

std::optional<int64_t> domain_opset(const Node& n) {
  const OpSchema* schema = find_op_schema(n.op_type);
  if (!schema || schema->domain != n.domain) return std::nullopt;
  for (const auto& [domain, version] : kOtherDomainOpsets)
    if (domain == n.domain) return version;
  return std::nullopt;
}

void graph_to_onnx(const Graph& g, Detail detail, onnx::ModelProto& model, bool file_constants) {
  const bool with_attributes = detail != Detail::kMinimal;
  model.set_ir_version(8);
  model.set_producer_name("OpenGE");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(g.opset);
  // Every other domain the nodes use, so that the file opens (Netron, onnx.checker) as a model.
  std::set<std::string> domains;
  for (const Node& n : g.nodes)
    if (!n.domain.empty() && domains.insert(n.domain).second) {
      auto* other = model.add_opset_import();
      other->set_domain(n.domain);
      other->set_version(domain_opset(n).value_or(1));
    }
  // Weights read from external_weight's files are FileConstant nodes of OpenGE's domain.
  auto file_constant_domain = [&] {
    if (domains.insert(kFileConstantDomain).second) {
      auto* other = model.add_opset_import();
      other->set_domain(kFileConstantDomain);
      other->set_version(1);
    }
  };
  auto* graph = model.mutable_graph();
  graph->set_name(g.name.empty() ? "graph" : g.name);

  std::vector<char> used(g.values.size(), 0);
  for (const Node& n : g.nodes)
    for (int v : n.inputs)
      if (v >= 0) used[static_cast<size_t>(v)] = 1;
  for (int v : g.outputs) used[static_cast<size_t>(v)] = 1;
  std::vector<char> declared(g.values.size(), 0);
  for (int v : g.inputs) {
    set_type(g.values[static_cast<size_t>(v)], true, *graph->add_input());
    declared[static_cast<size_t>(v)] = 1;
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const int v = g.outputs[i];
    Value value;  // name and type only (no constant copied)
    value.name = g.values[static_cast<size_t>(v)].name;
    value.dtype = g.values[static_cast<size_t>(v)].dtype;
    value.shape = g.values[static_cast<size_t>(v)].shape;
    // Before inference an output has only the type the model declares.
    if (value.dtype == DType::kUndefined && i < g.declared_outputs.size()) {
      value.dtype = g.declared_outputs[i].dtype;
      value.shape = g.declared_outputs[i].shape;
    }
    set_type(value, true, *graph->add_output());
    declared[static_cast<size_t>(v)] = 1;
  }
  // Weights: constants no node of this stage produces (initializers, and results of folded nodes
  // once those nodes are gone).
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& value = g.values[v];
    if (!value.constant || value.producer >= 0 || !used[v]) continue;
    declared[v] = 1;
    const Tensor& t = *value.constant;
    if (auto file = file_constants && t.defined() ? find_file_backed(t.raw(), t.nbytes()) : std::nullopt) {
      // external_weight (OPT-external_weight-5): the weight is the file's bytes, as GE's
      // FileConstant node names them (file, offset, length), with its dtype and shape.
      file_constant_domain();
      auto* node = graph->add_node();
      node->set_name(value.name + "_FileConstant");
      node->set_op_type(kFileConstantOp);
      node->set_domain(kFileConstantDomain);
      node->add_output(value.name);
      const Attributes attrs = file_constant_attributes(file->path, file->offset, file->length, t.dtype(), t.shape());
      for (const auto& [name, a] : attrs.all()) add_attribute(name, a, false, *node);
      set_type(value, true, *graph->add_value_info());
      continue;
    }
    set_tensor(t, value.name, detail == Detail::kFull, *graph->add_initializer());
  }
  for (const Node& n : g.nodes) {
    auto* node = graph->add_node();
    node->set_name(n.name);
    node->set_op_type(n.op_type);
    if (!n.domain.empty()) node->set_domain(n.domain);
    for (int v : n.inputs) node->add_input(name_of(g, v));
    for (int v : n.outputs) node->add_output(name_of(g, v));
    if (!with_attributes) continue;
    for (const auto& [name, a] : n.attrs.all()) add_attribute(name, a, detail == Detail::kFull, *node);
    Attribute extra;
    if (!n.fused_from.empty()) {
      extra.kind = Attribute::Kind::kStrings;
      extra.strings = n.fused_from;
      add_attribute("_fused_from", extra, false, *node);
    }
    if (n.aicpu_only) {
      extra = Attribute{};
      extra.i = 1;
      add_attribute("_aicpu_only", extra, false, *node);
    }
    if (!n.impl_mode.empty()) {
      extra = Attribute{};
      extra.kind = Attribute::Kind::kString;
      extra.s = n.impl_mode;
      add_attribute("_impl_mode", extra, false, *node);
    }
  }
  if (!with_attributes) return;
  // The inferred dtype and shape of every inner value (what the stage knows about it).
  for (const Node& n : g.nodes)
    for (int v : n.outputs)
      if (v >= 0 && !declared[static_cast<size_t>(v)] && g.values[static_cast<size_t>(v)].dtype != DType::kUndefined)
        set_type(g.values[static_cast<size_t>(v)], true, *graph->add_value_info());
}

}  // namespace openge::graph_dump
