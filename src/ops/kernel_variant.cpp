#include "ops/kernel_variant.h"

#include <array>
#include <utility>

namespace openge {
namespace {

// One table per field: its name in the text form and the spelling of each value.
constexpr std::array<std::pair<ConvAlgorithm, std::string_view>, 2> kAlgorithms{
    {{ConvAlgorithm::kDirect, "direct"}, {ConvAlgorithm::kWinograd, "winograd"}}};
constexpr std::array<std::pair<ActivationLayout, std::string_view>, 3> kActivations{
    {{ActivationLayout::kGraph, "graph"},
     {ActivationLayout::kBlocked, "blocked"},
     {ActivationLayout::kChannelsLast, "nhwc"}}};
constexpr std::array<std::pair<WeightLayout, std::string_view>, 2> kLayouts{
    {{WeightLayout::kPacked, "packed"}, {WeightLayout::kPlain, "plain"}}};
constexpr std::array<std::pair<ThreadPlan, std::string_view>, 3> kThreads{
    {{ThreadPlan::kByGrain, "grain"}, {ThreadPlan::kTeam, "team"}, {ThreadPlan::kSingle, "single"}}};

template <class E, size_t N>
std::string_view spell(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [e, s] : table)
    if (e == value) return s;
  return "?";
}

template <class E, size_t N>
bool read(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view text, E& out) {
  for (const auto& [e, s] : table)
    if (s == text) {
      out = e;
      return true;
    }
  return false;
}

}  // namespace

std::string to_string(const KernelVariant& v) {
  return "conv_algorithm=" + std::string(spell(kAlgorithms, v.conv_algorithm)) +
         ",activations=" + std::string(spell(kActivations, v.activations)) +
         ",weights=" + std::string(spell(kLayouts, v.weights)) + ",threads=" + std::string(spell(kThreads, v.threads));
}

std::optional<KernelVariant> parse_kernel_variant(std::string_view text) {
  KernelVariant v;
  bool seen[4] = {false, false, false, false};
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    bool ok = false;
    if (key == "conv_algorithm" && !seen[0])
      ok = seen[0] = read(kAlgorithms, value, v.conv_algorithm);
    else if (key == "activations" && !seen[1])
      ok = seen[1] = read(kActivations, value, v.activations);
    else if (key == "weights" && !seen[2])
      ok = seen[2] = read(kLayouts, value, v.weights);
    else if (key == "threads" && !seen[3])
      ok = seen[3] = read(kThreads, value, v.threads);
    if (!ok) return std::nullopt;
  }
  if (!seen[0] || !seen[1] || !seen[2] || !seen[3]) return std::nullopt;
  return v;
}

}  // namespace openge
