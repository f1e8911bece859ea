#!/usr/bin/python3
"""Time to first run: a model compiled from its .onnx at the first run, against the same model
loaded from a .oge that `openge compile` wrote.

For each model: `openge compile` once (timed), then alternately `openge run --model M.onnx` and
`openge run --model M.oge` (one run each, same input, same threads), ROUNDS times; reports the
median process wall time of each and the CLI's own "first run" time (load excluded), and checks
that both print the same outputs. Besides wall time it reports each process's CPU time (user +
sys), which a shared, overloaded machine disturbs far less.

Usage: compile_vs_load.py --openge build/openge --models-dir DIR --work DIR [--threads N] [--rounds N]
           [--option KEY=VALUE ...] [--oge-without-compiler] NAME...
       (DIR/NAME.onnx and DIR/NAME.input.npy per model)
--option goes to compile and to every run (e.g. op_compiler_cache_mode=disable: the .onnx builds
its generated kernels at every first run, as on a machine that never ran the model);
--oge-without-compiler runs the .oge with CXX pointing at no program, which a .oge with its
kernels built in does not need.
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import time


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, env=None):
    """(wall seconds, CPU seconds, stdout) of one process."""
    cpu, start = children_cpu(), time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return time.perf_counter() - start, children_cpu() - cpu, out


def first_run_ms(out):
    return float(re.search(r"run time: ([0-9.]+) ms", out).group(1))


def outputs_of(out):
    return [line for line in out.splitlines() if line.startswith("output '")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--models-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--oge-without-compiler", action="store_true")
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    for name in args.names:
        onnx = os.path.join(args.models_dir, name + ".onnx")
        oge = os.path.join(args.work, name + ".oge")
        input_npy = os.path.join(args.models_dir, name + ".input.npy")
        options = [a for o in args.option for a in ("--option", o)]
        compile_s, compile_cpu_s, _ = timed([args.openge, "compile", "--model", onnx, "--output", oge,
                                             "--threads", str(args.threads)] + options)
        oge_env = dict(os.environ, CXX="/nonexistent/c++") if args.oge_without_compiler else None
        # The .npy's input name: the CLI takes NAME=FILE; the exported models have one input.
        probe = subprocess.run([args.openge, "run", "--model", oge, "--threads", str(args.threads)],
                               check=True, capture_output=True, text=True).stdout
        input_name = re.search(r"input '([^']+)'", probe).group(1)
        common = ["--input", f"{input_name}={input_npy}", "--threads", str(args.threads)] + options
        wall = {"onnx": [], "oge": []}
        cpu = {"onnx": [], "oge": []}
        first = {"onnx": [], "oge": []}
        printed = {}
        for _ in range(args.rounds):
            for kind, model in (("onnx", onnx), ("oge", oge)):
                seconds, cpu_seconds, out = timed([args.openge, "run", "--model", model] + common,
                                                  oge_env if kind == "oge" else None)
                wall[kind].append(seconds * 1000)
                cpu[kind].append(cpu_seconds * 1000)
                first[kind].append(first_run_ms(out))
                printed[kind] = outputs_of(out)
        print(json.dumps({
            "model": name, "threads": args.threads, "rounds": args.rounds,
            "compile_s": round(compile_s, 3), "compile_cpu_s": round(compile_cpu_s, 3), "oge_bytes": os.path.getsize(oge),
            "onnx_bytes": os.path.getsize(onnx),
            "process_ms_median": {k: round(statistics.median(v), 1) for k, v in wall.items()},
            "process_cpu_ms_median": {k: round(statistics.median(v), 1) for k, v in cpu.items()},
            "first_run_ms_median": {k: round(statistics.median(v), 1) for k, v in first.items()},
            "same_outputs": printed["onnx"] == printed["oge"],
        }))


if __name__ == "__main__":
    main()
