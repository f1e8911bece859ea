#!/usr/bin/python3
"""An int8 QDQ transformer (bench/qdq_quantize_transformer.py) against its float32 original, on
OpenGE and on ONNX Runtime, in one run:

  latency:   bench/int8_compare.py's interleaved rounds (fp32 OpenGE, int8 OpenGE, fp32 ORT, int8
             ORT, ...) at each thread count, medians and medians of per-round ratios;
  agreement: cosine similarity and largest absolute difference of the output (the encoder's
             hidden states) on --agree-inputs seeded inputs (standard normal draws from
             numpy.random.default_rng(--agree-seed + i)), every runtime and model against ONNX
             Runtime fp32, and OpenGE int8 against ONNX Runtime int8 of the same file.

Usage: /usr/bin/python3 bench/int8_transformer_compare.py --fp32 M.onnx --int8 M_int8.onnx --input M.input.npy \
           --peers ORT_DIR --ort-script ORT_HARNESS [--threads 1 2] [--rounds 4] [--runs 10]
Prints Markdown for bench/RESULTS.md.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import ROOT, add_common_args, node_env, parse_args  # noqa: E402
from int8_compare import latency, openge_outputs, ort_outputs  # noqa: E402


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def agreement(args, env):
    shape = list(np.load(args.input).shape)
    out = {k: [] for k in ("openge_fp32", "openge_int8", "ort_fp32", "ort_int8")}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.agree_inputs):
            inp = os.path.join(tmp, "input.npy")
            np.save(inp, np.random.default_rng(args.agree_seed + i).standard_normal(shape).astype(np.float32))
            for kind, model in (("fp32", args.fp32), ("int8", args.int8)):
                out["openge_" + kind].append(openge_outputs(args.openge, model, inp, tmp))
                out["ort_" + kind].append(ort_outputs(args, env, model, inp, tmp))
    pairs = [("openge_int8", "ort_fp32"), ("ort_int8", "ort_fp32"), ("openge_int8", "ort_int8"),
             ("openge_int8", "openge_fp32"), ("openge_fp32", "ort_fp32")]
    rows = []
    for a, b in pairs:
        cos = [cosine(x, y) for x, y in zip(out[a], out[b])]
        diff = max(float(np.abs(x - y).max()) for x, y in zip(out[a], out[b]))
        rows.append((a, b, min(cos), diff))
    return rows


def main():
    ap = argparse.ArgumentParser()
    add_common_args(ap)
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--fp32", required=True)
    ap.add_argument("--int8", required=True)
    ap.add_argument("--input", required=True, help="the .npy input for latency")
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--agree-inputs", type=int, default=4)
    ap.add_argument("--agree-seed", type=int, default=0)
    args = parse_args(ap)
    env = node_env(args.peers)
    rows = latency(args, env)
    print("| threads | OpenGE fp32 ms | OpenGE int8 ms | ORT fp32 ms | ORT int8 ms | OpenGE int8/fp32 | "
          "ORT int8/fp32 | int8 OpenGE/ORT | OpenGE int8 / ORT fp32 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['threads']} | {r['openge_fp32']:.1f} | {r['openge_int8']:.1f} | {r['ort_fp32']:.1f} | "
              f"{r['ort_int8']:.1f} | {r['og_int8_vs_fp32']:.2f} | {r['ort_int8_vs_fp32']:.2f} | "
              f"{r['int8_og_vs_ort']:.2f} | {r['openge_int8'] / r['ort_fp32']:.2f} |")
    print()
    n = args.agree_inputs
    print(f"| output on {n} seeded inputs | lowest cosine | max abs difference |")
    print("|---|---|---|")
    for a, b, cos, diff in agreement(args, env):
        print(f"| {a} vs {b} | {cos:.6f} | {diff:.3g} |")


if __name__ == "__main__":
    main()
