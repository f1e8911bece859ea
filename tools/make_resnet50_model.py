#!/usr/bin/python3
"""Writes a deterministic ResNet-50 v1 ONNX model (torchvision layout, opset 13) with seeded
random weights, for tests that need a real-sized network without downloading one.

  input "input" float [1,3,224,224] -> output "output" float [1,1000]
  7x7/2 Conv-BN-ReLU, 3x3/2 MaxPool, bottleneck stages [3,4,6,3] (widths 64..512, expansion 4,
  stride on the 3x3 conv as torchvision's v1.5, projection shortcut Conv-BN on each stage's first
  block), GlobalAveragePool, Flatten, Gemm 2048->1000.

Weights: He-initialised convs (std = sqrt(2 / fan_in)), BatchNormalization with statistics that
match what He-initialised layers produce (mean ~ 0, var ~ 1), and a small scale (0.2) on the last
BN of each residual branch so the sum along the residual path grows slowly and activations stay
finite and O(1). Fixed seed: the same bytes on every run.

Usage: /usr/bin/python3 tools/make_resnet50_model.py [--if-missing] OUT.onnx
  --if-missing   do nothing when OUT.onnx already exists (the file is written under a temporary
                 name and renamed, so an existing file is always complete)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEED = 50
STAGES = [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]  # (width, blocks, first stride)
EXPANSION = 4
NUM_CLASSES = 1000


class Builder:
    def __init__(self):
        self.rng = np.random.default_rng(SEED)
        self.nodes = []
        self.inits = []

    def tensor(self, name, array):
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), name))
        return name

    def conv(self, name, x, cin, cout, k, stride=1, pad=0):
        std = np.sqrt(2.0 / (cin * k * k))  # He (Kaiming) normal, fan_in
        w = self.rng.standard_normal((cout, cin, k, k), dtype=np.float32) * np.float32(std)
        self.tensor(name + ".weight", w)
        self.nodes.append(helper.make_node(
            "Conv", [x, name + ".weight"], [name], name=name,
            kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4))
        return name

    def bn(self, name, x, c, gamma_scale=1.0):
        r = self.rng
        gamma = (1.0 + 0.1 * r.standard_normal(c, dtype=np.float32)) * np.float32(gamma_scale)
        beta = 0.05 * r.standard_normal(c, dtype=np.float32)
        mean = 0.1 * r.standard_normal(c, dtype=np.float32)
        var = 1.0 + 0.2 * r.random(c, dtype=np.float32)  # strictly positive
        inputs = [x] + [self.tensor(f"{name}.{n}", a) for n, a in
                        (("weight", gamma), ("bias", beta), ("running_mean", mean), ("running_var", var))]
        self.nodes.append(helper.make_node("BatchNormalization", inputs, [name], name=name, epsilon=1e-5))
        return name

    def relu(self, name, x):
        self.nodes.append(helper.make_node("Relu", [x], [name], name=name))
        return name

    def bottleneck(self, prefix, x, cin, width, stride):
        cout = width * EXPANSION
        y = self.relu(prefix + ".relu1", self.bn(prefix + ".bn1", self.conv(prefix + ".conv1", x, cin, width, 1), width))
        y = self.relu(prefix + ".relu2", self.bn(prefix + ".bn2",
                                                 self.conv(prefix + ".conv2", y, width, width, 3, stride, 1), width))
        y = self.bn(prefix + ".bn3", self.conv(prefix + ".conv3", y, width, cout, 1), cout, gamma_scale=0.2)
        shortcut = x
        if stride != 1 or cin != cout:
            shortcut = self.bn(prefix + ".downsample.1",
                               self.conv(prefix + ".downsample.0", x, cin, cout, 1, stride), cout)
        self.nodes.append(helper.make_node("Add", [y, shortcut], [prefix + ".add"], name=prefix + ".add"))
        return self.relu(prefix + ".relu3", prefix + ".add"), cout


    def stem(self):
        """7x7/2 Conv-BN-ReLU and 3x3/2 MaxPool: torchvision's ResNet stem; returns (output, channels)."""
        x = self.relu("relu", self.bn("bn1", self.conv("conv1", "input", 3, 64, 7, 2, 3), 64))
        self.nodes.append(helper.make_node("MaxPool", [x], ["maxpool"], name="maxpool",
                                           kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
        return "maxpool", 64

    def head(self, x, channels, graph_name, producer):
        """GlobalAveragePool, Flatten and the Gemm classifier; returns the checked model."""
        self.nodes.append(helper.make_node("GlobalAveragePool", [x], ["avgpool"], name="avgpool"))
        self.nodes.append(helper.make_node("Flatten", ["avgpool"], ["flatten"], name="flatten", axis=1))
        bound = 1.0 / np.sqrt(channels)  # torchvision's Linear default (uniform +-1/sqrt(fan_in))
        self.tensor("fc.weight", self.rng.uniform(-bound, bound, (NUM_CLASSES, channels)).astype(np.float32))
        self.tensor("fc.bias", self.rng.uniform(-bound, bound, NUM_CLASSES).astype(np.float32))
        self.nodes.append(helper.make_node("Gemm", ["flatten", "fc.weight", "fc.bias"], ["output"], name="fc",
                                           alpha=1.0, beta=1.0, transB=1))
        graph = helper.make_graph(
            self.nodes, graph_name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
            [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, NUM_CLASSES])],
            self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                                  producer_name=producer, producer_version="1")
        model.ir_version = 7
        onnx.checker.check_model(model)
        return model

def build():
    b = Builder()
    x, channels = b.stem()
    for stage, (width, blocks, first_stride) in enumerate(STAGES, start=1):
        for i in range(blocks):
            x, channels = b.bottleneck(f"layer{stage}.{i}", x, channels, width, first_stride if i == 0 else 1)
    return b.head(x, channels, "resnet50_v1", "openge-make-resnet50")


def write_main(argv, build_model, usage):
    """The command line both model writers share: [--if-missing] OUT.onnx, written atomically."""
    args = [a for a in argv if a != "--if-missing"]
    if len(args) != 1 or args[0].startswith("-"):
        sys.stderr.write(usage)
        return 2
    out = args[0]
    if "--if-missing" in argv and os.path.isfile(out):
        return 0
    data = build_model().SerializeToString()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = f"{out}.tmp.{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    print(f"wrote {out} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(write_main(sys.argv[1:], build, __doc__))
