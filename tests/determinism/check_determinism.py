#!/usr/bin/python3
"""deterministic=1 gives the same output bytes on every run and at every thread count.

The model is built here (random weights, seed 0) so that it reduces in parallel where thread
counts can matter: a 3x3 Conv over 2048 input channels (oneDNN's brgconv picks its blocking, and
so the order of its sums, from the thread count it is created for: without the option its bits at
16 threads differ from those at 1 on an AVX-512 machine), a MatMul and a Gemm with long K, then
Softmax, ReduceMean and GlobalAveragePool on the AI CPU engine. Each configuration is run in
several processes at 1, 2 and 16 threads (16 oversubscribes a small machine on purpose: oneDNN
plans for the threads it is given).

Usage: check_determinism.py --openge BUILD/openge --work DIR [--runs 3]
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

THREADS = [1, 2, 16]


def build_model(path, input_path):
    rng = np.random.default_rng(0)
    f32 = TensorProto.FLOAT
    inits = [
        numpy_helper.from_array(rng.standard_normal((8, 2048, 3, 3)).astype(np.float32) * 0.02, "conv_w"),
        numpy_helper.from_array(np.array([8, 16], dtype=np.int64), "shape_8x16"),
        numpy_helper.from_array(rng.standard_normal((16, 4096)).astype(np.float32), "mm_w"),
        numpy_helper.from_array(rng.standard_normal((1000, 2048)).astype(np.float32) * 0.02, "fc_w"),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "conv_w"], ["conv"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Reshape", ["conv", "shape_8x16"], ["rows"], name="reshape"),
        helper.make_node("MatMul", ["rows", "mm_w"], ["mm"], name="matmul"),
        helper.make_node("Softmax", ["mm"], ["softmax"], axis=-1, name="softmax"),
        helper.make_node("ReduceMean", ["mm"], ["mean"], axes=[1], keepdims=0, name="reduce_mean"),
        helper.make_node("GlobalAveragePool", ["input"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc_w"], ["fc"], transB=1, name="fc"),
    ]
    graph = helper.make_graph(nodes, "determinism", [helper.make_tensor_value_info("input", f32, [1, 2048, 4, 4])],
                              [helper.make_tensor_value_info("softmax", f32, [8, 4096]),
                               helper.make_tensor_value_info("mean", f32, [8]),
                               helper.make_tensor_value_info("fc", f32, [1, 1000])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, path)
    np.save(input_path, rng.standard_normal((1, 2048, 4, 4)).astype(np.float32))


def output_hash(openge, model, inp, out_dir, threads, deterministic):
    shutil.rmtree(out_dir, ignore_errors=True)
    cmd = [openge, "run", "--model", model, "--input", "input=" + inp, "--outputs", out_dir, "--threads",
           str(threads), "--option", "deterministic=%d" % deterministic]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.dirname(out_dir), timeout=300)
    if result.returncode != 0:
        raise SystemExit("command failed: %s\n%s%s" % (" ".join(cmd), result.stdout, result.stderr))
    h = hashlib.sha256()
    names = sorted(n for n in os.listdir(out_dir) if n.endswith(".pb"))
    if len(names) != 3:
        raise SystemExit("expected 3 outputs in %s, found %s" % (out_dir, names))
    for name in names:
        with open(os.path.join(out_dir, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    args.openge = os.path.abspath(args.openge)
    os.makedirs(args.work, exist_ok=True)
    model = os.path.join(args.work, "determinism.onnx")
    inp = os.path.join(args.work, "determinism.input.npy")
    build_model(model, inp)
    out_dir = os.path.join(args.work, "out")
    hashes = {}
    for deterministic in (1, 0):
        for t in THREADS:
            hashes[(deterministic, t)] = {output_hash(args.openge, model, inp, out_dir, t, deterministic)
                                         for _ in range(args.runs)}
    for (d, t), hs in sorted(hashes.items()):
        print("deterministic=%d threads=%2d: %s" % (d, t, " ".join(sorted(hs))))
    on = set().union(*(hashes[(1, t)] for t in THREADS))
    off = set().union(*(hashes[(0, t)] for t in THREADS))
    # What the check can catch: without the option the thread count changes the bits here.
    if len(off) > 1:
        print("note: without deterministic=1 the outputs differ between thread counts (%d distinct)" % len(off))
    else:
        print("note: without deterministic=1 this CPU and oneDNN gave one result too; the check still holds")
    if len(on) != 1:
        print("FAIL deterministic=1 gave %d distinct outputs over %d runs at threads %s" % (len(on), args.runs, THREADS))
        return 1
    print("ok   deterministic=1: one output over %d runs at each of threads %s" % (args.runs, THREADS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
