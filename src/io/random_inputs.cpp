#include "openge/random_inputs.h"

#include <random>

#include "ir/dispatch.h"

namespace openge {

Tensor random_tensor(DType dtype, const Shape& shape, uint32_t seed) {
  Tensor t(dtype, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 9);
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      if constexpr (std::is_same_v<T, bool>)
        p[i] = small(rng) >= 5;
      else if constexpr (is_half_v<T>)
        p[i] = T(real(rng));
      else if constexpr (std::is_floating_point_v<T>)
        p[i] = static_cast<T>(real(rng));
      else
        p[i] = static_cast<T>(small(rng));
    }
  });
  return t;
}

std::vector<std::string> fill_missing_inputs(const std::vector<TensorInfo>& infos, std::vector<Tensor>& inputs,
                                             uint32_t seed) {
  inputs.resize(infos.size());
  std::vector<std::string> notes;
  for (size_t i = 0; i < infos.size(); ++i) {
    if (inputs[i].defined()) continue;
    if (infos[i].kind != ValueKind::kTensor) {  // nothing random to invent: an empty one
      inputs[i] = infos[i].kind == ValueKind::kSequence ? Tensor::sequence(infos[i].dtype, {})
                                                        : Tensor::optional(infos[i].kind, infos[i].dtype, Tensor());
      notes.push_back("input '" + infos[i].name + "': an empty " + value_kind_name(infos[i].kind));
      continue;
    }
    Shape shape = infos[i].shape;
    bool symbolic = false;
    for (int64_t& d : shape)
      if (d < 0) d = 1, symbolic = true;
    inputs[i] = random_tensor(infos[i].dtype, shape, seed + static_cast<uint32_t>(i));
    notes.push_back("input '" + infos[i].name + "': random " + dtype_name(infos[i].dtype) + " " +
                    shape_to_string(shape) + " (seed " + std::to_string(seed + i) + ")" +
                    (symbolic ? ", symbolic dimensions set to 1" : ""));
  }
  return notes;
}

}  // namespace openge
