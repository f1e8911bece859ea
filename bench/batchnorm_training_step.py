#!/usr/bin/env python3
"""CPU time of one training step dominated by BatchNormalization in training mode and its gradient.

The model: Conv 3x3 -> BatchNormalization -> BatchNormalization -> GlobalAveragePool -> Flatten, on
a batch of 32 x C x 32 x 32, trained by openge.Trainer (mse, sgd) at one thread. Prints the median
and minimum process CPU time per step over --steps steps after three warm-up steps. CPU time rather
than wall time: it moves less when other processes share the cores. Build two trees to compare.

Usage: PYTHONPATH=build/python python3 bench/batchnorm_training_step.py [--channels 64] [--steps 15]
"""
import argparse
import os
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import openge


def model(channels):
    c = channels
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.normal(0, 0.05, (c, c, 3, 3)).astype(np.float32), "w")]
    for suffix in ("", "2"):
        inits += [numpy_helper.from_array(np.ones(c, np.float32), "scale" + suffix),
                  numpy_helper.from_array(np.zeros(c, np.float32), "bias" + suffix),
                  numpy_helper.from_array(np.zeros(c, np.float32), "mean" + suffix),
                  numpy_helper.from_array(np.ones(c, np.float32), "var" + suffix)]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["b", "rm", "rv"],
                              training_mode=1),
             helper.make_node("BatchNormalization", ["b", "scale2", "bias2", "mean2", "var2"], ["b2", "rm2", "rv2"],
                              training_mode=1),
             helper.make_node("GlobalAveragePool", ["b2"], ["g"]),
             helper.make_node("Flatten", ["g"], ["y"])]
    graph = helper.make_graph(nodes, "batchnorm_step",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [32, c, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [32, c])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--steps", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "batchnorm_step.onnx")
        onnx.save(model(args.channels), path)
        trainer = openge.Trainer(path, loss="mse", optimizer="sgd", lr=0.01, threads=1)
        rng = np.random.default_rng(1)
        feed = {"x": rng.normal(size=(32, args.channels, 32, 32)).astype(np.float32),
                "labels": rng.normal(size=(32, args.channels)).astype(np.float32)}
        for _ in range(3):
            trainer.step(feed)
        cpu = []
        for _ in range(args.steps):
            start = time.process_time()
            trainer.step(feed)
            cpu.append(time.process_time() - start)
    print(f"step CPU time: median {np.median(cpu) * 1e3:.1f} ms, min {min(cpu) * 1e3:.1f} ms ({args.steps} steps)")


if __name__ == "__main__":
    main()
