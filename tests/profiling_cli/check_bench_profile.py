#!/usr/bin/python3
"""`openge bench --profile` records the timed runs only: with --warmup 3 --runs 4 the collection
holds iterations 4..7 (the warm-up, compile included, is counted but not recorded), the report's
header says so, and `profile-report` on the output folder finds the collection and reports the
same iterations.

Usage: check_bench_profile.py --openge BUILD/openge --work DIR
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

FAILURES = []


def check(condition, message, detail=""):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)
        if detail:
            print(detail)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openge", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work, openge = os.path.abspath(args.work), os.path.abspath(args.openge)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)  # runs write fusion_result.json into their working folder
    options = json.dumps({"output": work, "task_trace": "on", "training_trace": "on"})
    r = subprocess.run([openge, "bench", "--warmup", "3", "--runs", "4", "--threads", "1", "--profile",
                        "--profile-options", options], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit("openge bench failed:\n" + r.stdout + r.stderr)
    traces = glob.glob(os.path.join(work, "PROF_*", "mindstudio_profiler_output", "msprof_*.json"))
    iterations = sorted(int(re.search(r"_(\d+)\.json$", t).group(1)) for t in traces)
    check(iterations == [4, 5, 6, 7], "the collection holds the timed runs only, iterations 4..7: %s" % iterations)
    reports = glob.glob(os.path.join(work, "PROF_*", "mindstudio_profiler_output", "report.html"))
    html = open(reports[0]).read() if len(reports) == 1 else ""
    header = re.search(r"<td id=median-step>([^<]*)</td>", html)
    check(header is not None and "(iterations 4..7; the runs before were not recorded)" in header.group(1),
          "the report's header gives the recorded iterations and says the runs before them were left out",
          header.group(1) if header else html[:400])
    check("iteration 1 (compile and warm-up)" not in html, "no recorded run passes for iteration 1")
    r = subprocess.run([openge, "profile-report", work, "--output", os.path.join(work, "again.html")],
                       capture_output=True, text=True, timeout=300)
    again = open(os.path.join(work, "again.html")).read() if r.returncode == 0 else ""
    check(r.returncode == 0 and "(iterations 4..7; the runs before were not recorded)" in again,
          "profile-report finds the collection in the output folder and reports the same iterations",
          r.stdout + r.stderr)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
