#include "ops/fused/fused_elementwise.h"

#include <array>
#include <optional>

#include "ops/op_context.h"
#include "ops/prepared_kernel.h"

namespace openge {
namespace {

// $a $b $c: the arguments; $A $B: the float attributes. The helpers clip3 / clamp01 are defined
// by the code generator's prelude with the reference kernels' comparisons (NaN passes through).
constexpr std::array kEltwiseOps = std::to_array<EltwiseOpRow>({
    {"Add", 2, nullptr, 0, nullptr, 0, "$a + $b", true},
    {"Sub", 2, nullptr, 0, nullptr, 0, "$a - $b", true},
    {"Mul", 2, nullptr, 0, nullptr, 0, "$a * $b", true},
    {"Div", 2, nullptr, 0, nullptr, 0, "$a / $b", true},
    {"Pow", 2, nullptr, 0, nullptr, 0, "std::pow($a, $b)", true},
    {"Max", 2, nullptr, 0, nullptr, 0, "(($a > $b || $a != $a) ? $a : $b)", true},
    {"Min", 2, nullptr, 0, nullptr, 0, "(($a < $b || $a != $a) ? $a : $b)", true},
    {"Relu", 1, nullptr, 0, nullptr, 0, "($a < 0.0f ? 0.0f : $a)", true},
    {"LeakyRelu", 1, "alpha", 0.01f, nullptr, 0, "($a < 0.0f ? $A * $a : $a)", true},
    {"Neg", 1, nullptr, 0, nullptr, 0, "(-$a)", true},
    {"Abs", 1, nullptr, 0, nullptr, 0, "std::fabs($a)", true},
    {"Sqrt", 1, nullptr, 0, nullptr, 0, "std::sqrt($a)", true},
    {"Reciprocal", 1, nullptr, 0, nullptr, 0, "(1.0f / $a)", true},
    {"Exp", 1, nullptr, 0, nullptr, 0, "std::exp($a)", true},
    {"HardSigmoid", 1, "alpha", 0.2f, "beta", 0.5f, "clamp01($A * $a + $B)", true},
    {"HardSwish", 1, nullptr, 0, nullptr, 0, "($a * clamp01($a * (float)(1.0 / 6.0) + 0.5f))", true},
    {"Clip", 3, nullptr, 0, nullptr, 0, "clip3($a, $b, $c)", true},
    // The reference kernels' defaults are vectorised approximations, which the generated code
    // calls too (their source is pasted into it); under high_precision both use libm. Not bit
    // for bit: the generated code is built with -ffp-contract=off, the engine may contract.
    {"Sigmoid", 1, nullptr, 0, nullptr, 0, "(1.0f / (1.0f + std::exp(-$a)))", false,
     "openge::elementwise::fast_sigmoid($a)"},
    {"Tanh", 1, nullptr, 0, nullptr, 0, "std::tanh($a)", false, "openge::elementwise::fast_tanh($a)"},
    {"Erf", 1, nullptr, 0, nullptr, 0, "std::erf($a)", false, "openge::elementwise::fast_erf($a)"},
});

Status infer_fused_elementwise(InferContext& ctx) {
  auto program = read_eltwise_program(ctx.node());
  if (!program.ok()) return ctx.error(program.status().message());
  std::vector<ValueInfo> results(program->steps.size());
  for (size_t s = 0; s < program->steps.size(); ++s) {
    const EltwiseStep& step = program->steps[s];
    std::vector<const ValueInfo*> args;
    for (int a : step.args) {
      if (a >= 0 && !ctx.has_input(static_cast<size_t>(a)))
        return ctx.error("input " + std::to_string(a) + " is missing");
      args.push_back(a >= 0 ? &ctx.input(static_cast<size_t>(a)) : &results[static_cast<size_t>(-a - 1)]);
    }
    const Node sub = eltwise_step_node(step);
    InferContext sub_ctx(sub, ctx.opset(), args, 1);
    OPENGE_RETURN_IF_ERROR(find_op_schema(step.op)->infer(sub_ctx));
    results[s] = sub_ctx.output(0);
    results[s].value = nullptr;
  }
  const ValueInfo& out = results.back();
  if (out.shape_known)
    ctx.set_output(0, out.dtype, out.shape);
  else
    ctx.set_output_dtype(0, out.dtype);
  return Status::Ok();
}

// Each step through its op's reference kernel, into a temporary of the output's shape (the last
// step straight into the output).
Status fused_elementwise_kernel(KernelContext& ctx) {
  auto program = read_eltwise_program(ctx.node());
  if (!program.ok()) return ctx.error(program.status().message());
  std::vector<Tensor> results(program->steps.size());
  for (size_t s = 0; s < program->steps.size(); ++s) {
    const EltwiseStep& step = program->steps[s];
    std::vector<const Tensor*> args;
    std::vector<ValueInfo> infos(step.args.size());
    std::vector<const ValueInfo*> info_ptrs;
    for (size_t i = 0; i < step.args.size(); ++i) {
      const int a = step.args[i];
      const Tensor* t = a >= 0 ? &ctx.input(static_cast<size_t>(a)) : &results[static_cast<size_t>(-a - 1)];
      args.push_back(t);
      infos[i] = {t->dtype(), true, t->shape(), t};
      info_ptrs.push_back(&infos[i]);
    }
    const Node sub = eltwise_step_node(step);
    const OpSchema* schema = find_op_schema(step.op);
    Tensor* out = &ctx.output(0);
    if (s + 1 < program->steps.size()) {
      InferContext sub_infer(sub, ctx.opset(), info_ptrs, 1);
      OPENGE_RETURN_IF_ERROR(schema->infer(sub_infer));
      // The same shape as the node's output (the pass fused only such steps): no new size.
      if (sub_infer.output(0).shape != out->shape())
        return ctx.error("step " + std::to_string(s) + " (" + step.op + ") does not have the output's shape");
      results[s] = Tensor(sub_infer.output(0).dtype, sub_infer.output(0).shape);
      out = &results[s];
    }
    KernelContext sub_ctx(sub, ctx.opset(), args, {out});
    OPENGE_RETURN_IF_ERROR(schema->reference(sub_ctx));
  }
  return Status::Ok();
}

// The prepared form: the program read once, each step's own kernel prepared for its shapes
// (or its reference kernel), the intermediate results in arena scratch.
class PreparedFusedElementwise final : public PreparedKernel {
 public:
  struct Step {
    Node node;
    const OpSchema* schema = nullptr;
    std::vector<int> args;
    DType dtype = DType::kUndefined;         // its result's
    std::unique_ptr<CompiledKernel> kernel;  // null: schema->reference
  };
  // What one run state binds once: the intermediates, and each step's context and state.
  struct State : KernelState {
    std::vector<Tensor> results;
    std::vector<std::optional<KernelContext>> contexts;
    std::vector<std::unique_ptr<KernelState>> step_states;
  };

  PreparedFusedElementwise(std::vector<Step> steps, Shape shape) : steps_(std::move(steps)), shape_(std::move(shape)) {}

  size_t scratch_bytes() const override {
    size_t bytes = 0;
    for (size_t s = 0; s + 1 < steps_.size(); ++s) bytes += padded_bytes(s);
    return bytes;
  }

  std::unique_ptr<KernelState> make_state(KernelContext& ctx) const override {
    auto state = std::make_unique<State>();
    state->results.resize(steps_.size());
    auto* scratch = static_cast<std::byte*>(ctx.scratch());
    for (size_t s = 0; s + 1 < steps_.size(); ++s) {
      // Outside an executor (no scratch) the state owns its intermediates.
      state->results[s] = scratch ? Tensor::borrow(steps_[s].dtype, shape_, scratch) : Tensor(steps_[s].dtype, shape_);
      if (scratch) scratch += padded_bytes(s);
    }
    state->contexts.resize(steps_.size());
    state->step_states.resize(steps_.size());
    // The node's tensors are the same objects on every run of this state (their bytes change).
    for (size_t s = 0; s < steps_.size(); ++s) {
      std::vector<const Tensor*> args;
      for (int a : steps_[s].args)
        args.push_back(a >= 0 ? &ctx.input(static_cast<size_t>(a)) : &state->results[static_cast<size_t>(-a - 1)]);
      Tensor* out = s + 1 < steps_.size() ? &state->results[s] : &ctx.output(0);
      state->contexts[s].emplace(steps_[s].node, ctx.opset(), std::move(args), std::vector<Tensor*>{out});
      if (steps_[s].kernel) state->step_states[s] = steps_[s].kernel->make_state(*state->contexts[s]);
      state->contexts[s]->set_prepared(nullptr, state->step_states[s].get());
    }
    return state;
  }

  Status run(KernelContext& ctx) const override {
    std::unique_ptr<KernelState> temp;
    State& state = state_for_run<State>(*this, ctx, temp);
    for (size_t s = 0; s < steps_.size(); ++s) {
      KernelContext& step_ctx = *state.contexts[s];
      OPENGE_RETURN_IF_ERROR(steps_[s].kernel ? steps_[s].kernel->run(step_ctx)
                                              : steps_[s].schema->reference(step_ctx));
    }
    return Status::Ok();
  }

 private:
  size_t padded_bytes(size_t step) const {
    return (static_cast<size_t>(shape_numel(shape_)) * dtype_size(steps_[step].dtype) + 63) / 64 * 64;
  }

  std::vector<Step> steps_;
  Shape shape_;
};

Result<std::unique_ptr<CompiledKernel>> prepare_fused_elementwise(const KernelRequest& request) {
  if (!all_shapes_static(request)) return not_prepared();
  auto program = read_eltwise_program(request.node);
  if (!program.ok()) return not_prepared();  // the reference kernel reports it
  const Shape& shape = request.outputs[0].shape;
  std::vector<PreparedFusedElementwise::Step> steps(program->steps.size());
  std::vector<ValueInfo> results(program->steps.size());
  for (size_t s = 0; s < program->steps.size(); ++s) {
    const EltwiseStep& from = program->steps[s];
    PreparedFusedElementwise::Step& step = steps[s];
    step.node = eltwise_step_node(from);
    step.schema = find_op_schema(from.op);
    step.args = from.args;
    KernelRequest sub{step.node, request.opset, {}, {}, request.deterministic};
    std::vector<const ValueInfo*> args;
    for (int a : from.args) {
      if (a >= static_cast<int>(request.inputs.size())) return not_prepared();
      sub.inputs.push_back(a >= 0 ? request.inputs[static_cast<size_t>(a)] : results[static_cast<size_t>(-a - 1)]);
      sub.inputs.back().value = nullptr;
    }
    for (const ValueInfo& v : sub.inputs) args.push_back(&v);
    InferContext infer(step.node, request.opset, args, 1);
    if (!step.schema || !step.schema->infer(infer).ok() || !infer.output(0).shape_known ||
        infer.output(0).shape != shape)
      return not_prepared();
    results[s] = infer.output(0);
    step.dtype = results[s].dtype;
    sub.outputs.push_back(results[s]);
    if (step.schema->prepare) {
      auto kernel = step.schema->prepare(sub);
      if (!kernel.ok()) return kernel.status();
      step.kernel = std::move(kernel.value());
      if (step.kernel && step.kernel->scratch_bytes() > 0) return not_prepared();  // one scratch per node
    }
  }
  return std::unique_ptr<CompiledKernel>(std::make_unique<PreparedFusedElementwise>(std::move(steps), shape));
}

}  // namespace

const EltwiseOpRow* find_eltwise_op(std::string_view op) {
  for (const EltwiseOpRow& row : kEltwiseOps)
    if (row.op == op) return &row;
  return nullptr;
}

Result<EltwiseProgram> read_eltwise_program(const Node& node) {
  const std::vector<std::string> ops =
      node.attrs.find("ub_ops") ? node.attrs.find("ub_ops")->strings : std::vector<std::string>{};
  const std::vector<int64_t> args = node.attrs.get_ints("ub_args");
  const std::vector<float> alpha = node.attrs.get_floats("ub_alpha");
  const std::vector<float> beta = node.attrs.get_floats("ub_beta");
  const Attribute* names = node.attrs.find("ub_names");
  const Attribute* impl = node.attrs.find("ub_impl");
  if (ops.empty()) return invalid_model("attribute ub_ops is missing or empty");
  if (alpha.size() != ops.size() || beta.size() != ops.size() || !names || names->strings.size() != ops.size())
    return invalid_model("ub_alpha, ub_beta and ub_names need one entry per step of ub_ops");
  if (impl && impl->strings.size() != ops.size())
    return invalid_model("ub_impl, when present, needs one entry per step of ub_ops");
  EltwiseProgram program;
  size_t pos = 0;
  for (size_t s = 0; s < ops.size(); ++s) {
    const EltwiseOpRow* row = find_eltwise_op(ops[s]);
    if (!row || !find_op_schema(ops[s]))
      return invalid_model("step " + std::to_string(s) + ": op '" + ops[s] + "' cannot be fused");
    if (pos >= args.size() || args[pos] != row->args)
      return invalid_model("step " + std::to_string(s) + " (" + ops[s] + ") needs " + std::to_string(row->args) +
                           " arguments in ub_args");
    EltwiseStep step{ops[s], {}, alpha[s], beta[s], names->strings[s], impl ? impl->strings[s] : ""};
    for (int i = 0; i < row->args; ++i) {
      if (++pos >= args.size()) return invalid_model("ub_args ends inside step " + std::to_string(s));
      const int64_t a = args[pos];
      if (a >= static_cast<int64_t>(node.inputs.size()) || (a < 0 && -a - 1 >= static_cast<int64_t>(s)))
        return invalid_model("step " + std::to_string(s) + " reads argument " + std::to_string(a) +
                             ", which is neither a node input nor an earlier step");
      step.args.push_back(static_cast<int>(a));
    }
    ++pos;
    program.steps.push_back(std::move(step));
  }
  if (pos != args.size()) return invalid_model("ub_args has entries past the last step");
  return program;
}

void write_eltwise_program(Node& node, const EltwiseProgram& program) {
  Attribute ops, args, alpha, beta, names, impl;
  ops.kind = names.kind = impl.kind = Attribute::Kind::kStrings;
  bool any_impl = false;
  args.kind = Attribute::Kind::kInts;
  alpha.kind = beta.kind = Attribute::Kind::kFloats;
  for (const EltwiseStep& s : program.steps) {
    ops.strings.push_back(s.op);
    names.strings.push_back(s.name);
    args.ints.push_back(static_cast<int64_t>(s.args.size()));
    for (int a : s.args) args.ints.push_back(a);
    alpha.floats.push_back(s.alpha);
    beta.floats.push_back(s.beta);
    impl.strings.push_back(s.impl_mode);
    any_impl = any_impl || !s.impl_mode.empty();
  }
  node.attrs.set("ub_ops", std::move(ops));
  node.attrs.set("ub_args", std::move(args));
  node.attrs.set("ub_alpha", std::move(alpha));
  node.attrs.set("ub_beta", std::move(beta));
  node.attrs.set("ub_names", std::move(names));
  if (any_impl) node.attrs.set("ub_impl", std::move(impl));
}

Node eltwise_step_node(const EltwiseStep& step) {
  Node n;
  n.op_type = step.op;
  n.name = step.name;
  n.impl_mode = step.impl_mode;
  const EltwiseOpRow* row = find_eltwise_op(step.op);
  auto set_float = [&](const char* name, float v) {
    Attribute a;
    a.kind = Attribute::Kind::kFloat;
    a.f = v;
    n.attrs.set(name, a);
  };
  if (row && row->alpha_attr) set_float(row->alpha_attr, step.alpha);
  if (row && row->beta_attr) set_float(row->beta_attr, step.beta);
  return n;
}

void register_fused_elementwise_ops(std::vector<OpSchema>& table) {
  table.push_back({kFusedElementwise, 1, -1, 1, 1, infer_fused_elementwise, fused_elementwise_kernel});
  table.back().prepare = &prepare_fused_elementwise;
}

}  // namespace openge
