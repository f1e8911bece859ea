// The graph IR: values (edges) and nodes (ops) in a flat, index-addressed form. Passes and the
// executor refer to values and nodes by index; names are kept for messages and dumps.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

struct Graph;

struct Attribute {
  enum class Kind { kFloat, kInt, kString, kTensor, kFloats, kInts, kStrings, kGraph, kType };
  Kind kind = Kind::kInt;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::shared_ptr<const Graph> graph;  // kGraph: a subgraph (If's branches, Loop's and Scan's body)
  // kType: a TypeProto (Optional's `type`): the kind of value and its element type.
  ValueKind type_kind = ValueKind::kTensor;
  DType type_dtype = DType::kUndefined;
};

class Attributes {
 public:
  void set(const std::string& name, Attribute a) { map_[name] = std::move(a); }
  bool has(const std::string& name) const { return map_.count(name) != 0; }
  const Attribute* find(const std::string& name) const;
  const std::map<std::string, Attribute>& all() const { return map_; }

  int64_t get_int(const std::string& name, int64_t fallback) const;
  float get_float(const std::string& name, float fallback) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> get_ints(const std::string& name, std::vector<int64_t> fallback = {}) const;
  std::vector<float> get_floats(const std::string& name, std::vector<float> fallback = {}) const;
  const Tensor* get_tensor(const std::string& name) const;

 private:
  std::map<std::string, Attribute> map_;
};

struct Value {
  std::string name;
  ValueKind kind = ValueKind::kTensor;  // a sequence or optional has no shape; dtype is its elements'
  DType dtype = DType::kUndefined;
  std::optional<Shape> shape;      // known static shape, if any (-1 dims mean "unknown")
  std::optional<Tensor> constant;  // initializer or folded constant
  int producer = -1;               // node index, -1 for graph inputs and initializers
};

// True for a node that owns subgraphs (If's branches, Loop's and Scan's body).
struct Node;
bool has_subgraph(const Node& node);

// True for a shape that is known and has no unknown (-1) dims.
bool shape_is_static(const std::optional<Shape>& shape);

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;        // "" is the default ONNX domain
  std::vector<int> inputs;   // value indices; -1 for an omitted optional input
  std::vector<int> outputs;  // value indices; -1 for an omitted optional output
  Attributes attrs;
  // The model's nodes a fusion pass merged into this one, this node's own name first
  // (fusion_op_*.csv "Original Ops"); empty for a node no pass fused.
  std::vector<std::string> fused_from;
  // Set by the precision pass (src/precision/): the node runs on the AI CPU engine because the
  // SoC lacks its dtype on AI Core, and the implementation mode its kernel uses
  // ("high_precision", "high_performance", "support_out_of_bound_index"; "" = the kernel's default).
  bool aicpu_only = false;
  std::string impl_mode;
};

struct Graph {
  std::string name;
  std::string source;  // file the graph came from, for messages
  int64_t opset = 0;   // default-domain opset version
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> inputs;  // graph inputs that are not initializers
  std::vector<int> outputs;
  // The model's initializers (its weights), in file order. Constant nodes' values are constants
  // too but not listed: training learns initializers only.
  std::vector<int> initializers;
  // What the model file declares for each graph output (dtype kUndefined / no shape when it
  // says nothing); compilation checks the inferred types against it.
  struct DeclaredType {
    DType dtype = DType::kUndefined;
    std::optional<Shape> shape;  // -1 for symbolic dims
    ValueKind kind = ValueKind::kTensor;
  };
  std::vector<DeclaredType> declared_outputs;
  // A subgraph (an If branch, a Loop or Scan body): its last `captured_inputs` inputs are the
  // outer-scope values it reads, which the loader also appended, in the same order, to the
  // inputs of the node that owns it (runtime/control_flow.h). 0 for a model's main graph.
  size_t captured_inputs = 0;

  int add_value(const std::string& name);
  // -1 if no value has that name.
  int find_value(const std::string& name) const;
  // Human-readable label "Conv 'conv1'" for messages.
  std::string node_label(int node) const;

  // Nodes in an order where every input is produced before use; an error naming a node on
  // the cycle if there is one.
  Result<std::vector<int>> topological_order() const;
  // For every value, the nodes that read it (in node order).
  std::vector<std::vector<int>> consumers() const;

 private:
  std::map<std::string, int> index_;
};

}  // namespace openge
