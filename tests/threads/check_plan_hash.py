#!/usr/bin/python3
"""Starts of one model in separate processes plan alike: `openge run --threads 2` twice with one
compile-cache folder prints the same thread plan digest and grain; the first start calibrates the
machine and keeps the calibration in the folder, the second reads it (compiler/grain_calibration.h).
A third start finds the file corrupt: it warns, calibrates again and still runs."""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def start(openge, model, cache):
    env = dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="1", ASCEND_SLOG_PRINT_TO_STDOUT="1")
    proc = subprocess.run([openge, "run", "--model", model, "--threads", "2", "--iterations", "1",
                           "--option", "op_compiler_cache_dir=" + cache],
                          env=env, capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        sys.exit(f"openge run failed ({proc.returncode}):\n{out[-3000:]}")
    plan = re.search(r"thread plan ([0-9a-f]{16})", out)
    grain = re.search(r"threading grain of ([0-9]+) cycles", out)
    if not plan or not grain:
        sys.exit("no thread plan digest or grain in the compile log:\n" + out[-3000:])
    return plan.group(1), int(grain.group(1)), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--model", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        calibration = os.path.join(cache, "kernel_cache", "thread_calibration_2.txt")
        plan1, grain1, out1 = start(args.openge, args.model, cache)
        if not os.path.isfile(calibration) or "thread calibration:" not in out1:
            sys.exit("the first start kept no calibration in " + calibration)
        with open(calibration) as f:
            kept = f.read()
        plan2, grain2, out2 = start(args.openge, args.model, cache)
        print(f"start 1: plan {plan1}, grain {grain1}; start 2: plan {plan2}, grain {grain2}")
        if "thread calibration:" in out2:
            sys.exit("the second start calibrated again instead of reading " + calibration)
        with open(calibration) as f:
            if f.read() != kept:
                sys.exit("the second start changed " + calibration)
        if (plan1, grain1) != (plan2, grain2):
            sys.exit("two starts made different thread plans")
        with open(calibration, "w") as f:
            f.write("openge thread calibration 1\ncpu nonsense\n")
        _, _, out3 = start(args.openge, args.model, cache)
        if "ignored" not in out3:
            sys.exit("a corrupt calibration was used without a warning")
        with open(calibration) as f:
            lines = f.read().split("\n")
        if lines[:2] != kept.split("\n")[:2] or not lines[3].startswith("fork_join_us "):
            sys.exit("the corrupt calibration was not replaced: " + " / ".join(lines))
    print("ok")


if __name__ == "__main__":
    main()
