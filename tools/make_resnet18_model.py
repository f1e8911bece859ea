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
from onnx import helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_resnet50_model import Builder, write_main  # noqa: E402  (the same layers, weights and command line)

SEED = 18
STAGES = [(64, 2, 1), (128, 2, 2), (256, 2, 2), (512, 2, 2)]  # (width, blocks, first stride)


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
    x, channels = b.stem()
    for stage, (width, blocks, first_stride) in enumerate(STAGES, start=1):
        for i in range(blocks):
            x, channels = basic_block(b, f"layer{stage}.{i}", x, channels, width, first_stride if i == 0 else 1)
    return b.head(x, channels, "resnet18_v1", "openge-make-resnet18")


if __name__ == "__main__":
    sys.exit(write_main(sys.argv[1:], build, __doc__))
