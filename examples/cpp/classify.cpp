// Runs a model through OpenGE's public C++ API, as a program built against the installed package
// does (examples/cpp/CMakeLists.txt: find_package(OpenGE)). Each float input gets a ramp of
// values (dimensions the model leaves open are taken as 1); prints each output's shape and the
// index of its largest element.
//
//   classify MODEL.onnx [THREADS]
#include <openge/session.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.onnx [THREADS]\n", argv[0]);
    return 2;
  }
  openge::SessionOptions options;
  options.num_threads = argc > 2 ? std::atoi(argv[2]) : 1;
  auto session = openge::Session::open(argv[1], options);
  if (!session.ok()) {
    std::fprintf(stderr, "error: %s\n", session.status().message().c_str());
    return 1;
  }
  std::vector<openge::Tensor> inputs;
  for (const openge::TensorInfo& info : (*session)->inputs()) {
    if (info.dtype != openge::DType::kFloat32) {
      std::fprintf(stderr, "error: input '%s' is not float32; this example feeds float32 only\n", info.name.c_str());
      return 1;
    }
    openge::Shape shape = info.shape;
    for (auto& d : shape) d = d < 0 ? 1 : d;
    openge::Tensor t(openge::DType::kFloat32, shape);
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(i % 255) / 255.0f;
    inputs.push_back(std::move(t));
  }
  auto outputs = (*session)->run(inputs);
  if (!outputs.ok()) {
    std::fprintf(stderr, "error: %s\n", outputs.status().message().c_str());
    return 1;
  }
  for (size_t o = 0; o < outputs->size(); ++o) {
    const openge::Tensor& out = (*outputs)[o];
    std::string shape;
    for (int64_t d : out.shape()) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    std::printf("%s: [%s]", (*session)->outputs()[o].name.c_str(), shape.c_str());
    if (out.dtype() == openge::DType::kFloat32 && out.numel() > 0) {
      const float* p = out.data<float>();
      std::printf(" argmax %td", std::max_element(p, p + out.numel()) - p);
    }
    std::printf("\n");
  }
  return 0;
}
