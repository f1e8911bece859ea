#!/usr/bin/python3
"""`openge compare`'s HTML page in headless Chromium, end to end through the CLI:
dumps the bundled demo model once in float32 and once under allow_mix_precision, compares them
with --output FILE.csv, and checks that the page was written beside the CSV and renders its plot,
its table and the marker of the first op over the threshold (check_report_in_chromium.py --kind
compare). Bad dump folders keep their one clear error and leave no CSV or page behind.

Usage: run_compare_check.py --openge PATH --work DIR --screenshot OUT.png [--chromium PATH]
DIR is emptied first; the dumps and the page stay there for a look after a failure.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_report_in_chromium as checker  # noqa: E402

TIMEOUT_S = 120


def openge(binary, *args):
    return subprocess.run([binary, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=TIMEOUT_S)


def dump_demo(binary, root, *options):
    os.makedirs(root)
    flags = ["run", "--threads", "1", "--option", "dump_config.enable_dump=True",
             "--option", "dump_config.dump_path=" + root]
    for o in options:
        flags += ["--option", o]
    r = openge(binary, *flags)
    if r.returncode != 0:
        raise RuntimeError(f"openge {' '.join(flags)} exited with {r.returncode}:\n{r.stdout}{r.stderr}")


def bad_folder_problems(binary, work):
    """Each bad call: non-zero exit, one error line naming the problem, no CSV, no page."""
    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    fp32 = os.path.join(work, "fp32")
    cases = [
        ("an empty folder", [empty, fp32], "no dump files or golden .npy files under " + empty),
        ("a missing folder", [os.path.join(work, "missing"), fp32], "is not a folder"),
        ("an output folder that does not exist", [fp32, fp32, "--output", os.path.join(work, "no", "c.csv")],
         "cannot create"),
    ]
    problems = []
    for name, args, expected in cases:
        out = os.path.join(work, "bad.csv")
        r = openge(binary, "compare", *args, *([] if "--output" in args else ["--output", out]))
        errors = [line for line in r.stderr.splitlines() if line.strip()]
        left = [p for p in (out, os.path.join(work, "bad.html"), os.path.join(work, "no")) if os.path.exists(p)]
        if r.returncode != 1 or len(errors) != 1 or expected not in errors[0] or left:
            problems.append(f"{name}: exit {r.returncode}, stderr {r.stderr.strip()!r}, left behind {left} "
                            f"(expected exit 1, one line with {expected!r}, nothing written)")
        else:
            print(f"  {name}: {errors[0]}")
    return problems


def main():
    args = checker.scenario_args(__doc__.split("\n")[0])
    work = args.work
    try:
        dump_demo(args.openge, os.path.join(work, "fp32"))
        dump_demo(args.openge, os.path.join(work, "mixed"), "precision_mode=allow_mix_precision")
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"ERROR: {e}", file=sys.stderr)
        return checker.CHECK_BROKEN
    csv_path = os.path.join(work, "compare.csv")
    r = openge(args.openge, "compare", os.path.join(work, "fp32"), os.path.join(work, "mixed"),
               "--threshold", "1e-4", "--output", csv_path)
    page = os.path.join(work, "compare.html")
    if r.returncode != 0 or not os.path.isfile(csv_path) or not os.path.isfile(page):
        print(f"FAIL: openge compare exited with {r.returncode} and wrote "
              f"{[p for p in (csv_path, page) if os.path.isfile(p)]}:\n{r.stdout}{r.stderr}", file=sys.stderr)
        return checker.PAGE_BAD
    if "HTML page: " + page not in r.stdout or "first op over the threshold" not in r.stdout:
        print(f"FAIL: openge compare does not name the page and the first deviating op:\n{r.stdout}",
              file=sys.stderr)
        return checker.PAGE_BAD
    with open(page, encoding="utf-8") as f:
        if "id=verdict class=bad" not in f.read():
            print("FAIL: float32 against float16 at threshold 1e-4 should name a first deviating op", file=sys.stderr)
            return checker.PAGE_BAD
    status = checker.run_check(page, screenshot=args.screenshot, chromium=args.chromium, kind="compare")
    problems = bad_folder_problems(args.openge, work)
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    return status if status != checker.PAGE_OK else (checker.PAGE_BAD if problems else checker.PAGE_OK)


if __name__ == "__main__":
    sys.exit(main())
