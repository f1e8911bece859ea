#!/usr/bin/python3
"""The model zoo (bench/export_zoo.py) on OpenGE and ONNX Runtime, side by side in one run:
every output of every model compared (max error relative to the largest magnitude of ONNX
Runtime's output; integer outputs must be equal), then latency at each thread count in
interleaved rounds (OpenGE, ORT, OpenGE, ORT ...), the ratio taken pair by pair and its median
reported. Prints a Markdown table for bench/RESULTS.md and exits 1 when an output differs by more
than --tolerance (default 1e-4).

Usage: /usr/bin/python3 bench/zoo_compare.py --models-dir DIR --peers ORT_DIR [--models NAME ...]
           [--threads 1 2] [--rounds 3] [--runs 10] [--no-latency] [--check-scaling SLACK]
Each round visits every model and runs every thread count on both runtimes, so the table of t_n / t_1 (how each runtime
scales) compares times taken under the same load; --check-scaling fails the run when OpenGE is
slower at more threads than at the first count given.
The ONNX Runtime harness is bench/ort_zoo.js (every output saved, several outputs allowed).
"""
import argparse
import glob
import math
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

from bench_common import ROOT, node_env, run_json

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def outputs_in(folder):
    files = sorted(glob.glob(os.path.join(folder, "output_*.npy")), key=lambda f: int(f.rsplit("_", 1)[1][:-4]))
    return [np.load(f) for f in files]


def compare(ours, theirs):
    """Largest error over all outputs (relative to the largest |value| of each of ORT's outputs)."""
    if len(ours) != len(theirs):
        return math.inf, f"{len(ours)} outputs vs ORT's {len(theirs)}"
    worst, note = 0.0, ""
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a.shape != b.shape:
            return math.inf, f"output {i}: shape {a.shape} vs ORT's {b.shape}"
        if not np.issubdtype(b.dtype, np.floating):
            if not np.array_equal(a, b):
                return math.inf, f"output {i}: integer values differ"
            continue
        scale = max(float(np.max(np.abs(b))) if b.size else 0.0, 1e-12)
        err = float(np.max(np.abs(a.astype(np.float64) - b))) / scale if b.size else 0.0
        worst = max(worst, err)
    return worst, note


def timed_pair(args, env, ort_script, model, inp, threads):
    """One OpenGE and one ORT median (ms) of `model` at `threads` threads, one right after the other."""
    a = run_json([args.openge, "bench", "--model", model, "--input", "input=" + inp, "--threads", str(threads),
                  "--warmup", "3", "--runs", str(args.runs), "--json"])
    b = run_json(["node", ort_script, model, inp, "--threads", str(threads), "--warmup", "3",
                  "--runs", str(args.runs)], env)
    return a["median_ms"], b["median"]


def latency_rows(args, env, ort_script, models):
    """`models`: (name, model path, input path, max error). Each round visits every model and thread
    count (OpenGE t1, ORT t1, OpenGE t2, ORT t2 ... per model), so that a minute of a noisy host falls on
    one round of many models instead of every round of one; the ratios between thread counts are
    still taken inside one round. Returns the table's rows and, per model and n > 1, OpenGE's and
    ORT's median t_n / t_1."""
    og = {(m[0], t): [] for m in models for t in args.threads}
    ort = {(m[0], t): [] for m in models for t in args.threads}
    for r in range(args.rounds):
        for name, model, inp, _ in models:
            for threads in args.threads:
                a, b = timed_pair(args, env, ort_script, model, inp, threads)
                og[(name, threads)].append(a)
                ort[(name, threads)].append(b)
            print(f"  round {r + 1}: {name} " + ", ".join(
                f"t={t} {og[(name, t)][-1]:.2f}/{ort[(name, t)][-1]:.2f} ms" for t in args.threads),
                file=sys.stderr, flush=True)
    rows, scaling = [], []
    base = args.threads[0]
    for name, _, _, err in models:
        for threads in args.threads:
            a_list, b_list = og[(name, threads)], ort[(name, threads)]
            ratios = [a / b for a, b in zip(a_list, b_list)]
            rows.append((name, threads, statistics.median(a_list), statistics.median(b_list),
                         statistics.median(ratios), err))
        for threads in args.threads[1:]:
            og_scale = statistics.median(a / b for a, b in zip(og[(name, threads)], og[(name, base)]))
            ort_scale = statistics.median(a / b for a, b in zip(ort[(name, threads)], ort[(name, base)]))
            scaling.append((name, base, threads, og_scale, ort_scale))
    return rows, scaling


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models-dir", required=True)
    ap.add_argument("--peers", default=os.environ.get("OPENGE_ORT_PEERS"), required=False)
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--models", nargs="+")
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--no-latency", action="store_true")
    ap.add_argument("--check-scaling", type=float, metavar="SLACK", default=None,
                    help="fail when OpenGE at more threads is slower than at the first thread count given: "
                         "median of the per-round time ratios above 1 + SLACK (e.g. 0.05 for timer noise)")
    args = ap.parse_args()
    if not args.peers or not os.path.isdir(os.path.join(args.peers, "node_modules")):
        ap.error("give ONNX Runtime's folder: --peers DIR or OPENGE_ORT_PEERS=DIR (DIR/node_modules/onnxruntime-node)")
    env = node_env(args.peers)
    ort_script = os.path.join(ROOT, "bench", "ort_zoo.js")
    names = args.models or sorted(os.path.basename(f)[:-5] for f in glob.glob(os.path.join(args.models_dir, "*.onnx")))
    rows, failed, scaling, timed = [], [], [], []
    for name in names:
        model = os.path.join(args.models_dir, name + ".onnx")
        inp = os.path.join(args.models_dir, name + ".input.npy")
        with tempfile.TemporaryDirectory() as tmp:
            ort_dir, og_dir = os.path.join(tmp, "ort"), os.path.join(tmp, "og")
            os.makedirs(ort_dir)
            os.makedirs(og_dir)
            subprocess.run(["node", ort_script, model, inp, "--outputs", ort_dir, "--runs", "0", "--warmup", "1"],
                           check=True, capture_output=True, env=env)
            run = subprocess.run([args.openge, "run", "--model", model, "--input", "input=" + inp, "--outputs", og_dir],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                err, note = math.inf, "openge run failed: " + (run.stderr.strip().splitlines() or ["?"])[-1]
            else:
                err, note = compare(outputs_in(og_dir), outputs_in(ort_dir))
        if err > args.tolerance:
            failed.append(name)
        print(f"{name}: max rel error {err:.2e} {note}", file=sys.stderr, flush=True)
        if not args.no_latency and err != math.inf:
            timed.append((name, model, inp, err))
        else:
            rows.append((name, None, None, None, None, err))
    if timed:
        timed_rows, scaling = latency_rows(args, env, ort_script, timed)
        rows = timed_rows + rows
    print("| model | threads | OpenGE median ms | ORT median ms | OpenGE/ORT (median of pairs) | max rel. error vs ORT |")
    print("|---|---|---|---|---|---|")
    for name, t, a, b, r, e in rows:
        cells = [name, str(t) if t else "-", f"{a:.2f}" if a else "-", f"{b:.2f}" if b else "-", f"{r:.2f}" if r else "-",
                 "FAILS" if e == math.inf else f"{e:.1e}"]
        print("| " + " | ".join(cells) + " |")
    ratios = [r for _, _, _, _, r, _ in rows if r]
    if ratios:
        print(f"\ngeometric mean of the ratios: {math.exp(statistics.mean(math.log(r) for r in ratios)):.2f} "
              f"over {len(ratios)} rows")
    if scaling:
        print(f"\n| model | threads | OpenGE t_n / t_{scaling[0][1]} (median of rounds) | ORT t_n / t_{scaling[0][1]} |")
        print("|---|---|---|---|")
        for name, base, t, a, b in scaling:
            print(f"| {name} | {t} vs {base} | {a:.2f} | {b:.2f} |")
    slower = [name for name, _, _, a, _ in scaling if args.check_scaling is not None and a > 1 + args.check_scaling]
    if slower:
        print(f"\nOpenGE slower with more threads (beyond {args.check_scaling:g}): {' '.join(slower)}", file=sys.stderr)
    if failed:
        print(f"\noutputs differ beyond {args.tolerance:g}: {' '.join(failed)}", file=sys.stderr)
    if failed or slower:
        sys.exit(1)


if __name__ == "__main__":
    main()
