#!/usr/bin/python3
"""Process starts of one model: each start's median latency and the thread plan digest its
compile log prints ("thread plan <16 hex digits>", compiler/compile_log.h), then slowest / fastest
and how many distinct plans the starts made. With --busy, a second process keeps one core busy
(a Python spin loop) for the whole measurement, as a competing load does.

Every start uses one operator compile-cache folder (--cache-dir, default a fresh temporary one),
where the machine's thread calibration is kept (compiler/grain_calibration.h). Unless the folder
already holds one, a first start that is not counted makes it, before the busy loop starts: a
machine calibrates once, at its first compile.

Usage: /usr/bin/python3 bench/thread_plan_stability.py --model M.onnx [--input NAME=M.input.npy]
           [--starts 20] [--threads 2] [--warmup 5] [--runs 20] [--busy] [--openge build/openge]
           [--cache-dir DIR]
Prints one line per start and a Markdown summary for bench/RESULTS.md."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start(args):
    cmd = [args.openge, "bench", "--model", args.model, "--threads", str(args.threads),
           "--warmup", str(args.warmup), "--runs", str(args.runs), "--option", "op_compiler_cache_dir=" + args.cache_dir]
    if args.input:
        cmd += ["--input", args.input]  # NAME=FILE
    env = dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="1", ASCEND_SLOG_PRINT_TO_STDOUT="1")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    median = re.search(r"median ([0-9.]+) ms", out)
    plan = re.search(r"thread plan ([0-9a-f]{16})", out)
    grain = re.search(r"threading grain of ([0-9]+) cycles", out)
    if not median or not plan:
        sys.exit("no median or thread plan in the output of " + " ".join(cmd))
    return float(median.group(1)), plan.group(1), int(grain.group(1)) if grain else -1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--model", required=True)
    ap.add_argument("--input")
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--busy", action="store_true", help="keep one core busy with a second process")
    ap.add_argument("--cache-dir", help="operator compile-cache folder (default: a fresh temporary one)")
    args = ap.parse_args()
    temporary = None
    if not args.cache_dir:
        temporary = tempfile.TemporaryDirectory()
        args.cache_dir = temporary.name
    calibration = os.path.join(args.cache_dir, "kernel_cache", f"thread_calibration_{args.threads}.txt")
    if not os.path.exists(calibration):
        ms, plan, grain = start(args)
        print(f"calibration start (not counted): median {ms:.2f} ms, thread plan {plan}, grain {grain} cycles")
    if os.path.exists(calibration):
        with open(calibration) as f:
            print("calibration: " + " / ".join(line for line in f.read().splitlines()[2:]), flush=True)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy else None
    try:
        rows = []
        for i in range(args.starts):
            ms, plan, grain = start(args)
            rows.append((ms, plan, grain))
            print(f"start {i + 1}: median {ms:.2f} ms, thread plan {plan}, grain {grain} cycles", flush=True)
    finally:
        if busy:
            busy.kill()
            busy.wait()
    times = [r[0] for r in rows]
    plans = sorted({r[1] for r in rows})
    print()
    print("| model | threads | starts | competing load | fastest ms | median ms | slowest ms | slowest / fastest | distinct plans |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| {os.path.basename(args.model)} | {args.threads} | {args.starts} | {'one core busy' if args.busy else 'none'} | "
          f"{min(times):.2f} | {statistics.median(times):.2f} | {max(times):.2f} | {max(times) / min(times):.2f} | "
          f"{len(plans)} ({', '.join(plans)}) |")
    if temporary:
        temporary.cleanup()


if __name__ == "__main__":
    main()
