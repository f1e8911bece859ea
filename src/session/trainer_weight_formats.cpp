// variable_format_optimize (OPT-variable_format_optimize-2): a trained convolution weight is held
// between steps in the layout oneDNN's forward convolution prefers (e.g. OIhw16i16o), and so is
// its optimizer state. The forward convolution then reads it as it is, ConvGrad writes dW in it,
// and the update (elementwise, or norms, which a permutation does not change) runs on it: per
// convolution and step, the reorder of W before the forward primitive and the one of dW after
// the backward-weights primitive are gone. Readers outside the steps (parameter, save,
// evaluate, checkpoints) get the plain layout, converted on the way out.
#include <algorithm>
#include <set>

#include "ir/attribute_values.h"
#include "kernels/onednn_conv_train.h"
#include "ops/training/optimizer_update_op.h"
#include "options/option_set.h"
#include "session/trainer_impl.h"

namespace openge {
namespace {

bool is_conv_weight_read(const Node& node, size_t input) {
  return (node.op_type == "Conv" && node.domain.empty() && input == 1) || (node.op_type == "ConvGrad" && input == 2);
}

}  // namespace

bool hold_weight_formats(const options::OptionSet* config) {
  return config && config->has_value("variable_format_optimize") && config->get_bool("variable_format_optimize");
}

bool Trainer::Impl::variable_format_optimize() const {
  // The held layouts are oneDNN's: with the reference kernels only, and across ranks (whose
  // gradient buckets are plain), the weights stay plain.
  return hold_weights && options.session.use_aicore && !data_parallel;
}

bool Trainer::Impl::any_held() const {
  return std::any_of(held_formats.begin(), held_formats.end(), [](const HeldWeightFormat& h) { return h.format >= 0; });
}

void Trainer::Impl::mark_weight_formats(autodiff::TrainingGraph& tg) {
  Graph& g = tg.graph;
  const size_t n = params.size();
  const bool deciding = held_formats.empty();
  if (deciding) held_formats.assign(n, HeldWeightFormat{});
  for (size_t i = 0; i < n; ++i) {
    const int value = g.inputs[tg.data_inputs + i];
    // The convolutions that read parameter i; any other reader keeps it plain.
    std::vector<Node*> readers;
    bool only_convolutions = true;
    for (Node& node : g.nodes)
      for (size_t k = 0; k < node.inputs.size(); ++k) {
        if (node.inputs[k] != value) continue;
        if (is_conv_weight_read(node, k))
          readers.push_back(&node);
        else if (node.op_type != kOptimizerUpdateOp)
          only_convolutions = false;
      }
    HeldWeightFormat& held = held_formats[i];
    if (deciding && only_convolutions) {
      for (Node* node : readers) {
        if (node->op_type != "Conv") continue;
        const Value &x = g.values[static_cast<size_t>(node->inputs[0])], &w = g.values[static_cast<size_t>(value)],
                    &y = g.values[static_cast<size_t>(node->outputs[0])];
        if (!x.shape || !w.shape || !y.shape) continue;
        auto format = onednn::preferred_runtime_weight_format(*node, *x.shape, *w.shape, *y.shape);
        if (!format || (held.format >= 0 && held.format != *format)) {
          held.format = -1;  // unknown, or two convolutions that want different layouts
          break;
        }
        held.format = *format;
        held.conv = *node;
      }
      if (held.format >= 0)
        OPENGE_LOG_INFO("GE", "variable_format_optimize: " + trainable[i] + " is held as " +
                                  onednn::weight_format_name(held.format) + " between steps");
    }
    if (held.format < 0) continue;
    for (Node* node : readers) node->attrs.set(onednn::kWeightFormatAttr, int_attr(held.format));
  }
}

Status Trainer::Impl::check_weight_formats(const Executable& exe, size_t data_inputs) const {
  if (!any_held()) return Status::Ok();
  const Graph& g = exe.graph();
  // The held parameters and the gradients their ConvGrads write.
  std::set<int> held_values, gradients;
  for (size_t i = 0; i < held_formats.size(); ++i)
    if (held_formats[i].format >= 0) held_values.insert(g.inputs[data_inputs + i]);
  for (const CompiledNode& c : exe.nodes()) {
    const Node& node = c.node;
    const bool marked = node.attrs.has(onednn::kWeightFormatAttr);
    if (marked && (!c.kernel || c.engine != Engine::kAiCore))
      return unsupported("node '" + node.name + "' (" + node.op_type +
                         ") reads weights in a oneDNN layout but runs on a reference kernel");
    if (marked && node.op_type == "ConvGrad" && node.outputs.size() > 1 && node.outputs[1] >= 0)
      gradients.insert(node.outputs[1]);
  }
  for (const CompiledNode& c : exe.nodes()) {
    const Node& node = c.node;
    const bool marked = node.attrs.has(onednn::kWeightFormatAttr);
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const int v = node.inputs[k];
      const bool knows = node.op_type == kOptimizerUpdateOp || (marked && is_conv_weight_read(node, k));
      if (held_values.count(v) && !knows)
        return unsupported("node '" + node.name + "' (" + node.op_type + ") reads the held weights '" +
                           g.values[static_cast<size_t>(v)].name + "'");
      const bool sums = node.op_type == kOptimizerUpdateOp || node.op_type == "Sum" || node.op_type == "Add";
      if (gradients.count(v) && !sums)
        return unsupported("node '" + node.name + "' (" + node.op_type + ") reads the gradient '" +
                           g.values[static_cast<size_t>(v)].name + "' in a oneDNN layout");
    }
  }
  return Status::Ok();
}

Status Trainer::Impl::convert_held(std::vector<Tensor>& tensors, size_t per_param, bool to_plain) const {
  if (per_param == 0) return Status::Ok();
  for (size_t t = 0; t < tensors.size(); ++t) {
    const size_t i = t / per_param;
    if (i >= held_formats.size() || held_formats[i].format < 0) continue;
    Tensor& x = tensors[t];
    const Tensor source = x.clone();
    OPENGE_RETURN_IF_ERROR(onednn::convert_weight_layout(held_formats[i].conv, x.shape(), held_formats[i].format,
                                                         source.raw(), x.raw(), to_plain));
  }
  return Status::Ok();
}

Result<std::vector<Tensor>> Trainer::Impl::plain_params() const {
  // Clones of the held ones (converting them leaves the held parameters as they are).
  std::vector<Tensor> plain = params;
  for (size_t i = 0; i < plain.size(); ++i)
    if (i < held_formats.size() && held_formats[i].format >= 0) plain[i] = params[i].clone();
  OPENGE_RETURN_IF_ERROR(convert_held(plain, 1, true));
  return plain;
}

Result<std::vector<Tensor>> Trainer::Impl::plain_optimizer_state() const {
  std::vector<Tensor> plain = optimizer->state();
  const size_t per = optimizer->state_per_param();
  for (size_t t = 0; per > 0 && t < plain.size(); ++t)
    if (t / per < held_formats.size() && held_formats[t / per].format >= 0) plain[t] = plain[t].clone();
  OPENGE_RETURN_IF_ERROR(convert_held(plain, per, true));
  return plain;
}

}  // namespace openge
