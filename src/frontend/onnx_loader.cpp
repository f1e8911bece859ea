#include "frontend/onnx_loader.h"

#include <onnx/onnx_pb.h>  // defines ONNX_API before including the generated onnx-ml.pb.h

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "base/mapped_file.h"
#include "frontend/attribute_proto.h"
#include "frontend/model_without_weights.h"
#include "frontend/old_opset_forms.h"
#include "frontend/onnx_schema_check.h"
#include "frontend/tensor_proto.h"
#include "ops/op_registry.h"
#include "ops/node_eval.h"

namespace openge {
namespace fs = std::filesystem;
namespace {

// Subgraphs (If branches, Loop/Scan bodies) nested deeper than this are refused: no real model
// comes close, and a hostile one must not recurse the loader or the executor without bound.
constexpr int kMaxSubgraphDepth = 16;

class Loader {
 public:
  Loader(std::string source, std::string base_dir) : source_(std::move(source)), base_dir_(std::move(base_dir)) {}
  // A loader for a subgraph of a node of `parent`'s graph.
  Loader(const Loader& parent, int64_t opset)
      : source_(parent.source_),
        base_dir_(parent.base_dir_),
        domain_opsets_(parent.domain_opsets_),
        default_domain_imported_(parent.default_domain_imported_),
        parent_(&parent),
        depth_(parent.depth_ + 1) {
    graph_.source = source_;
    graph_.opset = opset;
  }

  // The main graph is read like a subgraph without an enclosing one. Its initializers' bytes are
  // freed from `model` as each becomes a tensor, so a large model is never held twice.
  // `outside`: where the main graph's weights lie when the parse left them out (or null).
  Result<Graph> load(onnx::ModelProto& model, const ModelWithoutWeights* outside = nullptr) {
    outside_ = outside;
    graph_.source = source_;
    OPENGE_RETURN_IF_ERROR(read_opset(model));
    return load_subgraph(model.graph(), model.mutable_graph());
  }

  // A subgraph: its own initializers, inputs (types optional: a Loop body's may be untyped),
  // nodes and outputs; a name it does not define is looked up in the enclosing graphs and becomes
  // a captured input (captured_names()).
  // `weights_owner`, when given, is `g` itself, mutable: each initializer's raw_data is released
  // once converted.
  Result<Graph> load_subgraph(const onnx::GraphProto& g, onnx::GraphProto* weights_owner = nullptr) {
    graph_.name = g.name();
    OPENGE_RETURN_IF_ERROR(read_initializers(g, weights_owner));
    OPENGE_RETURN_IF_ERROR(read_inputs(g));
    OPENGE_RETURN_IF_ERROR(read_nodes(g));
    OPENGE_RETURN_IF_ERROR(read_outputs(g));
    auto order = graph_.topological_order();
    if (!order.ok()) return order.status();
    return std::move(graph_);
  }
  const std::vector<std::string>& captured_names() const { return captured_; }

 private:
  bool is_subgraph() const { return parent_ != nullptr; }

  // Whether `name` is a value of this graph or of an enclosing one.
  bool defines(const std::string& name) const {
    return graph_.find_value(name) >= 0 || (parent_ && parent_->defines(name));
  }

  // The value `name` refers to: this graph's own, else an enclosing graph's, which becomes a
  // captured input of this subgraph; -1 when no graph in scope defines it.
  int resolve(const std::string& name) {
    if (const int v = graph_.find_value(name); v >= 0) return v;
    if (!parent_ || !parent_->defines(name)) return -1;
    const int v = graph_.add_value(name);
    graph_.inputs.push_back(v);
    captured_.push_back(name);
    return v;
  }

  Status read_opset(const onnx::ModelProto& model) {
    bool found = false;
    for (const auto& opset : model.opset_import()) {
      if (opset.domain().empty() || opset.domain() == "ai.onnx") {
        graph_.opset = opset.version();
        found = true;
      } else {
        domain_opsets_[opset.domain()] = opset.version();
      }
    }
    if (!found && model.ir_version() < 3) {  // IR versions 1-2 have no opset_import: opset 1
      graph_.opset = 1;
      found = true;
    }
    if (!found &&
        !domain_opsets_.empty()) {  // only other domains (a lone optimizer): no default-domain node may appear
      graph_.opset = kMaxOpset;
      default_domain_imported_ = false;
      found = true;
    }
    if (!found) {
      return unsupported("the model declares no default-domain opset; OpenGE runs opsets " + std::to_string(kMinOpset) +
                         " to " + std::to_string(kMaxOpset) + " (re-export it with one of those)");
    }
    if (graph_.opset < kMinOpset || graph_.opset > kMaxOpset)
      return unsupported("the model uses default-domain opset " + std::to_string(graph_.opset) +
                         "; OpenGE runs opsets " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                         " (convert it with onnx.version_converter or re-export)");
    return Status::Ok();
  }

  Status read_initializers(const onnx::GraphProto& g, onnx::GraphProto* weights_owner) {
    for (int k = 0; k < g.initializer_size(); ++k) {
      const onnx::TensorProto& init = g.initializer(k);
      const std::string what = "initializer '" + init.name() + "'";
      if (init.name().empty()) return invalid_model("an initializer has no name");
      if (graph_.find_value(init.name()) >= 0) return invalid_model(what + " is defined twice");
      std::optional<OutsideRawData> raw;
      if (weights_owner && outside_) raw = outside_->raw_data(static_cast<size_t>(k));
      auto tensor = tensor_from_proto(init, base_dir_, what, raw);
      if (!tensor.ok()) return tensor.status();
      const int v = graph_.add_value(init.name());
      Value& value = graph_.values[static_cast<size_t>(v)];
      value.dtype = tensor->dtype();
      value.shape = tensor->shape();
      value.constant = std::move(tensor.value());
      graph_.initializers.push_back(v);
      if (weights_owner) std::string().swap(*weights_owner->mutable_initializer(k)->mutable_raw_data());
    }
    if (g.sparse_initializer_size() > 0) return unsupported("sparse initializers are not supported");
    return Status::Ok();
  }

  Status read_inputs(const onnx::GraphProto& g) {
    for (const auto& in : g.input()) {
      if (in.name().empty()) return invalid_model("a graph input has no name");
      if (int existing = graph_.find_value(in.name()); existing >= 0) {
        // IR < 4 lists initializers among the inputs too; those stay constants.
        if (graph_.values[static_cast<size_t>(existing)].constant) continue;
        return invalid_model("graph input '" + in.name() + "' is declared twice");
      }
      const int v = graph_.add_value(in.name());
      if (!in.has_type() || untyped_in_subgraph(in)) {  // typed at run time by what the node passes in
        graph_.inputs.push_back(v);
        continue;
      }
      OPENGE_RETURN_IF_ERROR(read_type(in, graph_.values[static_cast<size_t>(v)], "graph input '" + in.name() + "'"));
      graph_.inputs.push_back(v);
    }
    return Status::Ok();
  }

  // A subgraph's inputs and outputs may leave their element type out (ONNX infers it).
  bool untyped_in_subgraph(const onnx::ValueInfoProto& info) const {
    if (!is_subgraph()) return false;
    return !info.has_type() || (info.type().has_tensor_type() && info.type().tensor_type().elem_type() == 0);
  }

  static Status read_type(const onnx::ValueInfoProto& info, Value& value, const std::string& what) {
    if (!info.has_type()) return unsupported(what + " has no type");
    return read_type_proto(info.type(), value, what);
  }

  // A tensor, a sequence of tensors, or an optional of either; a sequence or optional keeps
  // only its element type (the shapes of its tensors are known at run time).
  static Status read_type_proto(const onnx::TypeProto& type, Value& value, const std::string& what) {
    const onnx::TypeProto* inner = &type;
    value.kind = ValueKind::kTensor;
    if (type.has_optional_type() && type.optional_type().has_elem_type()) {
      inner = &type.optional_type().elem_type();
      value.kind = inner->has_sequence_type() ? ValueKind::kOptionalSequence : ValueKind::kOptional;
    }
    if (inner->has_sequence_type() && inner->sequence_type().has_elem_type()) {
      if (value.kind == ValueKind::kTensor) value.kind = ValueKind::kSequence;
      inner = &inner->sequence_type().elem_type();
    }
    if (!inner->has_tensor_type())
      return unsupported(
          what + " is a " + value_kind_name(value.kind) +
          " of something other than tensors (maps, sparse tensors and nested sequences are not supported)");
    const auto& tt = inner->tensor_type();
    value.dtype = static_cast<DType>(tt.elem_type());
    if (value.kind != ValueKind::kTensor) {
      if (tt.elem_type() != 0 && !dtype_supported(value.dtype) && value.dtype != DType::kString)
        return unsupported(what + " holds element type " + std::to_string(tt.elem_type()) +
                           ", which OpenGE does not support");
      return Status::Ok();
    }
    if (!dtype_supported(value.dtype) && value.dtype != DType::kString)
      return unsupported(what + " has element type " + std::to_string(tt.elem_type()) + " (" + dtype_name(value.dtype) +
                         "), which OpenGE does not support");
    if (tt.has_shape()) {
      Shape shape;
      for (const auto& d : tt.shape().dim()) {
        if (d.has_dim_value() && d.dim_value() < 0)
          return invalid_model(what + " has a negative dimension " + std::to_string(d.dim_value()));
        shape.push_back(d.has_dim_value() ? d.dim_value() : -1);  // -1: symbolic, set at run time
      }
      Shape fixed = shape;  // symbolic dims count as 1 for the size check
      for (int64_t& d : fixed) d = d < 0 ? 1 : d;
      OPENGE_RETURN_IF_ERROR(check_dims(fixed, value.dtype, what));
      value.shape = shape;
    }
    return Status::Ok();
  }

  Status read_nodes(const onnx::GraphProto& g) {
    // Outputs first, so that a node may reference a value produced later in the file (the
    // topological sort then orders them, or reports a cycle).
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& np = g.node(i);
      Node node;
      node.name = np.name().empty() ? np.op_type() + "_" + std::to_string(i) : np.name();
      node.op_type = np.op_type();
      node.domain = np.domain() == "ai.onnx" ? "" : np.domain();
      const std::string label = node.op_type + " '" + node.name + "'";
      if (node.domain.empty() && !default_domain_imported_)
        return invalid_model("node " + label +
                             " is an op of the default ONNX domain, which the model does not import "
                             "(add the default domain to its opset_import)");
      if (!node.domain.empty() && !registered_in_domain(node))
        return unsupported("node " + label + " is in domain '" + node.domain +
                           "'; OpenGE runs the default ONNX domain and the optimizers of ai.onnx.preview.training");
      for (const auto& out : np.output()) {
        if (out.empty()) {
          node.outputs.push_back(-1);
          continue;
        }
        if (graph_.find_value(out) >= 0)
          return invalid_model("node " + label + " produces '" + out +
                               "', which is already defined (a value must have one producer)");
        const int v = graph_.add_value(out);
        graph_.values[static_cast<size_t>(v)].producer = static_cast<int>(graph_.nodes.size());
        node.outputs.push_back(v);
      }
      graph_.nodes.push_back(std::move(node));
    }
    // Attributes once every value of this graph exists: a subgraph may read any of them.
    std::vector<std::vector<std::string>> captured(static_cast<size_t>(g.node_size()));
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& np = g.node(i);
      Node& node = graph_.nodes[static_cast<size_t>(i)];
      const std::string label = node.op_type + " '" + node.name + "'";
      if (node.op_type != "Constant")  // Constant's attribute forms are checked when it is folded
        OPENGE_RETURN_IF_ERROR(check_node_against_onnx_schema(
            np, node.domain.empty() ? graph_.opset : domain_opsets_.at(node.domain), label));
      OPENGE_RETURN_IF_ERROR(read_attributes(np, node, label, &captured[static_cast<size_t>(i)]));
    }
    for (int i = 0; i < g.node_size(); ++i) {
      Node& node = graph_.nodes[static_cast<size_t>(i)];
      const std::string reads = "node " + node.op_type + " '" + node.name + "' reads '";
      for (const auto& in : g.node(i).input()) {
        if (in.empty()) {
          node.inputs.push_back(-1);
          continue;
        }
        const int v = resolve(in);
        if (v < 0)
          return invalid_model(reads + in + "', which no node, input or initializer " +
                               (is_subgraph() ? "of this subgraph or an enclosing graph " : "") + "defines");
        node.inputs.push_back(v);
      }
      // The outer-scope values its subgraphs read become explicit trailing inputs, so that the
      // graph's order, dead-node removal and memory planning see them as what they are.
      for (const std::string& name : captured[static_cast<size_t>(i)]) {
        const int v = resolve(name);
        if (v < 0) return internal_error(reads + name + "' from a subgraph, which nothing defines");
        node.inputs.push_back(v);
      }
    }
    OPENGE_RETURN_IF_ERROR(convert_and_check_nodes());
    return apply_old_opset_forms(graph_);  // opsets 1-6: the old forms of ops/opset_forms.cpp
  }

  // Loads the graph-valued attributes of one node, then gives each of its subgraphs the same
  // trailing captured inputs (the union of what any of them reads), which the node will take as
  // trailing inputs in that order (`captured`).
  Status read_subgraphs(const onnx::NodeProto& np, Node& node, const std::string& label,
                        std::vector<std::string>* captured) {
    struct Loaded {
      std::string attribute;
      Graph graph;
      size_t captured;  // its own captured inputs, at the end of its inputs
    };
    std::vector<Loaded> graphs;
    for (const auto& ap : np.attribute()) {
      if (ap.type() != onnx::AttributeProto::GRAPH) continue;
      const std::string what = "node " + label + " attribute '" + ap.name() + "'";
      if (depth_ + 1 > kMaxSubgraphDepth)
        return invalid_model(what + ": subgraphs are nested more than " + std::to_string(kMaxSubgraphDepth) + " deep");
      Loader sub(*this, graph_.opset);
      auto graph = sub.load_subgraph(ap.g());
      if (!graph.ok()) return graph.status().with_context(what);
      for (const std::string& name : sub.captured_names())
        if (std::find(captured->begin(), captured->end(), name) == captured->end()) captured->push_back(name);
      graph->source = source_ + " (" + label + " " + ap.name() + ")";
      graphs.push_back({ap.name(), std::move(graph.value()), sub.captured_names().size()});
    }
    for (Loaded& loaded : graphs) {
      Graph& sub = loaded.graph;
      std::vector<int> inputs(sub.inputs.begin(), sub.inputs.end() - static_cast<std::ptrdiff_t>(loaded.captured));
      for (const std::string& outer : *captured) {
        int v = sub.find_value(outer);
        const bool is_input = v >= 0 && std::find(sub.inputs.begin(), sub.inputs.end(), v) != sub.inputs.end();
        // Another branch reads this outer value; here it is unused (or shadowed by a local value).
        if (!is_input) v = sub.add_value("(outer) " + outer);
        inputs.push_back(v);
      }
      sub.inputs = std::move(inputs);
      sub.captured_inputs = captured->size();
      Attribute a;
      a.kind = Attribute::Kind::kGraph;
      a.graph = std::make_shared<const Graph>(std::move(sub));
      node.attrs.set(loaded.attribute, std::move(a));
    }
    return Status::Ok();
  }

  Status read_attributes(const onnx::NodeProto& np, Node& node, const std::string& label,
                         std::vector<std::string>* captured) {
    OPENGE_RETURN_IF_ERROR(read_subgraphs(np, node, label, captured));
    for (const auto& ap : np.attribute()) {
      if (ap.type() == onnx::AttributeProto::GRAPH) continue;  // read_subgraphs
      const std::string what = "node " + label + " attribute '" + ap.name() + "'";
      if (ap.type() == onnx::AttributeProto::TYPE_PROTO) {  // Optional's `type`: a value type
        Attribute a;
        a.kind = Attribute::Kind::kType;
        Value described;
        OPENGE_RETURN_IF_ERROR(read_type_proto(ap.tp(), described, what));
        a.type_kind = described.kind;
        a.type_dtype = described.dtype;
        node.attrs.set(ap.name(), std::move(a));
        continue;
      }
      auto a = attribute_from_proto(ap, base_dir_, what);
      if (!a.ok()) return a.status();
      node.attrs.set(ap.name(), std::move(a.value()));
    }
    return Status::Ok();
  }

  // Constant nodes become initializers; every other node must be an op OpenGE knows with a
  // valid number of inputs and outputs.
  Status convert_and_check_nodes() {
    std::vector<Node> kept;
    std::vector<int> new_index(graph_.nodes.size(), -1);
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      Node& node = graph_.nodes[i];
      const std::string label = node.op_type + " '" + node.name + "'";
      if (node.op_type == "Constant") {
        OPENGE_RETURN_IF_ERROR(fold_constant_node(node, label));
        continue;
      }
      const OpSchema* schema = find_op_schema(node.op_type);
      if (!schema) return unsupported("node " + label + ": op " + node.op_type + " is not supported by OpenGE");
      OPENGE_RETURN_IF_ERROR(check_old_form_supported(node, graph_.opset));
      OPENGE_RETURN_IF_ERROR(check_arity(*schema, node).with_context("node"));
      new_index[i] = static_cast<int>(kept.size());
      kept.push_back(std::move(node));
    }
    graph_.nodes = std::move(kept);
    for (Value& v : graph_.values)
      if (v.producer >= 0) v.producer = new_index[static_cast<size_t>(v.producer)];
    return Status::Ok();
  }

  Status fold_constant_node(const Node& node, const std::string& label) {
    if (node.outputs.size() != 1 || node.outputs[0] < 0 || !node.inputs.empty())
      return invalid_model("node " + label + ": Constant takes no inputs and has one output");
    if (node.attrs.all().size() != 1)
      return invalid_model("node " + label + ": Constant needs exactly one of value, value_float(s), value_int(s)");
    const auto& [name, a] = *node.attrs.all().begin();
    Tensor t;
    if (name == "value" && a.kind == Attribute::Kind::kTensor) {
      t = a.t;
    } else if (name == "value_float" && a.kind == Attribute::Kind::kFloat) {
      t = Tensor(DType::kFloat32, {});
      *t.data<float>() = a.f;
    } else if (name == "value_int" && a.kind == Attribute::Kind::kInt) {
      t = Tensor(DType::kInt64, {});
      *t.data<int64_t>() = a.i;
    } else if (name == "value_floats" && a.kind == Attribute::Kind::kFloats) {
      t = Tensor(DType::kFloat32, {static_cast<int64_t>(a.floats.size())});
      std::copy(a.floats.begin(), a.floats.end(), t.data<float>());
    } else if (name == "value_ints" && a.kind == Attribute::Kind::kInts) {
      t = Tensor(DType::kInt64, {static_cast<int64_t>(a.ints.size())});
      std::copy(a.ints.begin(), a.ints.end(), t.data<int64_t>());
    } else {
      return unsupported("node " + label + ": Constant attribute '" + name + "' of this type is not supported");
    }
    Value& v = graph_.values[static_cast<size_t>(node.outputs[0])];
    v.producer = -1;
    v.dtype = t.dtype();
    v.shape = t.shape();
    v.constant = std::move(t);
    return Status::Ok();
  }

  Status read_outputs(const onnx::GraphProto& g) {
    if (g.output_size() == 0) return invalid_model("the graph declares no outputs");
    std::set<std::string> seen;
    for (const auto& out : g.output()) {
      const int v = resolve(out.name());  // a subgraph may pass an outer value straight through
      if (v < 0)
        return invalid_model("graph output '" + out.name() + "' is not produced by any node, input or initializer");
      if (!seen.insert(out.name()).second) return invalid_model("graph output '" + out.name() + "' is listed twice");
      graph_.outputs.push_back(v);
      Graph::DeclaredType declared;
      if (out.has_type() && !untyped_in_subgraph(out)) {
        Value scratch;
        OPENGE_RETURN_IF_ERROR(read_type(out, scratch, "graph output '" + out.name() + "'"));
        declared.kind = scratch.kind;
        declared.dtype = scratch.dtype;
        declared.shape = scratch.shape;
      }
      graph_.declared_outputs.push_back(std::move(declared));
    }
    return Status::Ok();
  }

  // An op the table registers in the node's (non-default) domain, which the model imports.
  bool registered_in_domain(const Node& node) const {
    const OpSchema* schema = find_op_schema(node.op_type);
    return schema && schema->domain == node.domain && domain_opsets_.count(node.domain);
  }

  std::string source_;
  std::string base_dir_;
  std::map<std::string, int64_t> domain_opsets_;  // opset_import of the other domains
  bool default_domain_imported_ = true;
  Graph graph_;
  const Loader* parent_ = nullptr;                // the graph enclosing this subgraph
  int depth_ = 0;                                 // 0 for the model's graph
  std::vector<std::string> captured_;             // outer-scope names this subgraph reads, in first-use order
  const ModelWithoutWeights* outside_ = nullptr;  // the main graph's only
};

// `pages`, when the bytes are a mapped file, gets each initializer's pages back once copied.
Result<Graph> load_model(const void* data, size_t size, const std::string& source_name, const std::string& base_dir,
                         const MappedFile* pages) {
  const std::string where = "model " + source_name;
  if (size == 0) return invalid_model(where + ": the file is empty");
  if (size > kMaxModelBytes) return invalid_model(where + ": larger than 2 GiB; store weights as external data");
  onnx::ModelProto model;
  // Parsed without the main graph's weights where the bytes allow, so that the weights are not
  // held twice (file and protobuf); otherwise whole.
  ModelWithoutWeights outside;
  if (!outside.parse(data, size, pages, model))
    return invalid_model(where +
                         " is not an ONNX model (not a valid ONNX protobuf: the file is of another format, "
                         "corrupt or truncated); give the .onnx file the model was exported to");
  if (!model.has_graph())
    return invalid_model(where +
                         " is not an ONNX model (it has no graph); give the .onnx file the model was exported to");
  Loader loader(source_name, base_dir);
  auto graph = loader.load(model, &outside);
  if (!graph.ok()) return graph.status().with_context(where);
  return graph;
}

}  // namespace

Result<Graph> load_onnx_from_bytes(const void* data, size_t size, const std::string& source_name,
                                   const std::string& base_dir) {
  return load_model(data, size, source_name, base_dir, nullptr);
}

Result<Graph> load_onnx(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return io_error("model " + path + ": is a directory, not an .onnx file");
  // Parsed straight from the file's pages; the mapping goes as soon as the parse is done.
  auto file = MappedFile::open(path);
  if (!file.ok())
    return io_error("model " + path +
                    ": cannot open the file (check the path and its read permission): " + file.status().message());
  (*file)->advise_sequential();
  const std::string base = fs::path(path).parent_path().string();
  return load_model((*file)->data(), (*file)->size(), path, base.empty() ? "." : base, file->get());
}

}  // namespace openge
