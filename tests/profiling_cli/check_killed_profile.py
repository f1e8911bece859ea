#!/usr/bin/python3
"""A profiling run killed with SIGKILL keeps every iteration it completed (docs/PROFILING.md,
"Writing and overhead"), and `openge profile-report` reads them:

  - `openge run --profile --iterations 1000000` on the demo model is killed with SIGKILL once
    at least 5 iterations' step_trace files exist (nothing in the process runs after SIGKILL);
    the newest iteration on disk ended less than 0.25 s before the kill, half a second after
    the first one appeared (written as it ended, not in a later batch);
  - every op_summary_<device>_<model>_<iteration>.csv left is whole (header and one row per
    task, same rows in each), iterations 1..k without a gap, and at most one iteration beyond k
    has some of its files (the one being written when the kill came);
  - `openge profile-report` on the folder exits 0, and every operator it prints was counted
    once per completed iteration (count == k).

Usage: check_killed_profile.py --openge BIN --model M.onnx --work DIR
"""
import argparse
import csv
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    out = os.path.join(args.work, "out")
    os.makedirs(out)
    child = subprocess.Popen([args.openge, "run", "--model", args.model, "--threads", "1", "--iterations", "1000000",
                              "--profile", "--profile-options", '{"output":"%s","task_trace":"on","training_trace":"on"}' % out],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    exported = None
    first_file_at = None
    while time.time() < deadline:
        found = glob.glob(os.path.join(out, "PROF_*", "mindstudio_profiler_output"))
        written = len(glob.glob(os.path.join(found[0], "step_trace_*.csv"))) if found else 0
        if written and first_file_at is None:
            first_file_at = time.time()
        # Half a second of writing: a batching writer falls ever further behind its iterations.
        if written >= 5 and time.time() - first_file_at >= 0.5:
            exported = found[0]
            break
        if child.poll() is not None:
            break
        time.sleep(0.01)
    killed_at_us = time.time() * 1e6
    child.send_signal(signal.SIGKILL)
    child.wait()
    problems = []
    if exported is None:
        print("FAIL the profiled run never wrote 5 iterations")
        return 1
    if child.returncode != -signal.SIGKILL:
        problems.append("the run was not killed by SIGKILL (exit %s)" % child.returncode)

    def iterations(stem):
        its = []
        for path in glob.glob(os.path.join(exported, stem + "_*.csv")):
            m = re.fullmatch(stem + r"_\d+_\d+_(\d+)\.csv", os.path.basename(path))
            if m:
                its.append(int(m.group(1)))
        return sorted(its)

    summaries = iterations("op_summary")
    k = len(summaries)
    if summaries != list(range(1, k + 1)):
        problems.append("op_summary iterations have gaps: %s" % summaries)
    if k < 4:
        problems.append("only %d whole iterations kept after 5 were seen" % k)
    started = iterations("step_trace")
    if started and started[-1] > k + 1:
        problems.append("iteration %d has files but op_summary stops at %d" % (started[-1], k))
    # Streamed, not batched: the newest iteration on disk ended just before the kill (a batching
    # profiler is still writing iterations that ended seconds earlier; one that streams lags by
    # one iteration and its writes, milliseconds).
    if k:
        path = glob.glob(os.path.join(exported, "step_trace_*_%d.csv" % k))
        with open(path[0], newline="") as f:
            table = list(csv.reader(f))
        end_us = float(table[1][table[0].index("Iteration End(us)")])
        if killed_at_us - end_us > 0.25e6:
            problems.append("iteration %d, the newest on disk, ended %.1f s before the kill: iterations were not "
                            "written as they ended" % (k, (killed_at_us - end_us) / 1e6))
    rows = set()
    for it in summaries:
        path = glob.glob(os.path.join(exported, "op_summary_*_%d.csv" % it))[0]
        with open(path, newline="") as f:
            table = list(csv.reader(f))
        if len(table) < 2 or "Op Name" not in table[0]:
            problems.append("%s is not a whole op_summary" % path)
        rows.add(len(table))
    if len(rows) > 1:
        problems.append("op_summary files have different row counts %s: one is partial" % sorted(rows))

    report = subprocess.run([args.openge, "profile-report", os.path.dirname(exported)], capture_output=True, text=True,
                            timeout=300)
    if report.returncode != 0:
        problems.append("profile-report failed: " + report.stderr.strip())
    counts = []
    for line in report.stdout.splitlines():
        cells = line.split()
        if len(cells) >= 7 and cells[0].isdigit():
            counts.append(int(cells[-5]))  # count, median, min, iteration 1, share
    if not counts:
        problems.append("profile-report printed no operator")
    elif any(c != k for c in counts):
        problems.append("profile-report counted %s per operator, not the %d completed iterations" % (sorted(set(counts)), k))
    for p in problems:
        print("FAIL " + p)
    print("killed after %d completed iterations; profile-report read them: %s" % (k, "no" if problems else "yes"))
    if k:
        print("the newest iteration on disk ended %.3f s before the kill" % ((killed_at_us - end_us) / 1e6))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
