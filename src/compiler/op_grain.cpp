#include "compiler/op_grain.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace openge {
namespace {

// What a node's work is proportional to.
enum class Work {
  kLargest,            // the larger of all input and all output elements (elementwise, data movement)
  kInputs,             // elements read (reductions, normalisations, softmax)
  kOutputs,            // elements written (resampling)
  kConvMacs,           // output elements x (weight elements / output channels)
  kConvTransposeMacs,  // input elements x (weight elements / input channels)
  kMatMulMacs,         // output elements x K, the last dim of input 0
  kGemmMacs,           // output elements x K, input 0's dim 0 under transA, else dim 1
  kPoolWindow,         // output elements x the kernel_shape window
  kRecurrentStep,      // one time step: batch x (directions x gates x hidden) x (input + hidden)
};

struct GrainRow {
  std::string_view op_type;
  Work work;
  double cycles_per_unit;  // rough cycles per unit of `work`, on the scale parallel_for's costs use
};

// Multiply-accumulates run vectorised in oneDNN (16 fp32 lanes, two FMA ports): 1/16 cycle each
// is what small and medium shapes reach. Transcendentals cost a few cycles per element even in
// their vectorised forms. Every op not listed costs kDefault per element of its largest side.
constexpr double kMac = 1.0 / 16;
constexpr double kTranscendental = 8;
constexpr GrainRow kDefault{"", Work::kLargest, 2};

constexpr GrainRow kGrainTable[] = {
    {"Conv", Work::kConvMacs, kMac},
    {"FusedConv", Work::kConvMacs, kMac},
    {"ConvInteger", Work::kConvMacs, kMac},
    {"QLinearConv", Work::kConvMacs, kMac},
    {"ConvTranspose", Work::kConvTransposeMacs, kMac},
    {"MatMul", Work::kMatMulMacs, kMac},
    {"FusedMatMul", Work::kMatMulMacs, kMac},
    {"MatMulInteger", Work::kMatMulMacs, kMac},
    {"QLinearMatMul", Work::kMatMulMacs, kMac},
    {"Gemm", Work::kGemmMacs, kMac},
    {"RNN", Work::kRecurrentStep, kMac},
    {"GRU", Work::kRecurrentStep, kMac},
    {"LSTM", Work::kRecurrentStep, kMac},
    {"MaxPool", Work::kPoolWindow, 1},
    {"AveragePool", Work::kPoolWindow, 1},
    {"LpPool", Work::kPoolWindow, 2},
    {"Softmax", Work::kInputs, kTranscendental},
    {"LogSoftmax", Work::kInputs, kTranscendental},
    {"LayerNormalization", Work::kInputs, 4},
    {"Resize", Work::kOutputs, 8},
    {"Upsample", Work::kOutputs, 8},
    {"GridSample", Work::kOutputs, 16},
    {"Exp", Work::kLargest, kTranscendental},
    {"Log", Work::kLargest, kTranscendental},
    {"Tanh", Work::kLargest, kTranscendental},
    {"Sigmoid", Work::kLargest, kTranscendental},
    {"Erf", Work::kLargest, kTranscendental},
    {"Gelu", Work::kLargest, kTranscendental},
    {"Softplus", Work::kLargest, kTranscendental},
    {"Elu", Work::kLargest, kTranscendental},
    {"Selu", Work::kLargest, kTranscendental},
    {"Celu", Work::kLargest, kTranscendental},
    {"Mish", Work::kLargest, kTranscendental},
    {"Pow", Work::kLargest, kTranscendental},
    {"Sin", Work::kLargest, kTranscendental},
    {"Cos", Work::kLargest, kTranscendental},
};

const GrainRow& row_of(std::string_view op_type) {
  for (const GrainRow& row : kGrainTable)
    if (row.op_type == op_type) return row;
  return kDefault;
}

// Elements of a known shape; -1 when unknown; 0 for an omitted input.
int64_t elements(const ValueInfo& info) {
  if (info.dtype == DType::kUndefined) return 0;
  if (!info.shape_known) return -1;
  int64_t n = 1;
  for (int64_t d : info.shape) n *= std::max<int64_t>(d, 0);
  return n;
}

// Dim `axis` (negative: from the end) of a known shape, or -1.
int64_t dim(const std::vector<ValueInfo>& infos, size_t index, int axis) {
  if (index >= infos.size() || !infos[index].shape_known) return -1;
  const Shape& s = infos[index].shape;
  const int rank = static_cast<int>(s.size());
  const int a = axis < 0 ? axis + rank : axis;
  return a >= 0 && a < rank ? s[static_cast<size_t>(a)] : -1;
}

// Sum of the elements of `infos`, -1 when one is unknown.
int64_t total_elements(const std::vector<ValueInfo>& infos) {
  int64_t total = 0;
  for (const ValueInfo& info : infos) {
    const int64_t n = elements(info);
    if (n < 0) return -1;
    total += n;
  }
  return total;
}

// Units of `work` for the node; -1 when a shape it needs is unknown.
int64_t work_units(Work work, const KernelRequest& r) {
  const auto& in = r.inputs;
  const auto& out = r.outputs;
  const int64_t out0 = out.empty() ? -1 : elements(out[0]);
  const int64_t in0 = in.empty() ? -1 : elements(in[0]);
  auto times = [](int64_t a, int64_t b) { return a < 0 || b < 0 ? int64_t{-1} : a * b; };
  switch (work) {
    case Work::kLargest: {
      const int64_t i = total_elements(in), o = total_elements(out);
      return i < 0 || o < 0 ? -1 : std::max(i, o);
    }
    case Work::kInputs:
      return total_elements(in);
    case Work::kOutputs:
      return total_elements(out);
    case Work::kConvMacs:
    case Work::kConvTransposeMacs: {
      const int64_t w = in.size() > 1 ? elements(in[1]) : -1;
      const int64_t channels = dim(in, 1, 0);
      if (w < 0 || channels <= 0) return -1;
      return times(work == Work::kConvMacs ? out0 : in0, w / channels);
    }
    case Work::kMatMulMacs:
      return times(out0, dim(in, 0, -1));
    case Work::kGemmMacs:
      return times(out0, dim(in, 0, r.node.attrs.get_int("transA", 0) ? 0 : 1));
    case Work::kPoolWindow: {
      int64_t window = 1;
      for (int64_t k : r.node.attrs.get_ints("kernel_shape")) window *= std::max<int64_t>(k, 1);
      return times(out0, window);
    }
    case Work::kRecurrentStep: {
      // X [seq, batch, input] (layout 1: [batch, seq, input]); W [dirs, gates x hidden, input];
      // R [dirs, gates x hidden, hidden].
      const int64_t batch = dim(in, 0, r.node.attrs.get_int("layout", 0) ? 0 : 1);
      const int64_t gate_rows = times(dim(in, 1, 0), dim(in, 1, 1));
      const int64_t input = dim(in, 0, 2), hidden = dim(in, 2, 2);
      if (input < 0 || hidden < 0) return -1;
      return times(times(batch, gate_rows), input + hidden);
    }
  }
  return -1;
}

}  // namespace

int64_t estimated_node_cycles(const KernelRequest& request) {
  const GrainRow& row = row_of(request.node.op_type);
  const int64_t units = work_units(row.work, request);
  return units < 0 ? -1 : static_cast<int64_t>(static_cast<double>(units) * row.cycles_per_unit);
}

bool runs_on_calling_thread(const KernelRequest& request, int threads, int64_t grain_cycles) {
  if (threads <= 1) return false;  // nothing to decide: the run has one thread anyway
  const int64_t cycles = estimated_node_cycles(request);
  return cycles >= 0 && cycles < grain_cycles;
}

bool grain_decides(int64_t cycles) { return cycles >= kMinGrainCycles && cycles < kMaxGrainCycles; }

int64_t grain_for_fork_join(double fork_join_us) {
  const double cycles = kGrainPerForkJoin * std::max(fork_join_us, 0.0) * kGrainCyclesPerMicrosecond;
  return std::clamp(static_cast<int64_t>(cycles), kMinGrainCycles, kMaxGrainCycles);
}

}  // namespace openge
