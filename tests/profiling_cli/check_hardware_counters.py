#!/usr/bin/python3
"""A real hardware counter value in the profile (aic_metrics, PipeUtilization by default).

`openge run --profile` on the demo model with task_trace on and no aic_metrics key: where
perf_event_open gives this process the CPU's cycle and instruction counters, every op_summary
row carries counted cycles and instructions (integers, not N/A) and at least one task counted
more than zero of each. Where the kernel or the virtual machine exposes no counter, the profile
says N/A with the reason, and this test reports Not Run (exit 77) with that reason: it is not a
pass.

Usage: check_hardware_counters.py --openge BIN --model M.onnx --work DIR
"""
import argparse
import csv
import glob
import json
import os
import shutil
import subprocess
import sys

NOT_RUN = 77


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    out = os.path.join(args.work, "out")
    os.makedirs(out)
    options = json.dumps({"output": out, "task_trace": "on", "training_trace": "on"})
    run = subprocess.run([args.openge, "run", "--model", args.model, "--threads", "1", "--iterations", "3",
                          "--profile", "--profile-options", options], capture_output=True, text=True)
    if run.returncode != 0:
        print("openge run failed:", run.stderr, file=sys.stderr)
        return 1
    infos = glob.glob(os.path.join(out, "PROF_*", "device_*", "info.json.0"))
    if len(infos) != 1:
        print(f"expected one info.json.0, found {infos}", file=sys.stderr)
        return 1
    with open(infos[0]) as f:
        metrics = json.load(f)["aic_metrics"]
    if metrics.get("set") != "PipeUtilization" or metrics.get("source") != "default":
        print(f"aic_metrics without the key must be the default PipeUtilization set: {metrics}", file=sys.stderr)
        return 1
    status = metrics.get("status", "")
    if status.startswith("N/A"):
        print(f"Not run: no hardware counter open to this process: {status}")
        return NOT_RUN
    summaries = glob.glob(os.path.join(out, "PROF_*", "mindstudio_profiler_output", "op_summary_*.csv"))
    if not summaries:
        print("no op_summary CSV", file=sys.stderr)
        return 1
    problems, best = [], (0, 0)
    for path in summaries:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                cycles, instructions = row.get("aic_total_cycles", ""), row.get("aic_instructions", "")
                if not (cycles.isdigit() and instructions.isdigit()):
                    problems.append(f"{os.path.basename(path)} {row.get('Op Name')}: cycles {cycles!r}, "
                                    f"instructions {instructions!r}")
                    continue
                best = max(best, (int(instructions), int(cycles)))
    if problems:
        print("status says counting works, but cells are not counts:\n  " + "\n  ".join(problems[:10]),
              file=sys.stderr)
        return 1
    if best[0] <= 0 or best[1] <= 0:
        print("every task counted zero instructions or cycles", file=sys.stderr)
        return 1
    print(f"ok: {status}; largest task: {best[0]} instructions in {best[1]} cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
