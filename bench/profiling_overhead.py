#!/usr/bin/python3
"""Profiling overhead of OpenGE at task_trace l0 and l1 against profiling off, with ONNX Runtime
measured in the same run for context.

The overhead is measured inside one process (build/openge_profiling_overhead): one compiled
model, runs interleaved off / l0 / l1 with a rotating order, each profiled run recorded as
Session records it; the ratio is the median over rounds of (profiled run / plain run of the same
round). Separate processes per mode differ from each other by more than the overhead on this
shared machine, so they cannot resolve a 3 % goal. Each repetition runs that binary and then
ORT's harness; the table gives medians over repetitions.

Usage: /usr/bin/python3 bench/profiling_overhead.py --peers ORT_DIR --ort-script ORT_HARNESS
           [--models resnet50 bert_float] [--threads 1 2] [--reps 3] [--rounds 20]
(or OPENGE_ORT_PEERS / OPENGE_ORT_SCRIPT in the environment; see bench_common.py). Models are
NAME.onnx + NAME.input.npy in bench/models, exported beforehand (not committed)."""
import argparse
import os
import statistics

from bench_common import ROOT, add_common_args, node_env, parse_args, run_json


def main():
    ap = argparse.ArgumentParser()
    add_common_args(ap)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "openge_profiling_overhead"))
    ap.add_argument("--models", nargs="+", default=["resnet50", "bert_float"])
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    args = parse_args(ap)
    ort_env = node_env(args.peers)
    print("| model | threads | tasks | off ms | l0 ms | l1 ms | l0/off | l1/off | ORT ms | off/ORT |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.models:
        model = os.path.join(args.models_dir, name + ".onnx")
        inp = os.path.join(args.models_dir, name + ".input.npy")
        for threads in args.threads:
            ours, ort = [], []
            for _ in range(args.reps):
                ours.append(run_json([args.binary, model, inp, "--threads", str(threads), "--rounds", str(args.rounds),
                                      "--warmup", str(args.warmup)]))
                ort.append(run_json(["node", args.ort_script, model, inp, "--threads", str(threads), "--warmup",
                                     str(args.warmup), "--runs", str(args.rounds)], ort_env)["median"])
            med = lambda key: statistics.median(r[key] for r in ours)  # noqa: E731
            print(f"| {name} | {threads} | {ours[0]['tasks']} | {med('off_ms'):.2f} | {med('l0_ms'):.2f} | "
                  f"{med('l1_ms'):.2f} | {med('l0_ratio'):.3f} | {med('l1_ratio'):.3f} | {statistics.median(ort):.2f} | "
                  f"{med('off_ms') / statistics.median(ort):.2f} |", flush=True)


if __name__ == "__main__":
    main()
