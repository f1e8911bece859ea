#!/usr/bin/python3
"""Profiling overhead: OpenGE latency with profiling off, at task_trace l0 and at l1, interleaved
in one run (the order rotates every round), with ONNX Runtime measured in the same rounds for
context. Ratio = median with profiling / median without, per round; the table gives the median
of the round ratios.

Usage: /usr/bin/python3 bench/profiling_overhead.py [--models resnet50 bert_float] [--threads 1]
           [--rounds 6] [--runs 30] [--warmup 5]
Models come from ../shared/bench/export_models.py (NAME.onnx + NAME.input.npy in bench/models).
Profiling data goes to a temporary folder; files are written after the timed runs (as in real
use with the default batch size), so the ratio is the per-task recording cost."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = {
    "off": None,
    "l0": {"task_trace": "l0"},
    "l1": {"task_trace": "l1", "aicpu": "on"},
}


def run_json(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "bench", "models"))
    ap.add_argument("--peers", default="/work/peers")
    ap.add_argument("--ort-script", default=os.path.join(ROOT, "..", "shared", "bench", "ort_run.js"))
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--models", nargs="+", default=["resnet50", "bert_float"])
    ap.add_argument("--threads", nargs="+", type=int, default=[1])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()
    node_env = dict(os.environ, NODE_PATH=os.path.join(args.peers, "node_modules"))
    configs = list(MODES) + ["ort"]
    print("| model | threads | OpenGE off ms | l0 ms | l1 ms | ORT ms | l0/off | l1/off | off/ORT |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.models:
        model = os.path.join(args.models_dir, name + ".onnx")
        inp = os.path.join(args.models_dir, name + ".input.npy")
        for threads in args.threads:
            medians = {c: [] for c in configs}
            for r in range(args.rounds):
                order = configs[r % len(configs):] + configs[:r % len(configs)]
                for c in order:
                    if c == "ort":
                        res = run_json(["node", args.ort_script, model, inp, "--threads", str(threads),
                                        "--warmup", str(args.warmup), "--runs", str(args.runs)], node_env)
                        medians[c].append(res["median"])
                        continue
                    cmd = [args.openge, "bench", "--model", model, "--input", "input=" + inp, "--threads", str(threads),
                           "--warmup", str(args.warmup), "--runs", str(args.runs), "--json"]
                    with tempfile.TemporaryDirectory() as out:
                        if MODES[c] is not None:
                            cmd += ["--profile", "--profile-options", json.dumps(dict(MODES[c], output=out))]
                        res = run_json(cmd)
                        if MODES[c] is not None and not res.get("profiling_dir"):
                            raise SystemExit(f"{c}: profiling did not run: {res}")
                    medians[c].append(res["median_ms"])
            ratio = {c: statistics.median(m / o for m, o in zip(medians[c], medians["off"])) for c in ("l0", "l1")}
            vs_ort = statistics.median(o / t for o, t in zip(medians["off"], medians["ort"]))
            med = {c: statistics.median(medians[c]) for c in configs}
            print(f"| {name} | {threads} | {med['off']:.2f} | {med['l0']:.2f} | {med['l1']:.2f} | {med['ort']:.2f} | "
                  f"{ratio['l0']:.3f} | {ratio['l1']:.3f} | {vs_ort:.2f} |", flush=True)


if __name__ == "__main__":
    main()
