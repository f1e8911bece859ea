#!/usr/bin/env python3
"""Writes the training data and models of the digits tests and benchmarks.

Data: the 8x8 handwritten digits that Debian's python3-sklearn ships (sklearn.datasets.load_digits,
1797 samples), pixels scaled to [0, 1], split by a seeded permutation into 1437 training and 360
test samples. Each split is a folder with image.npy and labels.npy (int64), the form
`openge train --data DIR` reads; the CNN's images are [N, 1, 8, 8] (folders *_cnn).

Models (opset 17, initial weights seeded, drawn as PyTorch's default initialisation draws them:
U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weights and biases):
  mlp.onnx  image [N, 64] -> Gemm 64x128 -> Relu -> Gemm 128x10 -> logits
  cnn.onnx  image [N, 1, 8, 8] -> Conv 3x3 16 -> BatchNormalization -> Relu -> MaxPool 2
            -> Conv 3x3 32 -> Relu -> MaxPool 2 -> Flatten -> Gemm 128x10 -> logits
  mlp_dropout.onnx  the MLP with Dropout(ratio 0.2, training_mode true) after its Relu
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from sklearn.datasets import load_digits


def uniform(rng, fan_in, shape):
    bound = 1.0 / np.sqrt(fan_in)
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


def write_split(folder, images, labels):
    os.makedirs(folder, exist_ok=True)
    np.save(os.path.join(folder, "image.npy"), images)
    np.save(os.path.join(folder, "labels.npy"), labels)


def model(nodes, inits, image_shape, name):
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, image_shape)],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def mlp(rng):
    inits = {"fc1.weight": uniform(rng, 64, (64, 128)), "fc1.bias": uniform(rng, 64, (128,)),
             "fc2.weight": uniform(rng, 128, (128, 10)), "fc2.bias": uniform(rng, 128, (10,))}
    nodes = [helper.make_node("Gemm", ["image", "fc1.weight", "fc1.bias"], ["h"], name="fc1"),
             helper.make_node("Relu", ["h"], ["h_relu"], name="relu1"),
             helper.make_node("Gemm", ["h_relu", "fc2.weight", "fc2.bias"], ["logits"], name="fc2")]
    return model(nodes, inits, ["N", 64], "digits_mlp")


def mlp_dropout(rng):
    m = mlp(rng)
    g = m.graph
    g.initializer.extend([numpy_helper.from_array(np.array(0.2, np.float32), "dropout.ratio"),
                          numpy_helper.from_array(np.array(True), "dropout.training_mode")])
    fc2 = [n for n in g.node if n.name == "fc2"][0]
    fc2.input[0] = "h_dropout"
    g.node.insert(2, helper.make_node("Dropout", ["h_relu", "dropout.ratio", "dropout.training_mode"], ["h_dropout"],
                                      name="dropout"))
    g.name = "digits_mlp_dropout"
    onnx.checker.check_model(m)
    return m


def cnn(rng):
    inits = {"conv1.weight": uniform(rng, 9, (16, 1, 3, 3)), "conv1.bias": uniform(rng, 9, (16,)),
             "bn1.scale": np.ones(16, np.float32), "bn1.bias": np.zeros(16, np.float32),
             "bn1.mean": np.zeros(16, np.float32), "bn1.var": np.ones(16, np.float32),
             "conv2.weight": uniform(rng, 144, (32, 16, 3, 3)), "conv2.bias": uniform(rng, 144, (32,)),
             "fc.weight": uniform(rng, 128, (10, 128)), "fc.bias": uniform(rng, 128, (10,))}
    nodes = [helper.make_node("Conv", ["image", "conv1.weight", "conv1.bias"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c1", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"], ["b1"],
                              name="bn1", momentum=0.9),
             helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
             helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "conv2.weight", "conv2.bias"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             helper.make_node("MaxPool", ["r2"], ["p2"], name="pool2", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Flatten", ["p2"], ["flat"], name="flatten"),
             helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["logits"], name="fc", transB=1)]
    return model(nodes, inits, ["N", 1, 8, 8], "digits_cnn")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="folder to write into")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(args.seed).permutation(len(labels))
    train, test = order[:1437], order[1437:]
    os.makedirs(args.out, exist_ok=True)
    write_split(os.path.join(args.out, "train"), images[train], labels[train])
    write_split(os.path.join(args.out, "test"), images[test], labels[test])
    write_split(os.path.join(args.out, "train_cnn"), images[train].reshape(-1, 1, 8, 8), labels[train])
    write_split(os.path.join(args.out, "test_cnn"), images[test].reshape(-1, 1, 8, 8), labels[test])
    rng = np.random.default_rng(args.seed + 1)
    onnx.save(mlp(rng), os.path.join(args.out, "mlp.onnx"))
    onnx.save(cnn(rng), os.path.join(args.out, "cnn.onnx"))
    onnx.save(mlp_dropout(rng), os.path.join(args.out, "mlp_dropout.onnx"))


if __name__ == "__main__":
    main()
