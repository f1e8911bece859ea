#!/usr/bin/env python3
"""CPU time of one training step under atomic_clean_policy 0 (one MemSet before the graph) and 1
(a MemSet before each accumulating node).

The model: an embedding table gathered by a batch of token ids (GatherGrad scatters into a gradient
of the table's size), seen as 8 x 8 images, Conv 3x3, MaxPool 2 stride 1, AveragePool 2 stride 1
(both gradients add each window into dX), Flatten; trained by openge.Trainer (mse, sgd) at one
thread. Both trainers live in one process and take their steps in turns (A B A B ...), so load
from other processes falls on both alike. Prints each policy's median and minimum process CPU time
per step after three warm-up steps, and their ratio. No ONNX Runtime peer: ONNX Runtime runs no
training step, and the question is the cost of one policy against the other.

Usage: PYTHONPATH=build/python python3 bench/atomic_clean_step.py [--vocab 50000] [--steps 21]
"""
import argparse
import os
import statistics
import tempfile
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper
import onnx

import openge

BATCH, TOKENS, DIM = 32, 16, 64  # DIM = 8 x 8


def model(vocab):
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.normal(0, 0.1, (vocab, DIM)).astype(np.float32), "table"),
             numpy_helper.from_array(rng.normal(0, 0.05, (TOKENS, TOKENS, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(np.array([BATCH, TOKENS, 8, 8], np.int64), "image_shape")]
    nodes = [helper.make_node("Gather", ["table", "ids"], ["rows"]),
             helper.make_node("Reshape", ["rows", "image_shape"], ["images"]),
             helper.make_node("Conv", ["images", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("MaxPool", ["c"], ["m"], kernel_shape=[2, 2]),
             helper.make_node("AveragePool", ["m"], ["a"], kernel_shape=[2, 2]),
             helper.make_node("Flatten", ["a"], ["y"])]
    graph = helper.make_graph(nodes, "atomic_clean_step",
                              [helper.make_tensor_value_info("ids", TensorProto.INT64, [BATCH, TOKENS])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [BATCH, TOKENS * 36])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=int, default=50000)
    parser.add_argument("--steps", type=int, default=21)
    parser.add_argument("--first", type=int, choices=(0, 1), default=0, help="the policy that steps first in each turn")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    feed = {"ids": rng.integers(0, args.vocab, (BATCH, TOKENS)).astype(np.int64),
            "labels": rng.normal(size=(BATCH, TOKENS * 36)).astype(np.float32)}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "atomic_clean_step.onnx")
        onnx.save(model(args.vocab), path)
        order = (args.first, 1 - args.first)
        trainers = {p: openge.Trainer(path, loss="mse", optimizer="sgd", lr=0.01, threads=1,
                                      options={"memory_config.atomic_clean_policy": p}) for p in order}
        for _ in range(3):
            for t in trainers.values():
                t.step(feed)
        cpu = {p: [] for p in trainers}
        for _ in range(args.steps):
            for p, t in trainers.items():
                start = time.process_time()
                t.step(feed)
                cpu[p].append(time.process_time() - start)
    for p in (0, 1):
        print(f"atomic_clean_policy={p}: median {statistics.median(cpu[p]) * 1e3:.2f} ms, "
              f"min {min(cpu[p]) * 1e3:.2f} ms per step ({args.steps} steps)")
    print(f"policy 1 / policy 0 (medians): {statistics.median(cpu[1]) / statistics.median(cpu[0]):.3f}")


if __name__ == "__main__":
    main()
