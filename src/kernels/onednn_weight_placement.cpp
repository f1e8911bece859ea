#include "kernels/onednn_weight_placement.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/onednn_common.h"
#include "base/aligned_memory.h"

namespace openge::onednn {
namespace {

// Offsets tried: 32-byte aligned (weights read in place) and 16 bytes past it (packed per call).
constexpr size_t kOffsets[] = {0, 16};
// Below this many multiply-adds the choice cannot matter enough to pay for timing it.
constexpr double kMinMacsToMeasure = 32e6;

std::mutex& choice_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, size_t>& choices() {
  static std::map<std::string, size_t> c;
  return c;
}

double seconds_of_one_run(const dnnl::matmul& prim, std::unordered_map<int, dnnl::memory> args,
                          const dnnl::memory::desc& scratchpad_md) {
  if (scratchpad_md.get_size() > 0)
    args[DNNL_ARG_SCRATCHPAD] = wrap(scratchpad_md, thread_scratchpad(scratchpad_md.get_size()));
  dnnl::stream& s = thread_stream();
  prim.execute(s, args);  // warm: first-touch and JIT effects stay out of the timing
  s.wait();
  const auto start = std::chrono::steady_clock::now();
  prim.execute(s, args);
  s.wait();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

PlacedWeights place_weights(const dnnl::memory::desc& src_md, const void* data, const dnnl::memory::desc& dst_md,
                            size_t offset) {
  const size_t bytes = dst_md.get_size() + offset + 64;
  std::shared_ptr<void> storage(allocate_aligned(bytes), std::free);
  void* start = static_cast<std::byte*>(storage.get()) + offset;
  dnnl::memory dst(dst_md, cpu_engine(), start);
  reorder_constant_into(src_md, data, dst);
  return {std::move(storage), dst};
}

PlacedWeights place_weights_measured(const dnnl::matmul& prim, const dnnl::matmul::primitive_desc& pd,
                                     const dnnl::memory::desc& w_src_md, const void* data, const std::string& key) {
  const auto src_md = pd.src_desc(), dst_md = pd.dst_desc(), w_md = pd.weights_desc();
  double macs = 1;
  for (auto d : dst_md.dims()) macs *= static_cast<double>(d);
  macs *= static_cast<double>(src_md.dims().back());
  {
    std::lock_guard<std::mutex> lock(choice_mutex());
    auto it = choices().find(key);
    if (it != choices().end()) return place_weights(w_src_md, data, w_md, it->second);
  }
  if (macs < kMinMacsToMeasure) return place_weights(w_src_md, data, w_md, kOffsets[0]);
  // Inputs of the right size (their values do not change the time of a dense matmul).
  std::vector<std::byte> src(src_md.get_size() + 64), dst(dst_md.get_size() + 64), bias(pd.bias_desc().get_size() + 64);
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, wrap(src_md, src.data())},
                                             {DNNL_ARG_DST, wrap(dst_md, dst.data())}};
  if (pd.bias_desc().get_size() > 0) args[DNNL_ARG_BIAS] = wrap(pd.bias_desc(), bias.data());
  size_t best = kOffsets[0];
  double best_time = 0;
  PlacedWeights kept;
  for (size_t offset : kOffsets) {
    PlacedWeights w = place_weights(w_src_md, data, w_md, offset);
    args[DNNL_ARG_WEIGHTS] = w.memory;
    const double t = seconds_of_one_run(prim, args, pd.scratchpad_desc());
    if (!kept.storage || t < best_time) best = offset, best_time = t, kept = std::move(w);
  }
  std::lock_guard<std::mutex> lock(choice_mutex());
  choices().emplace(key, best);
  return kept;
}

}  // namespace openge::onednn
