#!/usr/bin/python3
"""OpenGE vs ONNX Runtime, side by side in one run: accuracy (max relative error of OpenGE's
output against ONNX Runtime's) and latency (medians, interleaved A/B rounds, ratio per pair).

Usage: /usr/bin/python3 bench/compare_ort.py --peers ORT_DIR --ort-script ORT_HARNESS \
           [--models-dir bench/models] [--models resnet50 mobilenet_v2 bert_float] [--threads 1 2]
           [--rounds 4] [--runs 30]
(or OPENGE_ORT_PEERS / OPENGE_ORT_SCRIPT in the environment; see bench_common.py). Models are
NAME.onnx + NAME.input.npy in --models-dir, exported beforehand (not committed). Prints a
Markdown table for bench/RESULTS.md."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

from bench_common import ROOT, add_common_args, node_env, parse_args, run_json


def main():
    ap = argparse.ArgumentParser()
    add_common_args(ap)
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--models", nargs="+", default=["resnet50", "mobilenet_v2", "bert_float"])
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    args = parse_args(ap)
    env = node_env(args.peers)
    rows = []
    for name in args.models:
        model = os.path.join(args.models_dir, name + ".onnx")
        inp = os.path.join(args.models_dir, name + ".input.npy")
        with tempfile.TemporaryDirectory() as tmp:
            ref = os.path.join(tmp, "ort.npy")
            subprocess.run(["node", args.ort_script, model, inp, "--threads", "1", "--runs", "1", "--warmup", "0",
                            "--save", ref], check=True, capture_output=True, env=env)
            subprocess.run([args.openge, "run", "--model", model, "--input", "input=" + inp, "--outputs", tmp],
                           check=True, capture_output=True)
            ours, theirs = np.load(os.path.join(tmp, "output_0.npy")), np.load(ref)
            scale = max(float(np.max(np.abs(theirs))), 1e-12)
            max_rel = float(np.max(np.abs(ours - theirs)) / scale)
        for threads in args.threads:
            ratios, og, ort = [], [], []
            for _ in range(args.rounds):
                a = run_json([args.openge, "bench", "--model", model, "--input", "input=" + inp, "--threads", str(threads),
                              "--warmup", str(args.warmup), "--runs", str(args.runs), "--json"])
                b = run_json(["node", args.ort_script, model, inp, "--threads", str(threads), "--warmup", str(args.warmup),
                              "--runs", str(args.runs)], env)
                og.append(a["median_ms"])
                ort.append(b["median"])
                ratios.append(a["median_ms"] / b["median"])
            rows.append((name, threads, statistics.median(og), statistics.median(ort), statistics.median(ratios), max_rel))
            print(f"{name} t={threads}: openge {rows[-1][2]:.2f} ms, ort {rows[-1][3]:.2f} ms, "
                  f"ratio {rows[-1][4]:.2f}, max rel err {max_rel:.2e}", file=sys.stderr, flush=True)
    print("| model | threads | OpenGE median ms | ORT 1.30 median ms | ratio (median of pairs) | max error vs ORT (rel. to max abs) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.2f} | {r[3]:.2f} | {r[4]:.2f} | {r[5]:.1e} |")


if __name__ == "__main__":
    main()
