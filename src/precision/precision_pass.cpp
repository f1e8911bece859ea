#include "precision/precision_pass.h"

#include <algorithm>
#include <map>
#include <utility>

#include "base/float_convert.h"
#include "kernels/conv_format_costs.h"
#include "ops/layout/activation_format.h"
#include "options/option_set.h"
#include "base/path_util.h"

namespace openge::precision {
namespace {

bool retypable(DType t) { return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16; }

// Ops whose float inputs are not their compute type (Cast converts to an attribute's type,
// Shape reads no data …): the pass leaves them alone and hands them their inputs as the model
// gives them.
constexpr std::string_view kUntouchedOps[] = {
    "Cast",        "CastLike",        "Shape", "Size", "EyeLike", "RandomNormalLike", "RandomUniformLike", "Bernoulli",
    "Multinomial", "ConstantOfShape", "If",    "Loop", "Scan",    "SequenceMap"};  // control flow: each subgraph node
                                                                                   // is decided on its own

// Inputs with a float type of their own in ONNX (not the op's T): they keep it whatever the
// node computes in.
struct FixedInput {
  std::string_view op_type;
  int input;
};
// The quantized cube ops compute in integers; their scales are parameters, not data.
constexpr FixedInput kFixedInputs[] = {
    {"Resize", 1},        {"Resize", 2},         {"Upsample", 1},       {"QLinearConv", 1},    {"QLinearConv", 4},
    {"QLinearConv", 6},   {"QLinearConvAdd", 1}, {"QLinearConvAdd", 4}, {"QLinearConvAdd", 6}, {"QLinearConvAdd", 10},
    {"QLinearMatMul", 1}, {"QLinearMatMul", 4},  {"QLinearMatMul", 6}};

bool untouched(std::string_view op_type) {
  return std::find(std::begin(kUntouchedOps), std::end(kUntouchedOps), op_type) != std::end(kUntouchedOps);
}

bool fixed_input(std::string_view op_type, size_t input) {
  for (const FixedInput& f : kFixedInputs)
    if (f.op_type == op_type && f.input == static_cast<int>(input)) return true;
  return false;
}

// Nodes made by the fusion passes are looked up in the SoC profile as the op they grew from
// (FusedAttention as its first product, the MatMul whose node it took over).
std::string_view profile_op_type(std::string_view op_type) {
  if (op_type == "FusedAttention") return "MatMul";
  return unprefixed_op_type(op_type);
}

std::string dt(DType t) { return dtype_name(t); }

// The float slots of a node: which inputs and outputs take the node's compute dtype.
struct FloatSlots {
  std::vector<size_t> inputs, outputs;
  DType dtype = DType::kUndefined;  // their common dtype in the model
  bool mixed = false;               // slots of different float types: the node is left alone
};

// `model_dtype` gives each value's dtype in the model (upstream nodes may have retyped it already).
template <class ModelDtype>
FloatSlots float_slots(const Node& node, ModelDtype model_dtype) {
  FloatSlots slots;
  auto visit = [&](int v, size_t index, std::vector<size_t>& into) {
    if (v < 0) return;
    const DType t = model_dtype(v);
    if (!retypable(t)) return;
    if (slots.dtype == DType::kUndefined) slots.dtype = t;
    if (t != slots.dtype) slots.mixed = true;
    into.push_back(index);
  };
  for (size_t i = 0; i < node.inputs.size(); ++i)
    if (!fixed_input(node.op_type, i)) visit(node.inputs[i], i, slots.inputs);
  for (size_t o = 0; o < node.outputs.size(); ++o) visit(node.outputs[o], o, slots.outputs);
  return slots;
}

struct Choice {
  DType in = DType::kUndefined, out = DType::kUndefined;
  bool aicpu = false;
  std::string rule;
};

Choice same(DType t, std::string rule) { return {t, t, false, std::move(rule)}; }
Choice on_aicpu(DType t, std::string rule) { return {t, t, true, std::move(rule)}; }

// The rules of page 002 for one node whose model dtype is `f`. `upstream_lowered`: every
// float input that is not a constant comes from a node that computes in the narrow type (what
// a gray-list op follows, OPT-modify_mixlist-12).
// Why computing `op_type` in `low` would be slower on this CPU than in float32, by the cost
// table (kernels/conv_format_costs.h: bf16 convolutions on CPUs without a bf16 dot product);
// empty when it would not be. The allow_* modes permit lowering, they do not demand it.
std::string slower_when_lowered(std::string_view op_type, DType low, const IsaCosts& costs) {
  if (op_type != "Conv" && op_type != "FusedConv") return "";
  const FormatCostRow* narrow = find_format_cost(costs.table, "Conv", costs.isa, low);
  const FormatCostRow* wide = find_format_cost(costs.table, "Conv", costs.isa, DType::kFloat32);
  if (!narrow || !wide || narrow->dtype != low || !(best_format_cost(*narrow) > best_format_cost(*wide))) return "";
  return dt(low) + " convolutions are slower than float32 on this CPU (" + std::string(isa_name(costs.isa)) +
         ", kernels/conv_format_costs.cpp)";
}

Result<Choice> choose(const PrecisionMode& mode, const SocOpInfo& info, const MixListEntry& list, DType f,
                      bool upstream_lowered, const std::string& soc, const std::string& low_slower) {
  const bool cube = info.op_class == OpClass::kCube;
  const DType fp32 = DType::kFloat32, fp16 = DType::kFloat16, low = mode.low;
  const std::string m = mode.label();
  switch (mode.policy) {
    case Policy::kKeepOrigin:
      if (info.supports(f)) return same(f, m + ": keeps its " + dt(f) + " (OPT-precision_mode-9)");
      if (f != fp32 && info.supports(fp32))
        return same(fp32, m + ": raised to float32, " + soc + " has no " + dt(f) + " kernel (OPT-precision_mode-9)");
      if (f == fp32)
        return invalid_argument(m + " cannot be used for this model: the " + soc + " AI Core runs " + info.ascend_type +
                                " only in lower precision and this mode never lowers it; choose another precision "
                                "mode, e.g. allow_fp32_to_fp16 (OPT-precision_mode-10)");
      return on_aicpu(f, m + ": no AI Core kernel in " + dt(f) + " on " + soc + ", AI CPU");
    case Policy::kCubeLowVectorKeep:
      if (cube) {
        if (!low_slower.empty() && info.supports(f)) return same(f, m + ": cube op keeps " + dt(f) + ": " + low_slower);
        if (info.supports(low)) return same(low, m + ": cube op in " + dt(low) + " (OPT-precision_mode-2/15)");
        if (info.supports(f)) return same(f, m + ": cube op keeps " + dt(f) + ", no " + dt(low) + " kernel");
        return on_aicpu(f,
                        m + ": no AI Core kernel in " + dt(low) + " or " + dt(f) + ", AI CPU (OPT-precision_mode-15)");
      }
      if (info.supports(f)) return same(f, m + ": vector op keeps " + dt(f) + " (OPT-precision_mode-2/15)");
      if (info.supports(low))
        return same(low, m + ": vector op lowered, no " + dt(f) + " kernel (OPT-precision_mode-2/15)");
      return on_aicpu(f, m + ": no AI Core kernel in " + dt(low) + " or " + dt(f) + ", AI CPU (OPT-precision_mode-15)");
    case Policy::kForceLow:
      if (info.supports(fp16)) return same(fp16, m + ": float16 wherever the op has it (OPT-precision_mode-3)");
      if (info.supports(f)) return same(f, m + ": keeps " + dt(f) + ", no float16 kernel");
      if (info.supports(fp32)) return same(fp32, m + ": float32, no float16 kernel");
      return on_aicpu(f, m + ": no AI Core kernel in float16 or " + dt(f) + ", AI CPU");
    case Policy::kCubeFp16InFp32Out:
      if (cube) {
        if (info.supports_combination(fp16, fp32))
          return Choice{fp16, fp32, false, m + ": (1) float16 in, float32 out (OPT-precision_mode-5)"};
        if (info.supports(fp32)) return same(fp32, m + ": (2) float32 in, float32 out (OPT-precision_mode-5)");
        if (info.supports(fp16)) return same(fp16, m + ": (3) float16 in, float16 out (OPT-precision_mode-5)");
        return invalid_argument(m + ": the " + soc + " AI Core runs " + info.ascend_type +
                                " in neither float16 nor float32 (OPT-precision_mode-5 step 4)");
      }
      if (info.supports(fp32)) return same(fp32, m + ": vector op in float32 (OPT-precision_mode-6)");
      if (info.supports(fp16)) {
        if (list.list == MixList::kBlack)
          return on_aicpu(fp32, m + ": no float32 kernel and black-listed, float32 on AI CPU (OPT-precision_mode-8)");
        return same(fp16, m + ": no float32 kernel, keeps float16 (OPT-precision_mode-7)");
      }
      return on_aicpu(f, m + ": no AI Core kernel in float16 or float32, AI CPU");
    case Policy::kMixed: {
      if (f != fp32) {
        if (info.supports(f)) return same(f, m + ": keeps " + dt(f) + " (only float32 ops are lowered)");
        if (info.supports(fp32)) return same(fp32, m + ": raised to float32, no " + dt(f) + " kernel");
        return on_aicpu(f, m + ": no AI Core kernel in " + dt(f) + ", AI CPU");
      }
      const char* list_name = mix_list_name(list.list);
      const std::string why = std::string(list_name) + " list (" + list.decided_by + ")";
      const bool lower = list.list == MixList::kWhite || (list.list == MixList::kGray && upstream_lowered);
      const bool faster_in_fp32 = !low_slower.empty() && info.supports(fp32);
      if (lower && info.supports(low) && !faster_in_fp32)
        return same(low, m + ": " + why + (list.list == MixList::kGray ? ", follows its lowered upstream op" : "") +
                             " -> " + dt(low) + " (OPT-modify_mixlist-10/12)");
      if (info.supports(fp32)) {
        std::string reason = lower && faster_in_fp32        ? low_slower
                             : lower                        ? "no " + dt(low) + " kernel"
                             : list.list == MixList::kBlack ? "never lowered (OPT-modify_mixlist-11)"
                                                            : "upstream op not lowered (OPT-modify_mixlist-12)";
        return same(fp32, m + ": " + why + ", keeps float32: " + reason);
      }
      if (list.list != MixList::kBlack && info.supports(low))
        return same(low, m + ": " + why + ", lowered: no float32 kernel");
      return on_aicpu(
          fp32, m + ": no AI Core kernel in " + dt(low) + " or float32, float32 on AI CPU (OPT-precision_mode-13)");
    }
  }
  return internal_error("unknown precision policy");
}

DType custom_dtype_name(const std::string& name) {
  if (name == "float") return DType::kFloat32;
  if (name == "double") return DType::kFloat64;
  return dtype_from_name(name);
}

// customize_dtypes (OPT-customize_dtypes-1..10): the rule for a node, by name before type.
const options::CustomDtypeRule* custom_rule(const PrecisionSetup& setup, const Node& node) {
  for (const auto& rule : setup.custom_dtypes)
    if (!rule.by_type && rule.name == node.name) return &rule;
  const std::string_view type = profile_op_type(node.op_type);
  for (const auto& rule : setup.custom_dtypes)
    if (rule.by_type && (rule.name == type || rule.name == ascend_op_type(type))) return &rule;
  return nullptr;
}

// The dtype a rule gives the float slots in `indices` of one list (one dtype for all of them:
// OpenGE computes a node's float tensors in one type).
Result<DType> custom_slot_dtype(const std::vector<std::string>& listed, const std::vector<size_t>& indices,
                                DType fallback, const std::string& where) {
  DType chosen = DType::kUndefined;
  for (size_t i : indices) {
    if (i >= listed.size()) continue;
    const DType t = custom_dtype_name(listed[i]);
    if (!retypable(t))
      return invalid_argument(where + ": '" + listed[i] +
                              "' for a floating-point tensor; OpenGE computes them in "
                              "float16, bfloat16 or float32");
    if (chosen != DType::kUndefined && chosen != t)
      return invalid_argument(where + ": different dtypes for the floating-point tensors of one operator (" +
                              dt(chosen) + ", " + dt(t) + "); OpenGE computes them in one dtype");
    chosen = t;
  }
  return chosen == DType::kUndefined ? fallback : chosen;
}

// Ascend IR type names of optypelist_for_implmode and the ONNX ops they stand for.
bool implmode_type_matches(const std::string& listed, std::string_view onnx_type) {
  if (listed == "Pooling")
    return onnx_type == "MaxPool" || onnx_type == "AveragePool" || onnx_type == "GlobalMaxPool" ||
           onnx_type == "GlobalAveragePool";
  if (listed == "ROIAlign") return onnx_type == "RoiAlign";
  return listed == onnx_type || listed == ascend_op_type(onnx_type);
}

std::pair<std::string, std::string> choose_impl_mode(const PrecisionSetup& setup, const Node& node,
                                                     const SocOpInfo* info) {
  std::string mode, rule;
  const std::string_view type = profile_op_type(node.op_type);
  if (setup.has_op_precision_mode) {
    const auto& modes = setup.op_precision_modes;
    auto by_name = modes.by_node_name.find(node.name);
    for (size_t i = 0; by_name == modes.by_node_name.end() && i < node.fused_from.size(); ++i)
      by_name = modes.by_node_name.find(node.fused_from[i]);
    if (by_name != modes.by_node_name.end()) {
      mode = by_name->second;
      rule = "op_precision_mode [ByNodeName] " + by_name->first;
    } else {
      for (const auto& [op_type, m] : modes.by_op_type)
        if (op_type == type || op_type == ascend_op_type(type)) {
          mode = m;
          rule = "op_precision_mode [ByOpType] " + op_type;
        }
    }
  } else if (!setup.select_implmode.empty()) {
    bool listed = setup.implmode_op_types.empty();
    for (const std::string& t : setup.implmode_op_types) listed = listed || implmode_type_matches(t, type);
    if (listed) {
      mode = setup.select_implmode.substr(0, setup.select_implmode.find("_for_all"));
      rule = "op_select_implmode=" + setup.select_implmode +
             (setup.implmode_op_types.empty() ? "" : " (optypelist_for_implmode)");
    }
  }
  if (mode.empty() || !info) return {mode, rule};
  if (std::find(info->impl_modes.begin(), info->impl_modes.end(), mode) == info->impl_modes.end())
    return {"",
            rule + ": " + mode + " not supported by " + info->ascend_type + " (all_ops_impl_mode.ini), default kept"};
  return {mode, rule};
}

Node make_cast(std::string name, int input, int output, DType to) {
  Node cast;
  cast.name = std::move(name);
  cast.op_type = "Cast";
  Attribute attr;
  attr.kind = Attribute::Kind::kInt;
  attr.i = static_cast<int64_t>(to);
  cast.attrs.set("to", attr);
  cast.inputs = {input};
  cast.outputs = {output};
  return cast;
}

// Rewrites the graph so that every node reads its inputs in its chosen dtype.
class Retyper {
 public:
  explicit Retyper(Graph& g) : g_(g), original_dtype_(g.values.size()) {
    for (size_t v = 0; v < g.values.size(); ++v) original_dtype_[v] = g.values[v].dtype;
  }

  // The value holding `v` in `dtype`: v itself, a constant converted now, or the output of a
  // Cast appended to `out_nodes` (one per value and dtype).
  int as_dtype(int v, DType dtype, std::vector<Node>& out_nodes) {
    if (g_.values[static_cast<size_t>(v)].dtype == dtype) return v;
    auto key = std::make_pair(v, dtype);
    if (auto it = converted_.find(key); it != converted_.end()) return it->second;
    const Value source = g_.values[static_cast<size_t>(v)];
    const int nv = g_.add_value(source.name + "/" + dt(dtype));
    Value& value = g_.values[static_cast<size_t>(nv)];
    value.dtype = dtype;
    value.shape = source.shape;
    if (source.constant) {
      value.constant = converted_copy(*source.constant, dtype);
    } else {
      out_nodes.push_back(make_cast(source.name + "/Cast_to_" + dt(dtype), v, nv, dtype));
    }
    converted_[key] = nv;
    return nv;
  }

  // The dtype the model gave a value (values the pass made have no model dtype: their own).
  DType original(int v) const {
    return static_cast<size_t>(v) < original_dtype_.size() ? original_dtype_[static_cast<size_t>(v)]
                                                           : g_.values[static_cast<size_t>(v)].dtype;
  }

 private:
  Graph& g_;
  std::vector<DType> original_dtype_;
  std::map<std::pair<int, DType>, int> converted_;
};

Status load_file(const options::OptionSet& config, const char* option, std::string* path, std::string* text) {
  *path = config.get(option);
  if (path->empty()) return Status::Ok();
  auto read = options::read_text_file(*path);
  if (!read.ok()) return read.status().with_context(option);
  *text = std::move(read.value());
  return Status::Ok();
}

}  // namespace

Result<PrecisionSetup> load_precision_setup(const options::OptionSet& config) {
  PrecisionSetup setup;
  auto mode = effective_precision_mode(config);
  if (!mode.ok()) return mode.status();
  setup.mode = std::move(mode.value());
  // ASCEND_OPP_PATH (relative to the session's working directory) replaces the installed opp/.
  const std::string opp = config.get("ASCEND_OPP_PATH");
  auto profile =
      load_soc_profile(default_opp_root(opp.empty() ? opp : resolve_against(config.cwd(), opp)), config.soc_version());
  if (!profile.ok()) return profile.status().with_context("soc_version " + config.soc_version());
  setup.profile = std::move(profile.value());

  std::string path, text;
  OPENGE_RETURN_IF_ERROR(load_file(config, "modify_mixlist", &path, &text));
  std::optional<options::MixListEdits> edits;
  if (!path.empty() && setup.mode.mixed()) {
    auto parsed = options::parse_modify_mixlist(text, path);
    if (!parsed.ok()) return parsed.status().with_context("modify_mixlist");
    edits = std::move(parsed.value());
  }
  setup.lists = MixLists::build(setup.profile, edits ? &*edits : nullptr, &setup.warnings);

  OPENGE_RETURN_IF_ERROR(load_file(config, "customize_dtypes", &path, &text));
  if (!path.empty()) {
    if (setup.mode.keeps_origin()) {
      setup.warnings.push_back("customize_dtypes is ignored under " + setup.mode.label() + " (OPT-customize_dtypes-2)");
    } else {
      auto parsed = options::parse_customize_dtypes(text, path);
      if (!parsed.ok()) return parsed.status().with_context("customize_dtypes");
      setup.custom_dtypes = std::move(parsed.value());
      setup.custom_dtypes_file = path;
    }
  }

  OPENGE_RETURN_IF_ERROR(load_file(config, "op_precision_mode", &path, &text));
  if (!path.empty()) {
    auto parsed = options::parse_op_precision_ini(text, path);
    if (!parsed.ok()) return parsed.status().with_context("op_precision_mode");
    setup.op_precision_modes = std::move(parsed.value());
    setup.has_op_precision_mode = true;
  } else {
    setup.select_implmode = config.get("op_select_implmode");
    const std::string list = config.get("optypelist_for_implmode");
    for (size_t start = 0; !list.empty() && start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      if (comma > start) setup.implmode_op_types.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return setup;
}

namespace {

// One node's decision and the float slots it applies to.
struct NodeDecision {
  PrecisionDecision d;
  FloatSlots slots;
  bool retyped = false;  // its float slots take the chosen dtypes
};

// Decides `node`. `original(v)`: the model's dtype of value v; `lowered[v]`: v is produced in a
// narrower type than the model's (what a gray-list op follows).
template <class Original>
Result<NodeDecision> decide(const Graph& g, const Node& node, const PrecisionSetup& setup, Original original,
                            const std::vector<char>& lowered) {
  const std::string& soc = setup.profile.soc_version;
  NodeDecision nd;
  PrecisionDecision& d = nd.d;
  d.node_name = node.name;
  d.op_type = node.op_type;
  const std::string_view type = profile_op_type(node.op_type);
  const SocOpInfo* info = setup.profile.find_onnx(type);
  d.ascend_type = info ? info->ascend_type : ascend_op_type(type);
  nd.slots = float_slots(node, original);
  const FloatSlots& slots = nd.slots;
  d.original = slots.dtype;
  Choice choice = same(slots.dtype, "");
  if (slots.dtype == DType::kUndefined) {
    choice.rule = "no floating-point tensors";
  } else if (untouched(node.op_type) || slots.mixed) {
    choice.rule = untouched(node.op_type) ? "reads any dtype: left as the model has it"
                                          : "floating-point tensors of different types: left as the model has it";
  } else if (!info) {
    choice = on_aicpu(slots.dtype, "not in the " + soc + " AI Core table: AI CPU in the model's dtype");
  } else {
    bool upstream_lowered = false, any_upstream = false;
    for (size_t i : slots.inputs) {
      const int v = node.inputs[i];
      if (g.values[static_cast<size_t>(v)].constant) continue;
      upstream_lowered = (any_upstream ? upstream_lowered : true) && static_cast<size_t>(v) < lowered.size() &&
                         lowered[static_cast<size_t>(v)];
      any_upstream = true;
    }
    auto chosen = choose(setup.mode, *info, setup.lists.lookup(type), slots.dtype, any_upstream && upstream_lowered,
                         soc, slower_when_lowered(type, setup.mode.low, setup.costs));
    if (!chosen.ok()) return chosen.status().with_context("node " + node.op_type + " '" + node.name + "'");
    choice = std::move(chosen.value());
  }
  if (slots.dtype != DType::kUndefined && !untouched(node.op_type) && !slots.mixed) {
    if (const options::CustomDtypeRule* rule = custom_rule(setup, node)) {
      const std::string where = setup.custom_dtypes_file + ":" + std::to_string(rule->line);
      auto in = custom_slot_dtype(rule->input_dtypes, slots.inputs, choice.in, where);
      if (!in.ok()) return in.status();
      auto out = custom_slot_dtype(rule->output_dtypes, slots.outputs, choice.out, where);
      if (!out.ok()) return out.status();
      const bool on_aicore = info && info->supports(*in);
      choice = {*in, *out, !on_aicore,
                "customize_dtypes " + where + (rule->by_type ? " (by type)" : " (by name)") +
                    (on_aicore ? "" : ", not on the AI Core in " + dt(*in) + ": AI CPU")};
    }
  }
  d.input_dtype = slots.dtype == DType::kUndefined ? DType::kUndefined : choice.in;
  d.output_dtype = slots.dtype == DType::kUndefined ? DType::kUndefined : choice.out;
  d.aicpu_only = choice.aicpu;
  d.rule = choice.rule;
  std::tie(d.impl_mode, d.impl_rule) = choose_impl_mode(setup, node, info);
  nd.retyped = slots.dtype != DType::kUndefined && !untouched(node.op_type) && !slots.mixed;
  return nd;
}

}  // namespace

Result<std::vector<DType>> predict_compute_dtypes(const Graph& g, const PrecisionSetup& setup) {
  auto order = g.topological_order();
  if (!order.ok()) return order.status();
  std::vector<DType> dtypes(g.nodes.size(), DType::kUndefined);
  std::vector<char> lowered(g.values.size(), 0);
  auto original = [&](int v) { return g.values[static_cast<size_t>(v)].dtype; };
  for (int ni : *order) {
    const Node& node = g.nodes[static_cast<size_t>(ni)];
    auto nd = decide(g, node, setup, original, lowered);
    if (!nd.ok()) return nd.status();
    dtypes[static_cast<size_t>(ni)] = nd->d.input_dtype;
    if (nd->retyped)
      for (size_t o : nd->slots.outputs)
        lowered[static_cast<size_t>(node.outputs[o])] = dtype_size(nd->d.output_dtype) < dtype_size(nd->slots.dtype);
  }
  return dtypes;
}

Result<std::vector<PrecisionDecision>> apply_precision(Graph& g, const PrecisionSetup& setup) {
  std::vector<PrecisionDecision> decisions;
  Retyper retyper(g);
  std::vector<char> lowered(g.values.size(), 0);  // produced in a narrower type than the model's
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  for (Node& node : g.nodes) {
    auto decided = decide(
        g, node, setup, [&](int v) { return retyper.original(v); }, lowered);
    if (!decided.ok()) return decided.status();
    PrecisionDecision d = std::move(decided->d);
    const FloatSlots slots = std::move(decided->slots);
    const Choice choice{d.input_dtype, d.output_dtype, d.aicpu_only, d.rule};
    node.impl_mode = d.impl_mode;
    node.aicpu_only = choice.aicpu;

    // Inputs: the chosen dtype for the float slots, what the model gave for the others.
    const bool retyped = decided->retyped;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const int v = node.inputs[i];
      if (v < 0) continue;
      const bool slot = retyped && std::find(slots.inputs.begin(), slots.inputs.end(), i) != slots.inputs.end();
      node.inputs[i] = retyper.as_dtype(v, slot ? choice.in : retyper.original(v), nodes);
    }
    if (retyped) {
      for (size_t o : slots.outputs) {
        Value& out = g.values[static_cast<size_t>(node.outputs[o])];
        out.dtype = choice.out;
        lowered.resize(g.values.size(), 0);
        lowered[static_cast<size_t>(node.outputs[o])] = dtype_size(choice.out) < dtype_size(slots.dtype);
      }
    }
    nodes.push_back(std::move(node));
    decisions.push_back(std::move(d));
  }
  // Graph outputs keep the model's dtype: a value that changed type gets a new name inside the
  // graph and a Cast back to the output.
  for (int& out : g.outputs) {
    const DType want = retyper.original(out);
    if (g.values[static_cast<size_t>(out)].dtype == want) continue;
    const int inner =
        g.add_value(g.values[static_cast<size_t>(out)].name + "/" + dt(g.values[static_cast<size_t>(out)].dtype));
    Value& inner_value = g.values[static_cast<size_t>(inner)];
    const Value& outer = g.values[static_cast<size_t>(out)];
    inner_value.dtype = outer.dtype;
    inner_value.shape = outer.shape;
    for (Node& n : nodes) {
      for (int& v : n.inputs)
        if (v == out) v = inner;
      for (int& v : n.outputs)
        if (v == out) v = inner;
    }
    g.values[static_cast<size_t>(out)].dtype = want;
    nodes.push_back(make_cast(g.values[static_cast<size_t>(out)].name + "/Cast_to_" + dt(want), inner, out, want));
  }
  g.nodes = std::move(nodes);
  for (Value& v : g.values) v.producer = -1;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (int o : g.nodes[n].outputs)
      if (o >= 0) g.values[static_cast<size_t>(o)].producer = static_cast<int>(n);
  return decisions;
}

}  // namespace openge::precision
