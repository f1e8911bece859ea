#!/usr/bin/python3
"""Writes OpenGE's bundled demo model: a small image classifier (Conv-BN-ReLU, pooling, a
residual block, Gemm, Softmax) on a 1x3x32x32 input, with deterministic weights (seed 2026).
Usage: /usr/bin/python3 tools/make_demo_model.py models/demo.onnx"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(2026)


def weight(name, *shape, scale=None):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    scale = scale if scale is not None else 1.0 / np.sqrt(fan_in)
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


inits = [
    weight("conv1.w", 16, 3, 3, 3), weight("conv1.b", 16, scale=0.1),
    numpy_helper.from_array((1 + 0.1 * rng.standard_normal(16)).astype(np.float32), "bn1.scale"),
    numpy_helper.from_array((0.1 * rng.standard_normal(16)).astype(np.float32), "bn1.bias"),
    numpy_helper.from_array((0.1 * rng.standard_normal(16)).astype(np.float32), "bn1.mean"),
    numpy_helper.from_array((1 + 0.1 * rng.random(16)).astype(np.float32), "bn1.var"),
    weight("conv2.w", 16, 16, 3, 3), weight("conv2.b", 16, scale=0.1),
    weight("conv3.w", 16, 16, 3, 3), weight("conv3.b", 16, scale=0.1),
    weight("fc.w", 10, 16), weight("fc.b", 10, scale=0.1),
]
nodes = [
    helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["c1", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"], ["b1"], name="bn1"),
    helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
    helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "conv2.w", "conv2.b"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
    helper.make_node("Conv", ["r2", "conv3.w", "conv3.b"], ["c3"], name="conv3", pads=[1, 1, 1, 1]),
    helper.make_node("Add", ["c3", "p1"], ["res"], name="residual_add"),
    helper.make_node("Relu", ["res"], ["r3"], name="relu3"),
    helper.make_node("GlobalAveragePool", ["r3"], ["gap"], name="gap"),
    helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
    helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
    helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
]
graph = helper.make_graph(
    nodes, "openge_demo",
    [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
    [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="openge-demo")
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
