#!/usr/bin/python3
"""Writes the static-shape ONNX models whose runs tests/alloc counts allocations of (opset 13,
seeded random weights, the same bytes on every run):

  onednn_conv_matmul.onnx   Conv+Relu, MaxPool, a residual Conv+Add, GlobalAveragePool, Flatten,
                            Gemm and MatMul: the AI Core (oneDNN) path.
  reference_ops.onnx        the common AI CPU ops of the zoo's transformers and detectors:
                            elementwise with broadcast (per-channel, row, scalar), Erf/Sqrt/Pow,
                            a LayerNorm pattern (ReduceMean, Sub, Pow, Sqrt, Div), Softmax,
                            Reshape, Transpose, Concat, Slice, Gather, Unsqueeze/Squeeze,
                            ReduceSum, Sigmoid, Clip, Where, Cast.
  resnet_small.onnx         ResNet-50's shape at a small size: 7x7/2 Conv-BN-ReLU stem, 3x3/2
                            MaxPool, bottleneck blocks (1x1, 3x3, 1x1, expansion 4) with projection
                            shortcuts and a strided stage, GlobalAveragePool, Flatten, Gemm.

Each model has one float input "x"; its shape is in the model. Files are written under a
temporary name and renamed.

Usage: /usr/bin/python3 tests/alloc/make_alloc_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, array, dtype=np.float32):
        n = self.name("c")
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array, dtype=dtype), n))
        return n

    def rand(self, shape, scale=0.5):
        return self.const(self.rng.standard_normal(shape).astype(np.float32) * np.float32(scale))

    def op(self, op_type, inputs, outputs=1, **attrs):
        outs = [self.name(op_type.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=outs[0], **attrs))
        return outs[0] if outputs == 1 else outs

    def conv(self, x, cin, cout, k, stride=1, pad=0, bias=True):
        w = self.rand((cout, cin, k, k), np.sqrt(2.0 / (cin * k * k)))
        ins = [x, w] + ([self.rand((cout,), 0.05)] if bias else [])
        return self.op("Conv", ins, kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4)

    def bn(self, x, c, scale=1.0):
        r = self.rng
        gamma = self.const((1.0 + 0.1 * r.standard_normal(c)) * scale)
        beta = self.const(0.05 * r.standard_normal(c))
        mean = self.const(0.1 * r.standard_normal(c))
        var = self.const(1.0 + 0.2 * r.random(c))
        return self.op("BatchNormalization", [x, gamma, beta, mean, var], epsilon=1e-5)

    def save(self, path, x_shape, outputs):
        graph = helper.make_graph(
            self.nodes, os.path.splitext(os.path.basename(path))[0],
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)], [], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        # The outputs typed as ONNX infers them (the checker wants every output typed).
        inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(model).graph.value_info}
        model.graph.output.extend(inferred[o] for o in outputs)
        onnx.checker.check_model(model, full_check=True)
        tmp = path + ".tmp"
        onnx.save(model, tmp)
        os.replace(tmp, path)


def onednn_conv_matmul(path):
    b = Builder(1)
    t = b.op("Relu", [b.conv("x", 3, 16, 3, pad=1)])
    t = b.op("MaxPool", [t], kernel_shape=[2, 2], strides=[2, 2])
    r = b.conv(b.op("Relu", [b.conv(t, 16, 16, 3, pad=1)]), 16, 16, 3, pad=1)
    t = b.op("Relu", [b.op("Add", [r, t])])
    t = b.op("Flatten", [b.op("GlobalAveragePool", [t])])
    t = b.op("Relu", [b.op("Gemm", [t, b.rand((32, 16)), b.rand((32,))], transB=1)])
    y = b.op("MatMul", [t, b.rand((32, 10))])
    b.save(path, [1, 3, 32, 32], [y])


def reference_ops(path):
    b = Builder(2)
    seq, dim, heads = 8, 32, 4
    x = "x"  # [1, 8, 32]
    # A LayerNorm written out, as exporters write it.
    mean = b.op("ReduceMean", [x], axes=[-1], keepdims=1)
    d = b.op("Sub", [x, mean])
    var = b.op("ReduceMean", [b.op("Pow", [d, b.const(np.float32(2.0))])], axes=[-1], keepdims=1)
    ln = b.op("Div", [d, b.op("Sqrt", [b.op("Add", [var, b.const(np.float32(1e-5))])])])
    ln = b.op("Add", [b.op("Mul", [ln, b.rand((dim,))]), b.rand((dim,))])
    # Attention scores without a fused pattern: Reshape, Transpose, MatMul, scale, Softmax.
    q = b.op("Transpose", [b.op("Reshape", [ln, b.const(np.array([1, seq, heads, dim // heads]), np.int64)])],
             perm=[0, 2, 1, 3])
    k = b.op("Transpose", [q], perm=[0, 1, 3, 2])
    s = b.op("Softmax", [b.op("Mul", [b.op("MatMul", [q, k]), b.const(np.float32(0.35))])], axis=-1)
    ctx = b.op("Reshape", [b.op("Transpose", [b.op("MatMul", [s, q])], perm=[0, 2, 1, 3]),
                           b.const(np.array([1, seq, dim]), np.int64)])
    # GELU by Erf, a residual, Concat of two Slices, a Gather, reductions and selects.
    g = b.op("Mul", [b.op("Mul", [ctx, b.const(np.float32(0.5))]),
                     b.op("Add", [b.op("Erf", [b.op("Div", [ctx, b.const(np.float32(1.4142135))])]),
                                  b.const(np.float32(1.0))])])
    h = b.op("Add", [g, x])
    first = b.op("Slice", [h, b.const(np.array([0]), np.int64), b.const(np.array([4]), np.int64),
                           b.const(np.array([1]), np.int64)])
    last = b.op("Slice", [h, b.const(np.array([4]), np.int64), b.const(np.array([8]), np.int64),
                          b.const(np.array([1]), np.int64)])
    cat = b.op("Concat", [last, first], axis=1)
    picked = b.op("Gather", [cat, b.const(np.array([0, 3, 5, 7]), np.int64)], axis=1)
    col = b.op("Unsqueeze", [b.op("ReduceSum", [picked, b.const(np.array([2]), np.int64)], keepdims=0),
                             b.const(np.array([2]), np.int64)])
    gate = b.op("Sigmoid", [b.op("Sub", [picked, col])])
    clipped = b.op("Clip", [b.op("Mul", [picked, gate]), b.const(np.float32(-3.0)), b.const(np.float32(3.0))])
    mask = b.op("Greater", [clipped, b.const(np.float32(0.0))])
    sel = b.op("Where", [mask, clipped, b.op("Neg", [clipped])])
    y = b.op("Squeeze", [b.op("ReduceMax", [sel], axes=[1], keepdims=1), b.const(np.array([1]), np.int64)])
    b.save(path, [1, seq, dim], [y, cat])


def resnet_small(path):
    b = Builder(3)
    t = b.op("Relu", [b.bn(b.conv("x", 3, 16, 7, stride=2, pad=3, bias=False), 16)])
    t = b.op("MaxPool", [t], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 16
    for width, blocks, stride in [(8, 2, 1), (16, 2, 2)]:
        for i in range(blocks):
            s = stride if i == 0 else 1
            cout = width * 4
            y = b.op("Relu", [b.bn(b.conv(t, cin, width, 1, bias=False), width)])
            y = b.op("Relu", [b.bn(b.conv(y, width, width, 3, stride=s, pad=1, bias=False), width)])
            y = b.bn(b.conv(y, width, cout, 1, bias=False), cout, scale=0.2)
            short = t if (i > 0) else b.bn(b.conv(t, cin, cout, 1, stride=s, bias=False), cout)
            t = b.op("Relu", [b.op("Add", [y, short])])
            cin = cout
    t = b.op("Flatten", [b.op("GlobalAveragePool", [t])])
    y = b.op("Gemm", [t, b.rand((10, cin)), b.rand((10,))], transB=1)
    b.save(path, [1, 3, 64, 64], [y])


def mobile_recurrent(path):
    """The kernels added after the first three models: depthwise conv with HardSwish, a
    squeeze-and-excitation block, the channel shuffle pattern (one ShuffleChannel op after
    fusion), a bilinear Resize, and batch-1 LSTM and GRU (the small-batch recurrent kernel)."""
    b = Builder(4)
    c = 16
    t = b.op("Relu", [b.conv("x", 8, c, 3, pad=1)])
    dw = b.op("Conv", [t, b.rand((c, 1, 3, 3), 0.3), b.rand((c,), 0.05)], kernel_shape=[3, 3], pads=[1] * 4, group=c)
    t = b.op("Mul", [dw, b.op("HardSigmoid", [dw], alpha=1.0 / 6, beta=0.5)])  # HardSwish at opset 13
    s = b.op("GlobalAveragePool", [t])
    s = b.op("HardSigmoid", [b.conv(b.op("Relu", [b.conv(s, c, c // 4, 1)]), c // 4, c, 1)])
    t = b.op("Mul", [t, s])
    g = 2
    t = b.op("Reshape", [t, b.const(np.array([1, g, c // g, 16, 16]), np.int64)])
    t = b.op("Transpose", [t], perm=[0, 2, 1, 3, 4])
    t = b.op("Reshape", [t, b.const(np.array([1, c, 16, 16]), np.int64)])
    t = b.op("Resize", [t, "", b.const(np.array([1, 1, 2, 2], np.float32))], mode="linear",
             coordinate_transformation_mode="half_pixel")
    cnn = b.op("ReduceMean", [t], axes=[2, 3], keepdims=0)
    seq = b.op("Reshape", ["x", b.const(np.array([16, 1, 128]), np.int64)])
    hidden = 32
    lstm = b.op("LSTM", [seq, b.rand((2, 4 * hidden, 128), 0.1), b.rand((2, 4 * hidden, hidden), 0.1),
                                   b.rand((2, 8 * hidden), 0.05)], outputs=3, hidden_size=hidden,
                   direction="bidirectional")
    y = b.op("Reshape", [lstm[0], b.const(np.array([16, 1, 2 * hidden]), np.int64)])
    gru = b.op("GRU", [y, b.rand((1, 3 * 16, 2 * hidden), 0.1), b.rand((1, 3 * 16, 16), 0.1),
                       b.rand((1, 6 * 16), 0.05)], outputs=2, hidden_size=16, linear_before_reset=1)
    b.save(path, [1, 8, 16, 16], [cnn, gru[0]])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onednn_conv_matmul(os.path.join(out, "onednn_conv_matmul.onnx"))
    reference_ops(os.path.join(out, "reference_ops.onnx"))
    resnet_small(os.path.join(out, "resnet_small.onnx"))
    mobile_recurrent(os.path.join(out, "mobile_recurrent.onnx"))


if __name__ == "__main__":
    main()
