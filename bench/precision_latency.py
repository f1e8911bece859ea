#!/usr/bin/python3
"""Precision modes on real models: latency of OpenGE under several option sets
next to ONNX Runtime fp32, and the accuracy of each option set against ONNX Runtime's fp32 output.

Latency: for each model and thread count, `rounds` rounds; in each round every configuration
(OpenGE per option set, then ONNX Runtime) runs `--warmup` + `--runs` inferences in its own process,
in the same order every round (A B C A B C ...), so a drift of the shared machine reaches all alike.
The table gives the median over rounds of each configuration's median, and each OpenGE
configuration's ratio to ONNX Runtime as the median of the per-round ratios.
Accuracy: one `openge run` per option set; cosine similarity and max relative error
(max |ours - ort| / max |ort|) of the flattened output against ONNX Runtime fp32.

Usage: /usr/bin/python3 bench/precision_latency.py --peers ORT_DIR --ort-script ORT_HARNESS \
           --models-dir DIR [--models resnet50 bert_float] [--threads 1 2] [--rounds 4] [--runs 20] \
           [--config NAME=OPT,OPT ...] [--accuracy-only NAME=OPT,OPT ...]
Default configurations: fp32 (no option), bf16 (soc_version=Ascend910B,
precision_mode=allow_mix_precision_bf16). Prints Markdown tables for bench/RESULTS.md."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

from bench_common import ROOT, add_common_args, node_env, parse_args, run_json


def parse_config(text):
    name, _, opts = text.partition("=")
    return name, [o for o in opts.split(",") if o]


def option_flags(opts):
    flags = []
    for o in opts:
        flags += ["--option", o]
    return flags


def compare(ours, ref):
    a, b = ours.astype(np.float64).ravel(), ref.astype(np.float64).ravel()
    cos = float(np.dot(a, b) / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-300))
    rel = float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-12))
    return cos, rel


def main():
    ap = argparse.ArgumentParser()
    add_common_args(ap)
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--models", nargs="+", default=["resnet50", "bert_float"])
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--config", action="append", default=None,
                    help="NAME=OPT,OPT (timed); default fp32= and bf16=soc_version=Ascend910B,"
                         "precision_mode=allow_mix_precision_bf16")
    ap.add_argument("--accuracy-only", action="append", default=[], help="NAME=OPT,OPT (accuracy, not timed)")
    args = parse_args(ap)
    env = node_env(args.peers)
    configs = [parse_config(c) for c in (args.config or [
        "fp32=", "bf16=soc_version=Ascend910B,precision_mode=allow_mix_precision_bf16"])]
    accuracy_only = [parse_config(c) for c in args.accuracy_only]
    latency_rows, accuracy_rows = [], []
    for model_name in args.models:
        model = os.path.join(args.models_dir, model_name + ".onnx")
        inp = os.path.join(args.models_dir, model_name + ".input.npy")
        with tempfile.TemporaryDirectory() as tmp:
            ref_path = os.path.join(tmp, "ort.npy")
            subprocess.run(["node", args.ort_script, model, inp, "--threads", "1", "--runs", "1", "--warmup", "0",
                            "--save", ref_path], check=True, capture_output=True, env=env)
            ref = np.load(ref_path)
            for name, opts in configs + accuracy_only:
                out = os.path.join(tmp, name)
                subprocess.run([args.openge, "run", "--model", model, "--input", "input=" + inp, "--outputs", out]
                               + option_flags(opts), check=True, capture_output=True)
                cos, rel = compare(np.load(os.path.join(out, "output_0.npy")), ref)
                accuracy_rows.append((model_name, name, " ".join(opts) or "(none)", cos, rel))
                print(f"{model_name} {name}: cosine {cos:.6f}, max rel err {rel:.2e}", file=sys.stderr, flush=True)
        for threads in args.threads:
            times = {name: [] for name, _ in configs}
            ort, ratios = [], {name: [] for name, _ in configs}
            for _ in range(args.rounds):
                this_round = {}
                for name, opts in configs:
                    r = run_json([args.openge, "bench", "--model", model, "--input", "input=" + inp, "--threads",
                                  str(threads), "--warmup", str(args.warmup), "--runs", str(args.runs), "--json"]
                                 + option_flags(opts))
                    this_round[name] = r["median_ms"]
                    times[name].append(r["median_ms"])
                b = run_json(["node", args.ort_script, model, inp, "--threads", str(threads), "--warmup",
                              str(args.warmup), "--runs", str(args.runs)], env)
                ort.append(b["median"])
                for name in this_round:
                    ratios[name].append(this_round[name] / b["median"])
            row = (model_name, threads, {n: statistics.median(t) for n, t in times.items()}, statistics.median(ort),
                   {n: statistics.median(r) for n, r in ratios.items()})
            latency_rows.append(row)
            print(f"{model_name} t={threads}: " + ", ".join(f"{n} {v:.2f} ms" for n, v in row[2].items())
                  + f", ort {row[3]:.2f} ms", file=sys.stderr, flush=True)
    names = [n for n, _ in configs]
    print("| model | threads | " + " | ".join(f"OpenGE {n} ms" for n in names) + " | ORT fp32 ms | "
          + " | ".join(f"{n} / ORT" for n in names) + " |")
    print("|---" * (3 + 2 * len(names)) + "|")
    for m, t, med, o, rat in latency_rows:
        print(f"| {m} | {t} | " + " | ".join(f"{med[n]:.2f}" for n in names) + f" | {o:.2f} | "
              + " | ".join(f"{rat[n]:.2f}" for n in names) + " |")
    print()
    print("| model | configuration | options | cosine vs ORT fp32 | max rel. error vs ORT fp32 |")
    print("|---|---|---|---|---|")
    for m, n, o, c, r in accuracy_rows:
        print(f"| {m} | {n} | {o} | {c:.6f} | {r:.2e} |")


if __name__ == "__main__":
    main()
