// A MatMul model with weights of any size, and the process's peak resident memory: for the tests
// that check a large model is loaded without holding its weights twice (.onnx and .oge).
#pragma once
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

namespace openge::test {

// y = MatMul(x, w) + b with w, b as raw_data initializers of the given sizes, plus a third
// initializer in float_data (the typed form, which stays in the parsed message).
inline onnx::ModelProto matmul_model(int64_t k, int64_t n) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("initializer_split_test");  // fields before and after the graph stay
  auto* op = m.add_opset_import();
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("mm");
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(1);
  tt->mutable_shape()->add_dim()->set_dim_value(k);
  auto add_raw = [&](const std::string& name, std::vector<int64_t> dims) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t numel = 1;
    for (int64_t d : dims) t->add_dims(d), numel *= d;
    std::vector<float> v(static_cast<size_t>(numel));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 37 + name.size()) % 101) / 50.5f - 1.0f;
    t->set_raw_data(v.data(), v.size() * sizeof(float));
  };
  add_raw("w", {k, n});
  auto* s = g->add_initializer();
  s->set_name("scale");
  s->set_data_type(onnx::TensorProto::FLOAT);
  s->add_dims(1);
  s->add_float_data(0.5f);
  add_raw("b", {n});
  auto node = [&](const char* type, std::vector<std::string> in, const char* out) {
    auto* nd = g->add_node();
    nd->set_op_type(type);
    nd->set_name(out);
    for (auto& i : in) nd->add_input(i);
    nd->add_output(out);
  };
  node("MatMul", {"x", "w"}, "xw");
  node("Add", {"xw", "b"}, "xwb");
  node("Mul", {"xwb", "scale"}, "y");
  g->add_output()->set_name("y");
  m.set_doc_string("a field after the graph");
  return m;
}

// The process's peak resident memory (VmHWM) in bytes.
inline size_t peak_rss() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

// The bound on a large model's load peak, as a multiple of its file: 1.3. AddressSanitizer
// adds an eighth of every allocation as shadow memory and keeps allocator metadata of its own,
// so the sanitized suite allows 1.5 (a whole parse still peaks at 2x for .onnx, 3x for .oge).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr double kLoadPeakBound = 1.5;
#else
inline constexpr double kLoadPeakBound = 1.3;
#endif

// Starts the high-water mark afresh (Linux: writing 5 to clear_refs resets VmHWM).
inline void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

}  // namespace openge::test
