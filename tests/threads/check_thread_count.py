#!/usr/bin/python3
"""--threads N is honoured: run `openge run --threads N` on a model long enough to sample, read
every thread's CPU time from /proc/<pid>/task/*/stat while it runs, and fail when more than N
threads did real work (more than 5 % of the busiest thread's CPU time). Also checks that the
sampling can see a second thread at all by running once with --threads 2."""
import argparse
import os
import subprocess
import sys
import time


def thread_cpu_ticks(pid):
    """{tid: utime + stime} for every thread of pid (missing entries when it is exiting)."""
    ticks = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return ticks
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks[tid] = int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    return ticks


def busy_threads(openge, model, threads, iterations):
    # The grain pinned at an idle machine's value: a calibration made while other tests kept the cores
    # busy would put more of ResNet-50 on one thread (compiler/grain_calibration.h).
    proc = subprocess.Popen([openge, "run", "--model", model, "--threads", str(threads), "--iterations", str(iterations),
                             "--option", "threading_grain_cycles=65536"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    last = {}
    while proc.poll() is None:
        for tid, t in thread_cpu_ticks(proc.pid).items():
            last[tid] = max(last.get(tid, 0), t)
        time.sleep(0.02)
    if proc.returncode != 0:
        sys.exit(f"openge run --threads {threads} failed: {proc.stderr.read().strip()}")
    top = max(last.values(), default=0)
    return sorted((t for t in last.values() if top and t > 0.05 * top), reverse=True), top


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--iterations", type=int, default=20)
    args = ap.parse_args()
    one, top1 = busy_threads(args.openge, args.model, 1, args.iterations)
    two, top2 = busy_threads(args.openge, args.model, 2, args.iterations)
    print(f"--threads 1: busy threads' CPU ticks {one}; --threads 2: {two}")
    if top1 < 20:
        sys.exit(f"the run was too short to sample ({top1} ticks)")
    if len(two) < 2 and os.cpu_count() >= 2:
        sys.exit("--threads 2 showed one busy thread: the sampling cannot tell threads apart")
    if len(one) != 1:
        sys.exit(f"--threads 1 kept {len(one)} threads busy (CPU ticks {one}): a kernel ignores the thread count")
    print("ok")


if __name__ == "__main__":
    main()
