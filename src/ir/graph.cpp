#include "ir/graph.h"

namespace openge {

bool shape_is_static(const std::optional<Shape>& shape) {
  if (!shape) return false;
  for (int64_t d : *shape)
    if (d < 0) return false;
  return true;
}

const Attribute* Attributes::find(const std::string& name) const {
  auto it = map_.find(name);
  return it == map_.end() ? nullptr : &it->second;
}

int64_t Attributes::get_int(const std::string& name, int64_t fallback) const {
  const Attribute* a = find(name);
  return a && a->kind == Attribute::Kind::kInt ? a->i : fallback;
}
float Attributes::get_float(const std::string& name, float fallback) const {
  const Attribute* a = find(name);
  if (!a) return fallback;
  if (a->kind == Attribute::Kind::kFloat) return a->f;
  if (a->kind == Attribute::Kind::kInt) return static_cast<float>(a->i);
  return fallback;
}
std::string Attributes::get_string(const std::string& name, const std::string& fallback) const {
  const Attribute* a = find(name);
  return a && a->kind == Attribute::Kind::kString ? a->s : fallback;
}
std::vector<int64_t> Attributes::get_ints(const std::string& name, std::vector<int64_t> fallback) const {
  const Attribute* a = find(name);
  return a && a->kind == Attribute::Kind::kInts ? a->ints : fallback;
}
std::vector<float> Attributes::get_floats(const std::string& name, std::vector<float> fallback) const {
  const Attribute* a = find(name);
  return a && a->kind == Attribute::Kind::kFloats ? a->floats : fallback;
}
const Tensor* Attributes::get_tensor(const std::string& name) const {
  const Attribute* a = find(name);
  return a && a->kind == Attribute::Kind::kTensor ? &a->t : nullptr;
}

int Graph::add_value(const std::string& name) {
  const int id = static_cast<int>(values.size());
  Value value;
  value.name = name;
  values.push_back(std::move(value));
  if (!name.empty()) index_[name] = id;
  return id;
}

int Graph::find_value(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

std::string Graph::node_label(int node) const {
  const Node& n = nodes[static_cast<size_t>(node)];
  return n.op_type + " '" + (n.name.empty() ? "#" + std::to_string(node) : n.name) + "'";
}

Result<std::vector<int>> Graph::topological_order() const {
  // Kahn's algorithm, keeping the model's order among ready nodes so that runs are
  // reproducible and match the file.
  const size_t n = nodes.size();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(values.size());
  for (size_t i = 0; i < n; ++i) {
    for (int v : nodes[i].inputs) {
      if (v < 0 || values[static_cast<size_t>(v)].producer < 0) continue;
      ++pending[i];
      users[static_cast<size_t>(v)].push_back(static_cast<int>(i));
    }
  }
  std::vector<int> order;
  order.reserve(n);
  std::vector<int> ready;
  for (size_t i = n; i-- > 0;)
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  while (!ready.empty()) {
    // `ready` is a stack holding nodes in descending index order: pop the smallest.
    const int node = ready.back();
    ready.pop_back();
    order.push_back(node);
    std::vector<int> released;
    for (int out : nodes[static_cast<size_t>(node)].outputs) {
      if (out < 0) continue;
      for (int user : users[static_cast<size_t>(out)])
        if (--pending[static_cast<size_t>(user)] == 0) released.push_back(user);
    }
    for (int r : released) {
      auto pos = ready.begin();
      while (pos != ready.end() && *pos > r) ++pos;
      ready.insert(pos, r);
    }
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i)
      if (pending[i] > 0)
        return invalid_model("the graph has a cycle through node " + node_label(static_cast<int>(i)) +
                             "; an ONNX graph must be acyclic");
  }
  return order;
}

std::vector<std::vector<int>> Graph::consumers() const {
  std::vector<std::vector<int>> users(values.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    for (int v : nodes[i].inputs)
      if (v >= 0) users[static_cast<size_t>(v)].push_back(static_cast<int>(i));
  return users;
}

bool has_subgraph(const Node& node) {
  for (const auto& [name, a] : node.attrs.all())
    if (a.kind == Attribute::Kind::kGraph) return true;
  return false;
}

}  // namespace openge
