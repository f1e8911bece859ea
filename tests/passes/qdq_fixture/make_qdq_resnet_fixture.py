#!/usr/bin/python3
"""Writes the small residual CNN of int8_channels_last_region_test.cpp, quantized by
bench/qdq_quantize.py in both of its forms, and a seeded input:

  x [1,3,16,16] -> Conv 3x3 (16) -> Relu -> MaxPool 3x3 stride 2 pad 1
    -> block(16 -> 16)                 Conv 3x3, Relu, Conv 3x3, Add(identity), Relu
    -> block(16 -> 32, stride 2)       Conv 3x3 s2, Relu, Conv 3x3, Add(Conv 1x1 s2), Relu
    -> Conv 1x1 (8) -> Relu                                                           y

(a ResNet in miniature, without the classifier, exported by PyTorch, seed 0, opset 13). After
quantizing, the graph's output is y's uint8 QuantizeLinear output (its DequantizeLinear dropped),
so that every value the test compares is an integer one and the head convolution fuses too (a
Relu that is also a graph output does not).

  qdq_resnet_fb.onnx   qdq_quantize.py --float-bias
  qdq_resnet_ort.onnx  qdq_quantize.py --float-bias --float-residual
  qdq_resnet.x.npy     standard normal input, seed 7

Run with Debian's python: /usr/bin/python3 tests/passes/qdq_fixture/make_qdq_resnet_fixture.py
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1)
        self.down = nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout else None

    def forward(self, x):
        identity = self.down(x) if self.down is not None else x
        return torch.relu(self.conv2(torch.relu(self.conv1(x))) + identity)


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, 1, 1)
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.block1 = Block(16, 16, 1)
        self.block2 = Block(16, 32, 2)
        self.head = nn.Conv2d(32, 8, 1)

    def forward(self, x):
        x = self.pool(torch.relu(self.stem(x)))
        return torch.relu(self.head(self.block2(self.block1(x))))


def output_quantized(path):
    """Makes y's QuantizeLinear output the graph's output, without the DequantizeLinear after it."""
    m = onnx.load(path)
    g = m.graph
    q = next(n for n in g.node if n.op_type == "QuantizeLinear" and n.input[0] == "y")
    dq = [n for n in g.node if n.op_type == "DequantizeLinear" and n.input[0] == q.output[0]]
    for n in dq:
        g.node.remove(n)
    del g.output[:]
    g.output.append(onnx.helper.make_tensor_value_info(q.output[0], onnx.TensorProto.UINT8, [1, 8, 4, 4]))
    onnx.checker.check_model(m)
    onnx.save(m, path)


def main():
    torch.manual_seed(0)
    model = TinyResNet().eval()
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = os.path.join(tmp, "tiny_resnet.onnx")
        torch.onnx.export(model, torch.zeros(1, 3, 16, 16), fp32, opset_version=13, input_names=["x"],
                          output_names=["y"], do_constant_folding=True)
        quantize = os.path.join(ROOT, "bench", "qdq_quantize.py")
        for name, flags in (("qdq_resnet_fb.onnx", ["--float-bias"]),
                            ("qdq_resnet_ort.onnx", ["--float-bias", "--float-residual"])):
            path = os.path.join(HERE, name)
            subprocess.run([sys.executable, quantize, fp32, path] + flags, check=True)
            output_quantized(path)
    x = np.random.default_rng(7).standard_normal((1, 3, 16, 16)).astype(np.float32)
    np.save(os.path.join(HERE, "qdq_resnet.x.npy"), x)


if __name__ == "__main__":
    main()
