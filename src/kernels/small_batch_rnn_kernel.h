// AI Core RNN, GRU and LSTM for small batches (CANN's DynamicRNNV3, DynamicGRUV2, DynamicRNN):
// a sequence model run one sample at a time spends its time in the recurrence, a matrix-vector
// product per step that no GEMM library is built for. This kernel prepares each direction's
// weights once at compile (W and R transposed so that a step streams R row by row, biases summed)
// and runs each step as its own loop: R·h with 64 gate columns per pass held in vector
// registers, then the gate arithmetic with the vectorisable sigmoid/tanh of the reference kernels
// (ops/elementwise/elementwise_fastmath.h). Every step's input projection X·W is one sgemm over the whole
// sequence before the recurrence. The directions of a bidirectional node run in parallel when the
// node has a team.
//
// Forms: float32, batch <= kSmallBatch, forward / reverse / bidirectional, default activations,
// no clip, no sequence_lens, no peepholes, layout 0, constant W, R, B; GRU with either
// linear_before_reset. Larger batches and the other forms go to oneDNN's RNN primitives
// (onednn_rnn.h), and what those do not compute to the reference kernels.
#pragma once
#include "ops/kernel.h"

namespace openge {

// Not tuned: above a few samples a step's product is a small GEMM, which oneDNN's cells are built
// for; only batch 1 (the zoo's sequence tagger) was measured (bench/RESULTS.md).
inline constexpr int64_t kSmallBatch = 4;

// This kernel for the forms above, else nullptr.
std::unique_ptr<CompiledKernel> make_small_batch_rnn_kernel(const KernelRequest& request);
// The AI Core table's factory: this kernel where it applies, else oneDNN's (onednn::make_rnn_kernel).
Result<std::unique_ptr<CompiledKernel>> make_recurrent_kernel(const KernelRequest& request);

}  // namespace openge
