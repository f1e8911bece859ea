#include "runtime/control_flow.h"

#include <cstring>

#include "base/size_limit.h"

namespace openge {
namespace {

std::string label_of(const Node& node) { return node.op_type + " '" + node.name + "'"; }

int64_t product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

// Slice `index` of `t` along `axis`, the axis removed (a scan input's element for one iteration).
Tensor take_along(const Tensor& t, size_t axis, int64_t index) {
  Shape shape = t.shape();
  const int64_t n = shape[axis];
  const size_t outer = static_cast<size_t>(product(shape, 0, axis));
  const size_t inner = static_cast<size_t>(product(shape, axis + 1, shape.size())) * dtype_size(t.dtype());
  shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(axis));
  Tensor out(t.dtype(), shape);
  const auto* src = static_cast<const std::byte*>(t.raw());
  auto* dst = static_cast<std::byte*>(out.raw());
  for (size_t o = 0; o < outer; ++o)
    if (inner)
      std::memcpy(dst + o * inner, src + (o * static_cast<size_t>(n) + static_cast<size_t>(index)) * inner, inner);
  return out;
}

// The parts (all of `part_shape`) stacked along a new axis `axis`; in reverse order when asked
// (a scan output of a reverse scan). `empty_shape` is used when there are no parts.
Result<Tensor> stack_along(const std::vector<Tensor>& parts, size_t axis, bool reverse, DType dtype,
                           const Shape& empty_shape, const std::string& what) {
  const Shape part_shape = parts.empty() ? Shape() : parts.front().shape();
  Shape shape = parts.empty() ? empty_shape : part_shape;
  if (!parts.empty())
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), static_cast<int64_t>(parts.size()));
  OPENGE_RETURN_IF_ERROR(check_tensor_size(shape, dtype_size(dtype), what));
  Tensor out(dtype, shape);
  if (parts.empty()) return out;
  const size_t count = parts.size();
  const size_t outer = static_cast<size_t>(product(part_shape, 0, axis));
  const size_t inner = static_cast<size_t>(product(part_shape, axis, part_shape.size())) * dtype_size(dtype);
  auto* dst = static_cast<std::byte*>(out.raw());
  for (size_t p = 0; p < count && inner; ++p) {
    const auto* src = static_cast<const std::byte*>(parts[reverse ? count - 1 - p : p].raw());
    for (size_t o = 0; o < outer; ++o) std::memcpy(dst + (o * count + p) * inner, src + o * inner, inner);
  }
  return out;
}

bool truthy(const Tensor& t) { return t.scalar_as_int() != 0; }

// The declared shape of subgraph output k with `lead` prepended, when it is static; else [lead].
Shape empty_scan_shape(const Graph& body, size_t k, size_t axis) {
  Shape shape;
  if (k < body.declared_outputs.size() && body.declared_outputs[k].shape) {
    shape = *body.declared_outputs[k].shape;
    for (int64_t d : shape)
      if (d < 0) return {0};
    if (axis <= shape.size()) {
      shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), 0);
      return shape;
    }
  }
  return {0};
}

std::vector<Tensor> copy_inputs(const std::vector<const Tensor*>& in, size_t begin, size_t end) {
  std::vector<Tensor> out;
  for (size_t i = begin; i < end; ++i) out.push_back(*in[i]);
  return out;
}

// An axis attribute value normalised into [0, rank); false when out of range.
bool normalize_axis(int64_t axis, size_t rank, size_t* out) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return false;
  *out = static_cast<size_t>(axis < 0 ? axis + r : axis);
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// SubgraphPlan

SubgraphPlan::SubgraphPlan(std::shared_ptr<const Graph> graph, std::shared_ptr<const SubgraphCompiler> compiler,
                           std::string label)
    : graph_(std::move(graph)), compiler_(std::move(compiler)), label_(std::move(label)) {}

Result<std::shared_ptr<const Executable>> SubgraphPlan::plan_for(const std::vector<Tensor>& inputs) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = plans_.begin(); it != plans_.end(); ++it) {
    bool same = it->dtypes.size() == inputs.size();
    for (size_t i = 0; same && i < inputs.size(); ++i)
      same =
          it->kinds[i] == inputs[i].kind() && it->dtypes[i] == inputs[i].dtype() && it->shapes[i] == inputs[i].shape();
    if (!same) continue;
    plans_.splice(plans_.begin(), plans_, it);
    return plans_.front().exe;
  }
  // The subgraph's declared input and output shapes describe one iteration at best (a loop's
  // state may grow): what the tensors are decides, as for every value at run time. Declared
  // element types stay checked.
  Graph g = *graph_;
  Entry entry;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Value& v = g.values[static_cast<size_t>(g.inputs[i])];
    if (v.dtype != DType::kUndefined && v.dtype != inputs[i].dtype())
      return invalid_model(label_ + ": input '" + v.name + "' is declared " + dtype_name(v.dtype) + " but receives " +
                           dtype_name(inputs[i].dtype()));
    if (v.dtype != DType::kUndefined && v.kind != inputs[i].kind())
      return invalid_model(label_ + ": input '" + v.name + "' is declared a " + value_kind_name(v.kind) +
                           " but receives a " + value_kind_name(inputs[i].kind()));
    v.kind = inputs[i].kind();
    v.dtype = inputs[i].dtype();
    v.shape.reset();
    entry.kinds.push_back(inputs[i].kind());
    entry.dtypes.push_back(inputs[i].dtype());
    entry.shapes.push_back(inputs[i].shape());
  }
  for (Graph::DeclaredType& d : g.declared_outputs) d.shape.reset();
  auto exe = compiler_->compile(std::move(g), entry.shapes);
  if (!exe.ok()) return exe.status().with_context(label_);
  entry.exe = std::shared_ptr<const Executable>(std::move(exe.value()));
  plans_.push_front(std::move(entry));
  if (plans_.size() > kMaxPlans) plans_.pop_back();
  return plans_.front().exe;
}

Result<std::vector<Tensor>> SubgraphPlan::run(const std::vector<Tensor>& inputs) const {
  if (inputs.size() != graph_->inputs.size())
    return internal_error(label_ + ": given " + std::to_string(inputs.size()) + " inputs for " +
                          std::to_string(graph_->inputs.size()));
  // ONNX passes a tensor or sequence where an optional of it is declared (a Loop whose state
  // starts as an optional sequence and continues as the sequence the body makes): wrap it.
  std::vector<Tensor> given = inputs;
  for (size_t i = 0; i < given.size(); ++i) {
    const ValueKind declared = graph_->values[static_cast<size_t>(graph_->inputs[i])].kind;
    const ValueKind got = given[i].kind();
    if ((declared == ValueKind::kOptional && got == ValueKind::kTensor) ||
        (declared == ValueKind::kOptionalSequence && got == ValueKind::kSequence))
      given[i] = Tensor::optional(declared, given[i].dtype(), given[i].clone());
  }
  auto exe = plan_for(given);
  if (!exe.ok()) return exe.status();
  auto outputs = (*exe)->run(given);
  if (!outputs.ok()) return outputs.status().with_context(label_);
  return outputs;
}

// ---------------------------------------------------------------------------------------------
// The three ops

struct ControlFlowRunners {
  static Status check_output(const ControlFlowNode& cf, size_t out, const Tensor& t, const std::string& what) {
    const DType want = cf.output_dtypes_[out];
    if (want != DType::kUndefined && t.dtype() != want)
      return invalid_model(label_of(cf.node_) + ": " + what + " is " + dtype_name(t.dtype()) + " but output " +
                           std::to_string(out) + " was inferred as " + dtype_name(want));
    return Status::Ok();
  }

  static Status expect_count(const ControlFlowNode& cf, const std::vector<Tensor>& outs, size_t n, const char* what) {
    if (outs.size() == n) return Status::Ok();
    return internal_error(label_of(cf.node_) + ": " + what + " gave " + std::to_string(outs.size()) +
                          " outputs, expected " + std::to_string(n));
  }

  static Result<std::vector<Tensor>> run_if(const ControlFlowNode& cf, const std::vector<const Tensor*>& in) {
    const std::string label = label_of(cf.node_);
    if (!in[0] || in[0]->numel() != 1)
      return invalid_argument(label + ": the condition must hold one element, got shape " +
                              (in[0] ? shape_to_string(in[0]->shape()) : std::string("(none)")));
    const char* branch = truthy(*in[0]) ? "then_branch" : "else_branch";
    auto outs = cf.plan(branch).run(copy_inputs(in, 1, in.size()));
    if (!outs.ok()) return outs.status();
    OPENGE_RETURN_IF_ERROR(expect_count(cf, *outs, cf.output_dtypes_.size(), branch));
    for (size_t k = 0; k < outs->size(); ++k)
      OPENGE_RETURN_IF_ERROR(check_output(cf, k, (*outs)[k], std::string(branch) + " output " + std::to_string(k)));
    return outs;
  }

  static Result<std::vector<Tensor>> run_loop(const ControlFlowNode& cf, const std::vector<const Tensor*>& in) {
    const std::string label = label_of(cf.node_);
    const SubgraphPlan& body = cf.plan("body");
    const size_t captured = body.graph().captured_inputs;
    const size_t n = in.size() - captured - 2;
    const size_t k = cf.output_dtypes_.size() - n;
    for (size_t i : {size_t{0}, size_t{1}})
      if (in[i] && in[i]->numel() != 1)
        return invalid_argument(label + ": input " + std::to_string(i) + (i ? " (cond)" : " (M)") +
                                " must hold one element, got shape " + shape_to_string(in[i]->shape()));
    const int64_t trip_count = in[0] ? in[0]->scalar_as_int() : INT64_MAX;
    bool keep_going = in[1] ? truthy(*in[1]) : true;
    std::vector<Tensor> state = copy_inputs(in, 2, 2 + n);
    const std::vector<Tensor> outer = copy_inputs(in, 2 + n, in.size());
    std::vector<std::vector<Tensor>> scans(k);
    for (int64_t i = 0; i < trip_count && keep_going; ++i) {
      if (i >= kMaxLoopIterations)
        return resource_exhausted(label + ": more than " + std::to_string(kMaxLoopIterations) +
                                  " iterations (kMaxLoopIterations, base/size_limit.h); check M and the condition");
      std::vector<Tensor> body_in;
      body_in.reserve(body.graph().inputs.size());
      Tensor iteration(DType::kInt64, {});
      *iteration.data<int64_t>() = i;
      Tensor cond(DType::kBool, {});
      *cond.data<bool>() = keep_going;
      body_in.push_back(std::move(iteration));
      body_in.push_back(std::move(cond));
      for (Tensor& t : state) body_in.push_back(std::move(t));
      body_in.insert(body_in.end(), outer.begin(), outer.end());
      auto outs = body.run(body_in);
      if (!outs.ok()) return outs.status().with_context(label + " iteration " + std::to_string(i));
      OPENGE_RETURN_IF_ERROR(expect_count(cf, *outs, 1 + n + k, "body"));
      const Tensor& next = (*outs)[0];
      if (next.dtype() != DType::kBool || next.numel() != 1)
        return invalid_model(label + ": the body's cond output must be one bool, got " + dtype_name(next.dtype()) +
                             " " + shape_to_string(next.shape()));
      if (in[1]) keep_going = truthy(next);  // without a cond input the body's cond is ignored
      state.assign(std::make_move_iterator(outs->begin() + 1),
                   std::make_move_iterator(outs->begin() + 1 + static_cast<std::ptrdiff_t>(n)));
      for (size_t j = 0; j < n; ++j)
        OPENGE_RETURN_IF_ERROR(check_output(cf, j, state[j], "loop-carried value " + std::to_string(j)));
      for (size_t s = 0; s < k; ++s) {
        Tensor& t = (*outs)[1 + n + s];
        OPENGE_RETURN_IF_ERROR(check_output(cf, n + s, t, "scan output " + std::to_string(s)));
        OPENGE_RETURN_IF_ERROR(add_scan_item(label, scans[s], std::move(t), s));
      }
    }
    std::vector<Tensor> result = std::move(state);
    for (size_t s = 0; s < k; ++s) {
      auto stacked =
          stack_along(scans[s], 0, false, cf.output_dtypes_[n + s], empty_scan_shape(body.graph(), 1 + n + s, 0),
                      label + ": scan output " + std::to_string(s));
      if (!stacked.ok()) return stacked.status();
      result.push_back(std::move(stacked.value()));
    }
    return result;
  }

  // Keeps one iteration's scan output; every iteration's must have the first one's shape, and the
  // stacked result must fit the size limit (checked as it grows, so a runaway loop stops early).
  static Status add_scan_item(const std::string& label, std::vector<Tensor>& items, Tensor t, size_t s) {
    const std::string what = label + ": scan output " + std::to_string(s);
    if (!items.empty() && items.front().shape() != t.shape())
      return invalid_model(what + " has shape " + shape_to_string(t.shape()) + " in iteration " +
                           std::to_string(items.size()) + " but " + shape_to_string(items.front().shape()) +
                           " before; every iteration's must have the same shape");
    Shape stacked = t.shape();
    stacked.insert(stacked.begin(), static_cast<int64_t>(items.size() + 1));
    OPENGE_RETURN_IF_ERROR(check_tensor_size(stacked, dtype_size(t.dtype()), what));
    items.push_back(std::move(t));
    return Status::Ok();
  }

  struct ScanSpec {
    std::vector<size_t> in_axes;
    std::vector<int64_t> out_axes;  // as the attribute says (negative: from the end)
    std::vector<bool> in_reverse, out_reverse;
  };

  // One scan over `sequences` (opset 9 semantics) from `state`; returns final states then scan outputs.
  static Result<std::vector<Tensor>> scan_core(const ControlFlowNode& cf, std::vector<Tensor> state,
                                               const std::vector<Tensor>& sequences, const std::vector<Tensor>& outer,
                                               const ScanSpec& spec) {
    const std::string label = label_of(cf.node_);
    const SubgraphPlan& body = cf.plan("body");
    const size_t n = state.size(), m = sequences.size(), k = cf.output_dtypes_.size() - n;
    int64_t length = -1;
    for (size_t j = 0; j < m; ++j) {
      const int64_t len = sequences[j].dim(static_cast<int64_t>(spec.in_axes[j]));
      if (length >= 0 && len != length)
        return invalid_argument(label + ": scan input " + std::to_string(j) + " has " + std::to_string(len) +
                                " elements along its scan axis, scan input 0 has " + std::to_string(length));
      length = len;
    }
    std::vector<std::vector<Tensor>> scans(k);
    for (int64_t t = 0; t < length; ++t) {
      std::vector<Tensor> body_in = std::move(state);
      for (size_t j = 0; j < m; ++j)
        body_in.push_back(take_along(sequences[j], spec.in_axes[j], spec.in_reverse[j] ? length - 1 - t : t));
      body_in.insert(body_in.end(), outer.begin(), outer.end());
      auto outs = body.run(body_in);
      if (!outs.ok()) return outs.status().with_context(label + " iteration " + std::to_string(t));
      OPENGE_RETURN_IF_ERROR(expect_count(cf, *outs, n + k, "body"));
      state.assign(std::make_move_iterator(outs->begin()),
                   std::make_move_iterator(outs->begin() + static_cast<std::ptrdiff_t>(n)));
      for (size_t j = 0; j < n; ++j)
        OPENGE_RETURN_IF_ERROR(check_output(cf, j, state[j], "state " + std::to_string(j)));
      for (size_t s = 0; s < k; ++s) {
        OPENGE_RETURN_IF_ERROR(check_output(cf, n + s, (*outs)[n + s], "scan output " + std::to_string(s)));
        OPENGE_RETURN_IF_ERROR(add_scan_item(label, scans[s], std::move((*outs)[n + s]), s));
      }
    }
    std::vector<Tensor> result = std::move(state);
    for (size_t s = 0; s < k; ++s) {
      // The output has one axis more than an iteration's scan output.
      const size_t rank =
          (scans[s].empty() ? empty_scan_shape(body.graph(), n + s, 0).size() - 1 : scans[s].front().shape().size()) +
          1;
      size_t axis = 0;
      if (!normalize_axis(spec.out_axes[s], rank, &axis))
        return invalid_model(label + ": scan_output_axes[" + std::to_string(s) +
                             "] = " + std::to_string(spec.out_axes[s]) + " is out of range for a rank-" +
                             std::to_string(rank) + " output");
      auto stacked =
          stack_along(scans[s], axis, spec.out_reverse[s], cf.output_dtypes_[n + s],
                      empty_scan_shape(body.graph(), n + s, axis), label + ": scan output " + std::to_string(s));
      if (!stacked.ok()) return stacked.status();
      result.push_back(std::move(stacked.value()));
    }
    return result;
  }

  static Result<std::vector<Tensor>> run_scan(const ControlFlowNode& cf, const std::vector<const Tensor*>& in) {
    const std::string label = label_of(cf.node_);
    const Attributes& attrs = cf.node_.attrs;
    const size_t captured = cf.plan("body").graph().captured_inputs;
    const size_t lead = cf.opset_ < 9 ? 1 : 0;
    const size_t m = static_cast<size_t>(attrs.get_int("num_scan_inputs", 0));
    const size_t n = in.size() - captured - lead - m;
    const size_t k = cf.output_dtypes_.size() - n;
    for (size_t i = lead; i < lead + n + m; ++i)
      if (!in[i]) return invalid_model(label + ": input " + std::to_string(i) + " is missing");
    const std::vector<Tensor> outer = copy_inputs(in, lead + n + m, in.size());
    // Opset 8 scans axis 1 of [batch, sequence, ...] inputs; the batch axis is handled below.
    const size_t batch_axes = lead;
    ScanSpec spec;
    const std::vector<int64_t> in_axes = attrs.get_ints("scan_input_axes", std::vector<int64_t>(m, 0));
    const std::vector<int64_t> in_dirs =
        attrs.get_ints(lead ? "directions" : "scan_input_directions", std::vector<int64_t>(m, 0));
    const std::vector<int64_t> out_axes = attrs.get_ints("scan_output_axes", std::vector<int64_t>(k, 0));
    const std::vector<int64_t> out_dirs = attrs.get_ints("scan_output_directions", std::vector<int64_t>(k, 0));
    for (size_t j = 0; j < m; ++j) {
      size_t axis = 0;
      const size_t rank = in[lead + n + j]->shape().size() - batch_axes;
      if (!normalize_axis(in_axes[j], rank, &axis))
        return invalid_model(label + ": scan_input_axes[" + std::to_string(j) + "] = " + std::to_string(in_axes[j]) +
                             " is out of range for scan input " + std::to_string(j) + " of shape " +
                             shape_to_string(in[lead + n + j]->shape()));
      spec.in_axes.push_back(axis);
      spec.in_reverse.push_back(in_dirs[j] != 0);
    }
    for (size_t s = 0; s < k; ++s) {
      spec.out_axes.push_back(out_axes[s]);  // resolved once the output's rank is known
      spec.out_reverse.push_back(out_dirs[s] != 0);
    }
    if (!lead) return scan_core(cf, copy_inputs(in, 0, n), copy_inputs(in, n, n + m), outer, spec);

    // Opset 8: every input and output has a batch axis 0; each batch entry is one scan.
    const int64_t batch = in[1]->shape().empty() ? 0 : in[1]->dim(0);
    for (size_t i = 1; i < 1 + n + m; ++i)
      if (in[i]->shape().empty() || in[i]->dim(0) != batch)
        return invalid_argument(label + ": every input needs the batch size " + std::to_string(batch) +
                                " as its axis 0, input " + std::to_string(i) + " has shape " +
                                shape_to_string(in[i]->shape()));
    if (in[0]) {
      const std::vector<int64_t> lens = in[0]->to_int64_vector();
      const int64_t full = m ? in[1 + n]->dim(1) : 0;
      for (int64_t len : lens)
        if (len != full)
          return unsupported(label + ": sequence_lens shorter than the sequence axis (" + std::to_string(len) + " < " +
                             std::to_string(full) + ") are not supported yet");
    }
    std::vector<std::vector<Tensor>> per_output(n + k);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Tensor> state, sequences;
      for (size_t i = 0; i < n; ++i) state.push_back(take_along(*in[1 + i], 0, b));
      for (size_t j = 0; j < m; ++j) sequences.push_back(take_along(*in[1 + n + j], 0, b));
      auto outs = scan_core(cf, std::move(state), sequences, outer, spec);
      if (!outs.ok()) return outs.status();
      for (size_t o = 0; o < outs->size(); ++o) per_output[o].push_back(std::move((*outs)[o]));
    }
    std::vector<Tensor> result;
    for (size_t o = 0; o < n + k; ++o) {
      auto stacked =
          stack_along(per_output[o], 0, false, cf.output_dtypes_[o], {0}, label + ": output " + std::to_string(o));
      if (!stacked.ok()) return stacked.status();
      result.push_back(std::move(stacked.value()));
    }
    return result;
  }

  // SequenceMap: the body once per element of the input sequence; sequence inputs give it their
  // i-th element (all must be as long as input 0), tensor inputs the whole tensor. Output k is
  // the sequence of every iteration's body output k.
  static Result<std::vector<Tensor>> run_sequence_map(const ControlFlowNode& cf, const std::vector<const Tensor*>& in) {
    const std::string label = label_of(cf.node_);
    const SubgraphPlan& body = cf.plan("body");
    const size_t formal = in.size() - body.graph().captured_inputs;
    const size_t k = cf.output_dtypes_.size();
    for (size_t j = 0; j < formal; ++j)
      if (!in[j]) return invalid_model(label + ": input " + std::to_string(j) + " is missing");
    if (in[0]->kind() != ValueKind::kSequence)
      return invalid_argument(label + ": input 0 must be a sequence, got a " + value_kind_name(in[0]->kind()));
    const size_t length = in[0]->elements().size();
    for (size_t j = 1; j < formal; ++j)
      if (in[j]->kind() == ValueKind::kSequence && in[j]->elements().size() != length)
        return invalid_argument(label + ": input " + std::to_string(j) + " is a sequence of " +
                                std::to_string(in[j]->elements().size()) + " tensors, input 0 of " +
                                std::to_string(length));
    const std::vector<Tensor> outer = copy_inputs(in, formal, in.size());
    std::vector<std::vector<Tensor>> results(k);
    for (size_t i = 0; i < length; ++i) {
      std::vector<Tensor> body_in;
      body_in.reserve(in.size());
      for (size_t j = 0; j < formal; ++j)
        body_in.push_back(in[j]->kind() == ValueKind::kSequence ? in[j]->elements()[i] : *in[j]);
      body_in.insert(body_in.end(), outer.begin(), outer.end());
      auto outs = body.run(body_in);
      if (!outs.ok()) return outs.status().with_context(label + " element " + std::to_string(i));
      OPENGE_RETURN_IF_ERROR(expect_count(cf, *outs, k, "body"));
      for (size_t o = 0; o < k; ++o) {
        Tensor& t = (*outs)[o];
        OPENGE_RETURN_IF_ERROR(check_output(cf, o, t, "body output " + std::to_string(o)));
        if (!t.is_tensor())
          return invalid_model(label + ": body output " + std::to_string(o) + " is a " + value_kind_name(t.kind()) +
                               "; SequenceMap collects tensors");
        results[o].push_back(std::move(t));
      }
    }
    std::vector<Tensor> sequences;
    for (size_t o = 0; o < k; ++o) sequences.push_back(Tensor::sequence(cf.output_dtypes_[o], std::move(results[o])));
    return sequences;
  }
};

// ---------------------------------------------------------------------------------------------
// ControlFlowNode

namespace {
struct RunnerRow {
  const char* op_type;
  Result<std::vector<Tensor>> (*run)(const ControlFlowNode&, const std::vector<const Tensor*>&);
};
}  // namespace

Result<std::unique_ptr<ControlFlowNode>> ControlFlowNode::make(const Node& node, int64_t opset,
                                                               std::vector<DType> output_dtypes,
                                                               std::shared_ptr<const SubgraphCompiler> compiler) {
  static const RunnerRow kRunners[] = {{"If", &ControlFlowRunners::run_if},
                                       {"Loop", &ControlFlowRunners::run_loop},
                                       {"Scan", &ControlFlowRunners::run_scan},
                                       {"SequenceMap", &ControlFlowRunners::run_sequence_map}};
  std::unique_ptr<ControlFlowNode> cf(new ControlFlowNode());
  for (const RunnerRow& row : kRunners)
    if (node.op_type == row.op_type) cf->run_ = row.run;
  if (!cf->run_) return unsupported(label_of(node) + ": OpenGE runs subgraphs only for If, Loop, Scan and SequenceMap");
  cf->node_ = node;
  cf->opset_ = opset;
  cf->output_dtypes_ = std::move(output_dtypes);
  for (const auto& [name, a] : node.attrs.all())
    if (a.kind == Attribute::Kind::kGraph && a.graph)
      cf->plans_.emplace_back(name, std::make_unique<SubgraphPlan>(a.graph, compiler, label_of(node) + " " + name));
  return cf;
}

const SubgraphPlan& ControlFlowNode::plan(const char* attribute) const {
  for (const auto& entry : plans_)
    if (entry.first == attribute) return *entry.second;
  // infer checked that the attribute exists before the node was compiled.
  throw std::logic_error(label_of(node_) + " has no subgraph '" + attribute + "'");
}

Result<std::vector<Tensor>> ControlFlowNode::run(const std::vector<const Tensor*>& inputs) const {
  return run_(*this, inputs);
}

}  // namespace openge
