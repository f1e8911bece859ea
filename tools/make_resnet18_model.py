#!/usr/bin/python3
"""Writes a deterministic ResNet-18 ONNX model (torchvision layout, opset 13) with seeded random
weights, built with the onnx helper API, so a test can run a real ResNet-18 on a machine without
PyTorch or a download.

  input "input" float [1,3,224,224] -> output "output" float [1,1000]
  7x7/2 Conv-BN-ReLU, 3x3/2 MaxPool, basic-block stages [2,2,2,2] (widths 64..512, two 3x3
  convs per block, stride on the first), projection shortcut Conv-BN where the shape changes,
  GlobalAveragePool, Flatten, Gemm 512->1000.

Weights follow tools/make_resnet50_model.py (He-initialised convs, BatchNormalization statistics
near mean 0 / var 1, scale 0.2 on each residual branch's last BN). Fixed seed: the same bytes on
every run.

Usage: /usr/bin/python3 tools/make_resnet18_model.py [--if-missing] OUT.onnx
  --if-missing   do nothing when OUT.onnx already exists (written under a temporary name and
                 renamed, so an existing file is always complete)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_resnet50_model import Builder  # noqa: E402  (the same layer helpers and weight scheme)

SEED = 18
STAGES = [(64, 2, 1), (128, 2, 2), (256, 2, 2), (512, 2, 2)]  # (width, blocks, first stride)
NUM_CLASSES = 1000


def basic_block(b, prefix, x, cin, width, stride):
    y = b.relu(prefix + ".relu1", b.bn(prefix + ".bn1", b.conv(prefix + ".conv1", x, cin, width, 3, stride, 1), width))
    y = b.bn(prefix + ".bn2", b.conv(prefix + ".conv2", y, width, width, 3, 1, 1), width, gamma_scale=0.2)
    shortcut = x
    if stride != 1 or cin != width:
        shortcut = b.bn(prefix + ".downsample.1", b.conv(prefix + ".downsample.0", x, cin, width, 1, stride), width)
    b.nodes.append(helper.make_node("Add", [y, shortcut], [prefix + ".add"], name=prefix + ".add"))
    return b.relu(prefix + ".relu2", prefix + ".add"), width


def build():
    b = Builder()
    b.rng = np.random.default_rng(SEED)
    x = b.relu("relu", b.bn("bn1", b.conv("conv1", "input", 3, 64, 7, 2, 3), 64))
    b.nodes.append(helper.make_node("MaxPool", [x], ["maxpool"], name="maxpool",
                                    kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    x, channels = "maxpool", 64
    for stage, (width, blocks, first_stride) in enumerate(STAGES, start=1):
        for i in range(blocks):
            x, channels = basic_block(b, f"layer{stage}.{i}", x, channels, width, first_stride if i == 0 else 1)
    b.nodes.append(helper.make_node("GlobalAveragePool", [x], ["avgpool"], name="avgpool"))
    b.nodes.append(helper.make_node("Flatten", ["avgpool"], ["flatten"], name="flatten", axis=1))
    bound = 1.0 / np.sqrt(channels)  # torchvision's Linear default (uniform +-1/sqrt(fan_in))
    b.tensor("fc.weight", b.rng.uniform(-bound, bound, (NUM_CLASSES, channels)).astype(np.float32))
    b.tensor("fc.bias", b.rng.uniform(-bound, bound, NUM_CLASSES).astype(np.float32))
    b.nodes.append(helper.make_node("Gemm", ["flatten", "fc.weight", "fc.bias"], ["output"], name="fc",
                                    alpha=1.0, beta=1.0, transB=1))
    graph = helper.make_graph(
        b.nodes, "resnet18_v1",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, NUM_CLASSES])],
        b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="openge-make-resnet18", producer_version="1")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def main(argv):
    args = [a for a in argv if a != "--if-missing"]
    if len(args) != 1 or args[0].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    out = args[0]
    if "--if-missing" in argv and os.path.isfile(out):
        return 0
    data = build().SerializeToString()
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
    sys.exit(main(sys.argv[1:]))
