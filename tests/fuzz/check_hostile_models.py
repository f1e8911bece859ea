#!/usr/bin/python3
"""Feeds the hostile models of make_hostile_models.py to `openge run` and checks that OpenGE
refuses each certainly-invalid one cleanly:
  - exit status non-zero (a "maybe" case may also exit 0),
  - no crash: no signal, no sanitizer report, no hang (timeout),
  - when it refuses: exactly one non-empty line of output, naming the model file.
The valid base models must run (exit 0), or the refusals would prove nothing.

Usage: check_hostile_models.py --openge PATH [--openge PATH2 ...] --work DIR [--jobs N]
Also runs against $OPENGE_SANITIZED_CLI when that names an executable (an ASan+UBSan build).
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SANITIZER_MARKERS = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "LeakSanitizer",
                     "runtime error:", "MemorySanitizer", "ThreadSanitizer")
ASAN_EXIT = 86
UBSAN_EXIT = 87


def sanitizer_env():
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    # A distinct exit code makes a sanitizer report impossible to mistake for a clean refusal.
    env["ASAN_OPTIONS"] = ":".join(filter(None, [
        os.environ.get("ASAN_OPTIONS", ""), f"exitcode={ASAN_EXIT}", "abort_on_error=0"]))
    env["UBSAN_OPTIONS"] = ":".join(filter(None, [
        os.environ.get("UBSAN_OPTIONS", ""), "halt_on_error=1", "print_stacktrace=1",
        f"exitcode={UBSAN_EXIT}"]))
    return env


def run_one(openge, model, inputs, timeout, env):
    """(returncode or None on timeout, combined output text)."""
    out_dir = tempfile.mkdtemp(prefix="openge_hostile_out_")
    try:
        proc = subprocess.run([openge, "run", "--model", model, "--inputs", inputs,
                               "--outputs", out_dir],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout, env=env)
        return proc.returncode, proc.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode("utf-8", "replace")
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def judge(case, rc, text):
    """None if OpenGE behaved, else what went wrong."""
    lines = [l for l in text.splitlines() if l.strip()]
    if rc is None:
        return "hung (timeout)"
    if rc < 0:
        return f"crashed with signal {-rc}"
    if any(m in text for m in SANITIZER_MARKERS) or rc in (ASAN_EXIT, UBSAN_EXIT):
        first = next((l for l in lines if any(m in l for m in SANITIZER_MARKERS)), "")
        return f"sanitizer report (exit {rc}): {first.strip()}"
    if rc == 0:
        if case["expect"] == "invalid":
            return "accepted an invalid model (exit 0)"
        return None
    if rc >= 128:
        return f"exit {rc} (looks like a crash)"
    if len(lines) != 1:
        shown = " | ".join(l.strip() for l in lines[:4])
        return f"printed {len(lines)} lines instead of one error line: {shown}"
    if os.path.basename(case["model"]) not in lines[0]:
        return f"error line does not name the file: {lines[0].strip()}"
    return None


def check_binary(openge, manifest, jobs, timeout):
    env = sanitizer_env()
    problems = []
    bases = manifest["bases"]
    for name, b in bases.items():
        rc, text = run_one(openge, b["model"], b["inputs"], timeout, env)
        if rc != 0:
            problems.append(f"base model '{name}' does not run (exit {rc}): {text.strip()[:300]}"
                            " - every refusal below proves nothing until it does")
    cases = manifest["cases"]
    verdicts = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_one, openge, c["model"], bases[c["base"]]["inputs"],
                               timeout, env): c for c in cases}
        for fut in concurrent.futures.as_completed(futures):
            c = futures[fut]
            rc, text = fut.result()
            verdicts[c["name"]] = (rc, judge(c, rc, text))
    refused = sum(1 for rc, _ in verdicts.values() if rc not in (0, None))
    for c in cases:
        rc, problem = verdicts[c["name"]]
        if problem:
            problems.append(f"{c['name']} ({c['why']}): {problem}")
    n_invalid = sum(c["expect"] == "invalid" for c in cases)
    print(f"{openge}: {len(cases)} hostile models ({n_invalid} certainly invalid), "
          f"{refused} refused, {len(problems)} problems")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openge", action="append", required=True, help="openge CLI (repeatable)")
    ap.add_argument("--work", required=True, help="where the hostile models are written")
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per model")
    args = ap.parse_args()

    binaries = list(args.openge)
    sanitized = os.environ.get("OPENGE_SANITIZED_CLI", "")
    if sanitized and sanitized not in binaries:
        binaries.append(sanitized)
    for b in binaries:
        if not os.access(b, os.X_OK):
            print(f"hostile models: openge CLI not found or not executable: {b}")
            return 1

    if os.path.exists(args.work):
        shutil.rmtree(args.work)
    subprocess.run([sys.executable, os.path.join(HERE, "make_hostile_models.py"), args.work],
                   check=True)
    with open(os.path.join(args.work, "manifest.json")) as f:
        manifest = json.load(f)

    all_problems = []
    for b in binaries:
        # Sanitized builds are several times slower.
        all_problems += [f"[{os.path.basename(os.path.dirname(b)) or b}] {p}"
                         for p in check_binary(b, manifest, args.jobs, args.timeout)]
    for p in all_problems:
        print("FAIL " + p)
    print(f"hostile models: {'OK' if not all_problems else f'{len(all_problems)} problems'}")
    return 0 if not all_problems else 1


if __name__ == "__main__":
    sys.exit(main())
