#include "openge/session.h"

#include <map>
#include <mutex>

#include "frontend/onnx_loader.h"
#include "runtime/executable.h"

namespace openge {

struct Session::Impl {
  Graph graph;
  SessionOptions options;
  std::vector<TensorInfo> inputs, outputs;
  std::mutex mutex;
  // One compiled graph per distinct set of input shapes.
  std::map<std::vector<Shape>, std::shared_ptr<Executable>> compiled;
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::open(const std::string& model_path, const SessionOptions& options) {
  auto graph = load_onnx(model_path);
  if (!graph.ok()) return graph.status();
  auto impl = std::make_unique<Impl>();
  impl->graph = std::move(graph.value());
  impl->options = options;
  for (int v : impl->graph.inputs) {
    const Value& value = impl->graph.values[static_cast<size_t>(v)];
    impl->inputs.push_back({value.name, value.dtype, value.shape.value_or(Shape{})});
  }
  for (int v : impl->graph.outputs) {
    const Value& value = impl->graph.values[static_cast<size_t>(v)];
    impl->outputs.push_back({value.name, value.dtype, value.shape.value_or(Shape{})});
  }
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

const std::vector<TensorInfo>& Session::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Session::outputs() const { return impl_->outputs; }

Result<std::vector<Tensor>> Session::run(const std::vector<Tensor>& inputs, RunInfo* info) {
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  std::shared_ptr<Executable> exe;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->compiled.find(shapes);
    if (it == impl_->compiled.end()) {
      CompileOptions co;
      co.num_threads = impl_->options.num_threads;
      co.use_aicore = impl_->options.use_aicore;
      co.run_passes = impl_->options.run_passes;
      auto compiled = Executable::compile(impl_->graph, shapes, co);
      if (!compiled.ok()) return compiled.status();
      it = impl_->compiled.emplace(shapes, std::shared_ptr<Executable>(std::move(compiled.value()))).first;
    }
    exe = it->second;
  }
  RunStats stats;
  auto outputs = exe->run(inputs, &stats);
  if (info && outputs.ok()) {
    info->arena_bytes = stats.arena_bytes;
    info->peak_dynamic_bytes = stats.peak_dynamic_bytes;
    info->aicore_nodes = info->aicpu_nodes = 0;
    for (const auto& node : exe->nodes()) (node.engine == Engine::kAiCore ? info->aicore_nodes : info->aicpu_nodes)++;
  }
  return outputs;
}

}  // namespace openge
