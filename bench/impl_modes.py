#!/usr/bin/python3
"""high_performance vs high_precision (op_select_implmode) on the ops with two implementations:
speed (openge bench, median of interleaved rounds) and error in float32 ulp against a float64 NumPy
reference, on one-op models with 2^20 inputs.

Usage: /usr/bin/python3 bench/impl_modes.py [--openge build/openge] [--work DIR] [--threads 1]
           [--rounds 5] [--runs 30]
Prints a Markdown table for bench/RESULTS.md."""
import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

from bench_common import ROOT, run_json

N = 1 << 20


def reference(op, x):
    x64 = x.astype(np.float64)
    if op == "Erf":
        return np.vectorize(math.erf)(x64)
    if op == "Tanh":
        return np.tanh(x64)
    if op == "Sigmoid":
        return 1.0 / (1.0 + np.exp(-x64))
    if op == "Softmax":
        e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    raise ValueError(op)


# Inputs: where each function is not saturated, plus the tails.
def inputs(op, rng):
    if op == "Softmax":
        return (rng.standard_normal((1024, 1024)) * 4).astype(np.float32)
    wide = rng.uniform(-10, 10, N // 2)
    near = rng.standard_normal(N // 2)
    return np.concatenate([wide, near]).astype(np.float32).reshape(1024, 1024)


def ulp_error(ours, ref):
    """|ours - ref| in units of the float32 spacing at ref (ref rounded to float32 has error <= 0.5)."""
    r32 = ref.astype(np.float32)
    spacing = np.spacing(np.abs(r32)).astype(np.float64)
    spacing = np.maximum(spacing, np.float64(np.finfo(np.float32).smallest_subnormal))
    err = np.abs(ours.astype(np.float64) - ref) / spacing
    return float(err.max()), float(err.mean())


def make_model(op, path):
    attrs = {"axis": -1} if op == "Softmax" else {}
    node = helper.make_node(op, ["input"], ["output"], **attrs)
    vi = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [1024, 1024])
    model = helper.make_model(helper.make_graph([node], op, [vi("input")], [vi("output")]),
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp()
    rng = np.random.default_rng(0)
    modes = ["high_performance", "high_precision"]
    rows = []
    for op in ["Erf", "Tanh", "Sigmoid", "Softmax"]:
        model, inp = os.path.join(work, op + ".onnx"), os.path.join(work, op + ".input.npy")
        make_model(op, model)
        x = inputs(op, rng)
        np.save(inp, x)
        ref = reference(op, x)
        err = {}
        for mode in modes:
            out = os.path.join(work, op + "_" + mode)
            subprocess.run([args.openge, "run", "--model", model, "--input", "input=" + inp, "--outputs", out,
                            "--option", "op_select_implmode=" + mode], check=True, capture_output=True)
            err[mode] = ulp_error(np.load(os.path.join(out, "output_0.npy")), ref)
        times = {m: [] for m in modes}
        for _ in range(args.rounds):
            for mode in modes:
                r = run_json([args.openge, "bench", "--model", model, "--input", "input=" + inp, "--threads",
                              str(args.threads), "--warmup", "3", "--runs", str(args.runs), "--json", "--option",
                              "op_select_implmode=" + mode])
                times[mode].append(r["median_ms"])
        med = {m: statistics.median(t) for m, t in times.items()}
        rows.append((op, med, err))
        print(op, med, err, file=sys.stderr, flush=True)
    print(f"| op (2^20 float32) | high_performance ms | high_precision ms | speed-up | high_performance ulp max / mean "
          f"| high_precision ulp max / mean |")
    print("|---|---|---|---|---|---|")
    for op, med, err in rows:
        hp, hq = med["high_performance"], med["high_precision"]
        print(f"| {op} | {hp:.3f} | {hq:.3f} | {hq / hp:.2f}x | {err['high_performance'][0]:.2f} / "
              f"{err['high_performance'][1]:.3f} | {err['high_precision'][0]:.2f} / {err['high_precision'][1]:.3f} |")


if __name__ == "__main__":
    main()
