#!/usr/bin/python3
"""Where a transformer's non-matmul time goes, fused vs all fusions off (the goal:
BERT's non-matmul time — LayerNorm, GELU, Softmax, Transposes, residual adds — at least 2x lower
with the fusions than without), from the profiler's per-iteration op_statistic CSVs.

Per round, one `openge bench --profile` process per configuration (interleaved):
  fused    the defaults (every fusion pass on)
  off      fusion_switch_file {"Switch": {"GraphFusion": {"ALL": "off"}, "UBFusion": {"ALL": "off"}}}
Iterations after the warm-up only. Per iteration:
  step        the iteration time (step_trace)
  matmul      the time of the plain cube tasks: op types MatMul and Gemm
  tasks       the time of every other task, by op type
The fused graph's matmuls carry post-ops (bias, GELU, residual Add: FusedMatMul) and its attention
cores are FusedAttention (two products and the softmax between them), so their non-matmul part
cannot be read off a task. It is estimated as what the fused model spends beyond the unfused
model's pure matmul time:
  non-matmul(off)   = step(off)   - matmul(off)
  non-matmul(fused) = step(fused) - matmul(off)
(medians over iterations, then over rounds). The per-type table shows the tasks themselves.

  /usr/bin/python3 bench/nonmatmul_time.py --openge build/openge --model MODELS/bert_float.onnx \
      --input MODELS/bert_float.input.npy --threads 1 --rounds 3 --runs 10
"""
import argparse
import csv
import glob
import json
import os
import re
import statistics
import subprocess
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MATMUL_TYPES = {"MatMul", "Gemm"}


def profile(openge, model, inp, threads, warmup, runs, extra, out):
    os.makedirs(out, exist_ok=True)  # the profiler wants its output folder to exist
    opts = json.dumps({"output": out, "task_trace": "on", "training_trace": "on", "aicpu": "on"})
    cmd = [openge, "bench", "--model", model, "--threads", str(threads), "--warmup", str(warmup), "--runs", str(runs),
           "--profile", "--profile-options", opts] + extra
    if inp:
        cmd += ["--input", "input=" + inp]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    per_iter = defaultdict(lambda: defaultdict(float))  # iteration -> op type -> us
    counts = defaultdict(int)
    steps = {}
    for f in glob.glob(os.path.join(out, "**", "op_statistic_*.csv"), recursive=True):
        it = int(re.search(r"_(\d+)\.csv$", f).group(1))
        if it <= warmup:
            continue
        with open(f, newline="") as fh:
            for row in csv.DictReader(fh):
                per_iter[it][row["OP Type"]] += float(row["Total Time(us)"])
                counts[row["OP Type"]] = int(row["Count"])
    for f in glob.glob(os.path.join(out, "**", "step_trace_*.csv"), recursive=True):
        it = int(re.search(r"_(\d+)\.csv$", f).group(1))
        if it <= warmup:
            continue
        with open(f, newline="") as fh:
            for row in csv.DictReader(fh):
                steps[it] = float(row["Iteration Time(us)"])
    types = {t for d in per_iter.values() for t in d}
    by_type = {t: statistics.median(per_iter[i].get(t, 0.0) for i in per_iter) / 1000.0 for t in types}
    matmul = statistics.median(sum(v for t, v in per_iter[i].items() if t in MATMUL_TYPES) for i in per_iter) / 1000.0
    return statistics.median(steps.values()) / 1000.0, matmul, by_type, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--model", required=True)
    ap.add_argument("--input", default="")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        off_cfg = os.path.join(tmp, "all_off.cfg")
        with open(off_cfg, "w") as f:
            json.dump({"Switch": {"GraphFusion": {"ALL": "off"}, "UBFusion": {"ALL": "off"}}}, f)
        configs = {"fused": [], "off": ["--option", "fusion_switch_file=" + off_cfg]}
        res = {k: [] for k in configs}
        for r in range(args.rounds):
            for k, extra in configs.items():
                res[k].append(profile(args.openge, args.model, args.input, args.threads, args.warmup, args.runs, extra,
                                      os.path.join(tmp, f"{k}_{r}")))
        med = lambda k, i: statistics.median(x[i] for x in res[k])
        step_on, step_off, mm_off, mm_on = med("fused", 0), med("off", 0), med("off", 1), med("fused", 1)
        non_off, non_on = step_off - mm_off, step_on - mm_off
        print(f"model {os.path.basename(args.model)}, threads {args.threads}, {args.rounds} rounds x {args.runs} "
              f"profiled runs (after {args.warmup} warm-up); medians in ms\n")
        print("| | fused | all off |\n|---|---|---|")
        print(f"| step (iteration time) | {step_on:.2f} | {step_off:.2f} |")
        print(f"| MatMul + Gemm tasks | {mm_on:.2f} | {mm_off:.2f} |")
        print(f"| non-matmul = step - matmul(off) | {non_on:.2f} | {non_off:.2f} |")
        print(f"\nnon-matmul off / fused = {non_off / non_on:.2f}x\n")
        types = sorted({t for k in res for x in res[k] for t in x[2]},
                       key=lambda t: -max(statistics.median(x[2].get(t, 0.0) for x in res[k]) for k in res))
        print("| op type | fused ms (tasks/iter) | all off ms (tasks/iter) |\n|---|---|---|")
        for t in types:
            cells = []
            for k in ("fused", "off"):
                v = statistics.median(x[2].get(t, 0.0) for x in res[k])
                n = res[k][-1][3].get(t, 0)
                cells.append(f"{v:.3f} ({n})" if n else "-")
            print(f"| {t} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
