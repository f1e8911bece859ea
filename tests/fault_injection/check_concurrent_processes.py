#!/usr/bin/python3
"""Processes that run at the same time never mix their artifacts (docs/RELIABILITY.md,
"Concurrent processes"). Each round starts 4 `openge run` processes at once on the demo model,
each with its own --seed (so each has its own tensors), all with the same dump_path, the same
--outputs folder and the same profiling output folder. Then:

  - the dump_path holds 4 run folders (<session>/<device>/<model>/<model_id>), and each of them
    compares equal (threshold 0, no deviating op, no warning) to exactly one of 4 reference runs
    made one after the other with seeds 0..3, the 4 matches being the 4 seeds: no tree holds
    another process's files;
  - `openge compare` on the whole dump_path warns (one line) that it holds several runs;
  - --outputs holds output_0.pb and output_0.npy with the same values, equal to one reference's
    output (a set published whole, never a .pb of one process beside a .npy of another);
  - the profiling folder holds one PROF_ folder per process, each with its own op_summary;
  - no temporary (*.tmp.*) is left anywhere.

Usage: check_concurrent_processes.py --openge BIN --model M.onnx --work DIR [--rounds N]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

PROCESSES = 4
FAILURES = []


def check(condition, message):
    if not condition:
        print("FAIL " + message)
        FAILURES.append(message)
    return condition


def run_args(openge, model, seed, dump_path, outputs, profile_out):
    args = [openge, "run", "--model", model, "--seed", str(seed), "--threads", "1",
            "--option", "dump_config.enable_dump=True", "--option", "dump_config.dump_path=" + dump_path,
            "--outputs", outputs]
    if profile_out:
        args += ["--profile", "--profile-options", '{"output":"%s","task_trace":"on","training_trace":"on"}' % profile_out]
    return args


def run_folders(dump_path):
    """The folders holding iteration folders: one per run (model id)."""
    runs = set()
    for f in glob.glob(os.path.join(dump_path, "**", "*"), recursive=True):
        if os.path.isfile(f) and f.count(".") >= 4 and not f.endswith(".json"):
            runs.add(os.path.dirname(os.path.dirname(f)))
    return sorted(runs)


def compare(openge, a, b):
    r = subprocess.run([openge, "compare", a, b, "--threshold", "0"], capture_output=True, text=True, timeout=120)
    return r


def same_run(openge, ref, tree):
    r = compare(openge, ref, tree)
    return r.returncode == 0 and "no op exceeds the threshold" in r.stdout and "only in A, 0 only in B" in r.stdout \
        and "warning" not in r.stderr


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.chdir(args.work)
    refs, ref_outputs = [], []
    for seed in range(PROCESSES):
        d, o = os.path.join(args.work, "ref_dump_%d" % seed), os.path.join(args.work, "ref_out_%d" % seed)
        os.makedirs(d)
        r = subprocess.run(run_args(args.openge, args.model, seed, d, o, None), capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("reference run failed: " + r.stderr)
        runs = run_folders(d)
        if not check(len(runs) == 1, "reference %d: one run folder, got %s" % (seed, runs)):
            sys.exit(1)
        refs.append(runs[0])
        ref_outputs.append(np.load(os.path.join(o, "output_0.npy")))
    collided = 0
    for rnd in range(args.rounds):
        base = os.path.join(args.work, "round_%d" % rnd)
        dump_path, outputs, profile_out = (os.path.join(base, n) for n in ("dump", "outputs", "profile"))
        for d in (dump_path, profile_out):
            os.makedirs(d)
        children = [subprocess.Popen(run_args(args.openge, args.model, seed, dump_path, outputs, profile_out),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                    for seed in range(PROCESSES)]
        for seed, c in enumerate(children):
            _, err = c.communicate(timeout=300)
            check(c.returncode == 0, "round %d seed %d: exit %d: %s" % (rnd, seed, c.returncode, err))
        sessions = os.listdir(dump_path)
        collided += len(sessions) < PROCESSES or any("_" in s for s in sessions)
        trees = run_folders(dump_path)
        check(len(trees) == PROCESSES, "round %d: %d run folders under the dump_path (want %d): %s"
              % (rnd, len(trees), PROCESSES, trees))
        matched = []
        for tree in trees:
            seeds = [s for s in range(PROCESSES) if same_run(args.openge, refs[s], tree)]
            check(len(seeds) == 1, "round %d: %s matches references %s (want exactly one)" % (rnd, tree, seeds))
            matched += seeds
        check(sorted(matched) == list(range(PROCESSES)), "round %d: trees match seeds %s" % (rnd, sorted(matched)))
        whole = compare(args.openge, refs[0], dump_path)
        warnings = [line for line in whole.stderr.splitlines() if "warning" in line]
        check(len(warnings) == 1 and "holds the dumps of %d runs" % PROCESSES in warnings[0],
              "round %d: compare on the whole dump_path warns once about %d runs: %r" % (rnd, PROCESSES, whole.stderr))
        pb, npy = read_pb(os.path.join(outputs, "output_0.pb")), np.load(os.path.join(outputs, "output_0.npy"))
        check(np.array_equal(pb, npy), "round %d: output_0.pb and output_0.npy come from different processes" % rnd)
        check(any(np.array_equal(npy, ref) for ref in ref_outputs), "round %d: output_0.npy is no run's output" % rnd)
        profs = glob.glob(os.path.join(profile_out, "PROF_*"))
        check(len(profs) == PROCESSES, "round %d: %d PROF_ folders (want %d)" % (rnd, len(profs), PROCESSES))
        for p in profs:
            check(len(glob.glob(os.path.join(p, "mindstudio_profiler_output", "op_summary_*.csv"))) == 1,
                  "round %d: %s has one op_summary" % (rnd, p))
        left = [f for f in glob.glob(os.path.join(base, "**", "*"), recursive=True) if ".tmp" in os.path.basename(f)]
        check(not left, "round %d: temporaries left: %s" % (rnd, left[:5]))
    print("%d rounds of %d concurrent processes; %d rounds had processes starting their dumps in the same second"
          % (args.rounds, PROCESSES, collided))
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
