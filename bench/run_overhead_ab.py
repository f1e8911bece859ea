#!/usr/bin/python3
"""Per-run latency of two `openge` builds on the same models, interleaved (A, B, A, B ...), for
changes to the run-time overhead (prepared kernels, allocation-free runs).
Each round runs `openge bench --json` once per build, model and thread count; the table gives
the median over rounds of each build's per-round median, and B/A.

  /usr/bin/python3 bench/run_overhead_ab.py --a OLD/openge --b NEW/openge \\
      --model mlp=bench/models/mlp.onnx --model gpt=ZOO/gpt_decoder.onnx --threads 1 2 --rounds 5

A model's input comes from NAME.input.npy next to it when that file exists (its first graph
input), else `openge bench` draws random data.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import onnx


def bench_once(binary, model, threads, warmup, runs):
    cmd = [binary, "bench", "--model", model, "--warmup", str(warmup), "--runs", str(runs),
           "--threads", str(threads), "--json"]
    npy = os.path.splitext(model)[0] + ".input.npy"
    if os.path.exists(npy):
        name = onnx.load(model, load_external_data=False).graph.input[0].name
        cmd += ["--input", f"{name}={npy}"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the baseline openge binary")
    ap.add_argument("--b", required=True, help="the changed openge binary")
    ap.add_argument("--model", action="append", required=True, help="LABEL=PATH.onnx (repeatable)")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    models = [m.split("=", 1) for m in args.model]
    results = {}
    for r in range(args.rounds):
        for label, path in models:
            for t in args.threads:
                for which, binary in (("a", args.a), ("b", args.b)):
                    ms = bench_once(binary, path, t, args.warmup, args.runs)
                    results.setdefault((label, t, which), []).append(ms)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print("| model | threads | A median ms | B median ms | B/A |")
    print("|---|---|---|---|---|")
    for label, _ in models:
        for t in args.threads:
            a = statistics.median(results[(label, t, "a")])
            b = statistics.median(results[(label, t, "b")])
            print(f"| {label} | {t} | {a:.4f} | {b:.4f} | {b / a:.3f} |")


if __name__ == "__main__":
    main()
