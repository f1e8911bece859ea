#!/usr/bin/python3
"""Profiles the bundled demo model with the openge CLI (3 iterations, AI CPU data, training trace
and runtime API records on), then loads the report.html it wrote in headless Chromium with
check_report_in_chromium.py and keeps a full-page screenshot.

Usage: run_report_check.py --openge PATH --work DIR --screenshot OUT.png [--chromium PATH]
DIR is emptied first; the collection (PROF_*/) stays there for a look after a failure.
"""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_report_in_chromium as checker  # noqa: E402

PROFILE_TIMEOUT_S = 120


def main():
    args = checker.scenario_args(__doc__.split("\n")[0])
    work = args.work
    options = {"output": work, "aicpu": "on", "training_trace": "on", "runtime_api": "on"}
    command = [args.openge, "run", "--profile", "--iterations", "3",
               "--profile-options", json.dumps(options)]
    try:
        run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             timeout=PROFILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print(f"ERROR: {' '.join(command)} did not finish in {PROFILE_TIMEOUT_S} s", file=sys.stderr)
        return checker.CHECK_BROKEN
    if run.returncode != 0:
        print(f"ERROR: {' '.join(command)} exited with {run.returncode}:\n"
              + run.stdout.decode("utf-8", "replace"), file=sys.stderr)
        return checker.CHECK_BROKEN

    reports = sorted(glob.glob(os.path.join(work, "PROF_*", "mindstudio_profiler_output", "report.html")))
    if len(reports) != 1:
        print(f"ERROR: expected one PROF_*/mindstudio_profiler_output/report.html under {work}, "
              f"found {len(reports)}: {reports}", file=sys.stderr)
        return checker.CHECK_BROKEN
    return checker.run_check(reports[0], screenshot=args.screenshot, chromium=args.chromium)


if __name__ == "__main__":
    sys.exit(main())
