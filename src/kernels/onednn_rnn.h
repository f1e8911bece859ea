// AI Core RNN, GRU and LSTM: oneDNN's RNN primitives (vanilla_rnn, gru / lbr_gru, lstm with
// peepholes) for the forms they compute exactly as ONNX defines them: float32, forward, reverse or
// bidirectional (oneDNN's bidirectional_concat; Y regathered into ONNX's [T, 2, N, H]),
// the default activations (Tanh; Sigmoid/Tanh; Sigmoid/Tanh/Tanh), no clip, no sequence_lens,
// no input_forget, layout 0, constant W, R, B and P. The ONNX weights are repacked once (gate
// order i, o, f, c -> oneDNN's i, f, c, o for LSTM; biases Wb + Rb summed, GRU's Rb_h kept apart
// for linear_before_reset) and reordered into oneDNN's layout. Everything else (other
// activations, clip, sequence lengths …) runs on the reference kernels of src/ops/recurrent/recurrent_ops.cpp.
// Batches of up to kSmallBatch run on kernels/small_batch_rnn_kernel.h instead (the AI Core table
// asks it first).
//
// oneDNN computes the gates with its own GEMM and its own sigmoid/tanh, so results differ from
// the reference by float rounding (the tests bound it at 1e-5 absolute on hidden states in [-1, 1]).
#pragma once
#include "ops/kernel.h"

namespace openge::onednn {

Result<std::unique_ptr<CompiledKernel>> make_rnn_kernel(const KernelRequest& request);

}  // namespace openge::onednn
