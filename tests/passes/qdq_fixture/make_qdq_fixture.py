#!/usr/bin/python3
"""Writes the small QDQ model of requant_fusion_pass_test.cpp and its expected outputs, computed
here with NumPy from the definitions of the quantized ops (independently of OpenGE):

  x (float [1,3,8,8]) -> QuantizeLinear(u8, zero point 128) -> DequantizeLinear
    -> Conv 3x3 pad 1 (int8 weights, per-channel scales, int32 bias) -> Relu -> Q(u8, zp 0)   y1
    -> DQ -> Conv 3x3 stride 2 group 2 (per-tensor scale, no bias) -> Q(s8, zp 0)             y2q (output)
    -> Reshape [1, 128] -> DQ -> Q(s8, zp -7) -> DQ
    -> MatMul [128, 10] (per-column scales, axis 1) -> Q(s8, zp 0)                             y3
    -> DQ -> Gemm transB [6, 10] (per-row scales, axis 0) -> Q(s8, zp 0) -> DQ                 y (output)

After RequantFusionPass the four cube ops are QLinearConv / QLinearMatMul, whose outputs are
  acc = sum (x_q - x_zp) * (w_q - w_zp) [+ bias_q]                     (exact, int32)
  y_q = saturate(round_half_even(float32(acc) * (x_scale * w_scale[m] / y_scale)) + y_zp)
with the multiplier computed in float32 in that order (ONNX Runtime's and the reference's).
Every output zero point is 0, so the int8 oneDNN kernels must match these bit for bit.

Run with Debian's python: /usr/bin/python3 tests/passes/qdq_fixture/make_qdq_fixture.py
(deterministic; writes qdq_small.onnx, qdq_small.x.npy, qdq_small.y2q.npy, qdq_small.y.npy
next to this script).
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F = np.float32
rng = np.random.default_rng(20261201)


def quantize(x, scale, zp, dtype):
    info = np.iinfo(dtype)
    q = np.rint(x.astype(F) / F(scale)) + F(zp)
    return np.clip(q, info.min, info.max).astype(dtype)


def dequantize(q, scale, zp):
    return ((q.astype(np.int64) - np.int64(zp)).astype(F) * F(scale)).astype(F)


def conv_int(xc, wc, stride, pad, group):
    """Integer convolution of centred int64 inputs [N,C,H,W] x [M,C/g,kh,kw] (exact)."""
    n, c, h, w = xc.shape
    m, cg, kh, kw = wc.shape
    xp = np.pad(xc, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (w + 2 * pad - kw) // stride + 1
    out = np.zeros((n, m, oh, ow), dtype=np.int64)
    mg = m // group
    for o in range(m):
        g = o // mg
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, i * stride:i * stride + kh, j * stride:j * stride + kw]
                out[:, o, i, j] = (patch * wc[o]).reshape(n, -1).sum(axis=1)
    return out


def requantize(acc, x_scale, w_scale, y_scale, y_zp, dtype, channel_axis):
    """The QLinear ops' output: float32(acc) * (x_scale * w_scale / y_scale), rounded, + zp."""
    mult = (F(x_scale) * w_scale.astype(F)).astype(F) / F(y_scale)
    shape = [1] * acc.ndim
    shape[channel_axis] = -1
    v = acc.astype(np.int32).astype(F) * mult.astype(F).reshape(shape)
    info = np.iinfo(dtype)
    return np.clip(np.rint(v) + F(y_zp), info.min, info.max).astype(dtype)


def weight_scales(w, axis):
    """Symmetric int8 scales per slice along `axis` (largest magnitude -> 127)."""
    other = tuple(i for i in range(w.ndim) if i != axis)
    return (np.abs(w).max(axis=other) / F(127)).astype(F)


def quantize_weights(w, scales, axis):
    shape = [1] * w.ndim
    shape[axis] = -1
    return np.clip(np.rint(w / scales.reshape(shape)), -127, 127).astype(np.int8)


def output_scale(acc, x_scale, w_scale, channel_axis, dtype):
    """A calibrated output scale: the float result's largest magnitude maps to the type's max."""
    shape = [1] * acc.ndim
    shape[channel_axis] = -1
    real = acc.astype(np.float64) * float(x_scale) * w_scale.astype(np.float64).reshape(shape)
    return F(np.abs(real).max() / np.iinfo(dtype).max)


def main():
    nodes, inits = [], []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(op, ins, out, **attrs):
        nodes.append(helper.make_node(op, ins, [out], name=out + "_node", **attrs))
        return out

    x = rng.standard_normal((1, 3, 8, 8)).astype(F)
    # Input quantization: u8 with zero point 128.
    s_in, zp_in = F(0.025), np.uint8(128)
    xq = quantize(x, s_in, zp_in, np.uint8)
    node("QuantizeLinear", ["x", const("s_in", s_in), const("zp_in", zp_in)], "xq")
    node("DequantizeLinear", ["xq", "s_in", "zp_in"], "xf")

    # Conv1: per-channel weights, int32 bias, Relu, Q(u8, zp 0).
    w1 = rng.standard_normal((8, 3, 3, 3)).astype(F)
    w1s = weight_scales(w1, 0)
    w1q = quantize_weights(w1, w1s, 0)
    b1s = (s_in * w1s).astype(F)
    b1q = rng.integers(-2000, 2000, size=8).astype(np.int32)
    acc1 = conv_int(xq.astype(np.int64) - int(zp_in), w1q.astype(np.int64), 1, 1, 1) + b1q.reshape(1, -1, 1, 1)
    s1 = output_scale(np.maximum(acc1, 0), s_in, w1s, 1, np.uint8)
    y1 = requantize(acc1, s_in, w1s, s1, 0, np.uint8, 1)
    node("DequantizeLinear", [const("w1q", w1q), const("w1s", w1s), const("w1zp", np.zeros(8, np.int8))], "w1f", axis=0)
    node("DequantizeLinear", [const("b1q", b1q), const("b1s", b1s), const("b1zp", np.zeros(8, np.int32))], "b1f", axis=0)
    node("Conv", ["xf", "w1f", "b1f"], "c1", pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    node("Relu", ["c1"], "r1")
    node("QuantizeLinear", ["r1", const("s1", s1), const("zp1", np.uint8(0))], "y1q")
    node("DequantizeLinear", ["y1q", "s1", "zp1"], "y1f")

    # Conv2: per-tensor weights, stride 2, 2 groups, no bias, Q(s8, zp 0).
    w2 = rng.standard_normal((8, 4, 3, 3)).astype(F)
    w2s = F(np.abs(w2).max() / 127)
    w2q = np.clip(np.rint(w2 / w2s), -127, 127).astype(np.int8)
    acc2 = conv_int(y1.astype(np.int64), w2q.astype(np.int64), 2, 1, 2)
    s2 = output_scale(acc2, s1, np.array([w2s] * 8, F), 1, np.int8)
    y2q = requantize(acc2, s1, np.array([w2s] * 8, F), s2, 0, np.int8, 1)
    node("DequantizeLinear", [const("w2q", w2q), const("w2s", w2s), const("w2zp", np.int8(0))], "w2f")
    node("Conv", ["y1f", "w2f"], "c2", pads=[1, 1, 1, 1], strides=[2, 2], group=2)
    node("QuantizeLinear", ["c2", const("s2", s2), const("zp2", np.int8(0))], "y2q")

    # Reshape on the int8 values, dequantize, requantize with zero point -7 (stays float: no cube op).
    node("Reshape", ["y2q", const("flat", np.array([1, 128], np.int64))], "y2r")
    node("DequantizeLinear", ["y2r", "s2", "zp2"], "y2f")
    s3in, zp3in = F(s2 * 1.5), np.int8(-7)
    y2f = dequantize(y2q.reshape(1, 128), s2, 0)
    a3 = quantize(y2f, s3in, zp3in, np.int8)
    node("QuantizeLinear", ["y2f", const("s3in", s3in), const("zp3in", zp3in)], "a3q")
    node("DequantizeLinear", ["a3q", "s3in", "zp3in"], "a3f")

    # MatMul [128, 10]: per-column weights (axis 1), Q(s8, zp 0).
    w3 = rng.standard_normal((128, 10)).astype(F)
    w3s = weight_scales(w3, 1)
    w3q = quantize_weights(w3, w3s, 1)
    acc3 = (a3.astype(np.int64) - int(zp3in)) @ w3q.astype(np.int64)
    s3 = output_scale(acc3, s3in, w3s, 1, np.int8)
    y3 = requantize(acc3, s3in, w3s, s3, 0, np.int8, 1)
    node("DequantizeLinear", [const("w3q", w3q), const("w3s", w3s), const("w3zp", np.zeros(10, np.int8))], "w3f", axis=1)
    node("MatMul", ["a3f", "w3f"], "m3")
    node("QuantizeLinear", ["m3", const("s3", s3), const("zp3", np.int8(0))], "y3q")
    node("DequantizeLinear", ["y3q", "s3", "zp3"], "y3f")

    # Gemm transB with W [6, 10] (per-row scales, axis 0), Q(s8, zp 0), then dequantized.
    w4 = rng.standard_normal((6, 10)).astype(F)
    w4s = weight_scales(w4, 0)
    w4q = quantize_weights(w4, w4s, 0)
    acc4 = y3.astype(np.int64) @ w4q.astype(np.int64).T
    s4 = output_scale(acc4, s3, w4s, 1, np.int8)
    y4 = requantize(acc4, s3, w4s, s4, 0, np.int8, 1)
    node("DequantizeLinear", [const("w4q", w4q), const("w4s", w4s), const("w4zp", np.zeros(6, np.int8))], "w4f", axis=0)
    node("Gemm", ["y3f", "w4f"], "g4", transB=1)
    node("QuantizeLinear", ["g4", const("s4", s4), const("zp4", np.int8(0))], "y4q")
    node("DequantizeLinear", ["y4q", "s4", "zp4"], "y")
    y = dequantize(y4, s4, 0)

    graph = helper.make_graph(
        nodes, "qdq_small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y2q", TensorProto.INT8, [1, 8, 4, 4]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_qdq_fixture.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, "qdq_small.onnx"))
    np.save(os.path.join(HERE, "qdq_small.x.npy"), x)
    np.save(os.path.join(HERE, "qdq_small.y2q.npy"), y2q)
    np.save(os.path.join(HERE, "qdq_small.y.npy"), y)
    print("y2q range", y2q.min(), y2q.max(), "y", y)


if __name__ == "__main__":
    main()
