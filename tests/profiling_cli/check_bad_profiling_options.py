#!/usr/bin/python3
"""Malformed profiling options are refused cleanly (PROF-1, PROF-2; issue acceptance "bad input"):
for each bad PROFILING_OPTIONS (bad JSON, not an object, an unknown key, bad values, a bad
aic_metrics, an output folder that is missing or cannot be written), `openge run` started
  - with PROFILING_MODE=true + PROFILING_OPTIONS=<json>, and
  - with --profile --profile-options <json>
must
  - exit non-zero, not from a signal, without "terminate called" / sanitizer reports,
  - say what is wrong in one short message on stderr that names the problem (the key, "JSON",
    the path) and exactly one E10001 line when it uses that format,
  - print no run results on stdout,
  - leave nothing behind under the work dir (no PROF_* folder, no hidden .PROF_*.tmp folder, no
    other new file): the work dir is listed before and after each run.
The valid options, in the same work dir, must create exactly one PROF_* folder each way (so the
checks above can fail).

Usage: check_bad_profiling_options.py --openge BIN --work DIR [--model M.onnx]
(default model: the CLI's bundled demo model)
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys

CRASH_MARKERS = ("terminate called", "Segmentation fault", "core dumped", "AddressSanitizer",
                 "UndefinedBehaviorSanitizer", "runtime error:")
MAX_STDERR_LINES = 4  # "one clear message": a header line, the message, maybe a hint
RESULT_MARKERS = ("output '", "run time:", "profiling data:")
FOLDER_RE = re.compile(r"^PROF_\d{6}_\d{17}_\w+$")


def listing(root):
    """Every path under root (relative), folders marked with a trailing /."""
    out = set()
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        for n in dirs:
            out.add(os.path.normpath(os.path.join(rel, n)) + "/")
        for n in files:
            out.add(os.path.normpath(os.path.join(rel, n)))
    return out


def cases(work):
    """(name, options JSON text, words of which stderr must contain at least one[, most E10001
    lines: 1 unless the case holds two problems])."""
    out = os.path.join(work, "out")
    regular = os.path.join(work, "a_regular_file")
    good = {"output": out, "task_trace": "on", "training_trace": "on"}

    def with_(**kv):
        d = dict(good)
        d.update(kv)
        return json.dumps(d)

    return [
        ("bad JSON (truncated)", '{"output":"%s","task_trace":' % out, ["JSON"]),
        ("bad JSON (single quotes)", "{'output':'%s'}" % out, ["JSON"]),
        ("not a JSON object", json.dumps([out]), ["JSON", "object"]),
        ("unknown key", with_(task_trace_level="l1"), ["task_trace_level"]),
        ("unknown key, near miss", with_(trainig_trace="on"), ["trainig_trace"]),
        ("bad value task_trace", with_(task_trace="maybe"), ["task_trace"]),
        ("bad value training_trace", with_(training_trace="yes"), ["training_trace"]),
        ("bad value storage_limit (no unit, below 200 MB)", with_(storage_limit="12"), ["storage_limit"]),
        ("bad value storage_limit (not a number)", with_(storage_limit="lotsMB"), ["storage_limit"]),
        ("bad value host_sys_usage_freq (out of range)", with_(host_sys_usage_freq="51"), ["host_sys_usage_freq"]),
        ("bad value type (bool)", with_(msproftx=True), ["msproftx"]),
        ("bad aic_metrics name", with_(aic_metrics="PipeUtilisation"), ["aic_metrics"]),
        ("bad aic_metrics Custom register", with_(aic_metrics="Custom:0x6F"), ["aic_metrics"]),
        ("output folder missing", with_(output=os.path.join(work, "no_such_folder")),
         [os.path.join(work, "no_such_folder")]),
        ("output under a regular file", with_(output=os.path.join(regular, "out")), [os.path.join(regular, "out")]),
        ("output is a regular file", with_(output=regular), [regular]),
        ("output not writable (/proc)", with_(output="/proc"), ["/proc"]),
        ("output empty", with_(output=""), ["output"]),
        # No "output": --profile would pick ./profiling_data, PROFILING_OPTIONS has no folder at all
        # (a second, legitimate problem, PROF-4); either way a typo must not leave a folder behind.
        ("unknown key, no output", json.dumps({"task_trace": "l1", "training_trace": "on", "aicpu_mode": "on"}),
         ["aicpu_mode"], 2),
    ]


def run(openge, model, work, options, via_env, timeout):
    env = dict(os.environ)
    for k in ("PROFILING_MODE", "PROFILING_OPTIONS", "ASCEND_WORK_PATH"):
        env.pop(k, None)
    env.setdefault("OMP_NUM_THREADS", "1")
    cmd = [openge, "run"] + (["--model", model] if model else [])
    if via_env:
        env["PROFILING_MODE"] = "true"
        env["PROFILING_OPTIONS"] = options
    else:
        cmd += ["--profile", "--profile-options", options]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=work, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def describe_rc(rc):
    if rc is None:
        return "hung (timeout)"
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit {rc}"


def judge_bad(rc, out, err, words, new_paths, most_e_lines):
    """The list of what went wrong (empty when OpenGE refused cleanly)."""
    wrong = []
    if rc is None or rc < 0 or rc >= 128:
        wrong.append(f"crashed or hung: {describe_rc(rc)}")
    elif rc == 0:
        wrong.append("exit status 0: the bad options were accepted")
    for m in CRASH_MARKERS:
        if m in err or m in out:
            wrong.append(f"output contains '{m}'")
    lines = [l for l in err.splitlines() if l.strip()]
    if not lines:
        wrong.append("nothing on stderr")
    elif len(lines) > MAX_STDERR_LINES:
        wrong.append(f"{len(lines)} lines on stderr, expected one short message (at most {MAX_STDERR_LINES})")
    e_lines = [l for l in lines if re.match(r"^\s*E\d{5}\b", l)]
    if len(e_lines) > most_e_lines:
        wrong.append(f"{len(e_lines)} E10001-style messages, expected at most {most_e_lines} (one per problem)")
    if not any(w.lower() in err.lower() for w in words):
        wrong.append(f"stderr does not name the problem (none of {words})")
    for m in RESULT_MARKERS:
        if m in out:
            wrong.append(f"stdout shows run results ('{m}') although the options were refused")
            break
    if new_paths:
        wrong.append(f"left behind under the work dir: {sorted(new_paths)[:5]}")
    return wrong


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openge", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--model", default="", help="model to run (default: the CLI's bundled demo model)")
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args()
    work = os.path.abspath(args.work)
    model = os.path.abspath(args.model) if args.model else ""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "out"))
    with open(os.path.join(work, "a_regular_file"), "w") as f:
        f.write("not a folder\n")

    failures = []
    n_runs = 0
    for via_env in (True, False):
        way = "PROFILING_MODE=true + PROFILING_OPTIONS" if via_env else "--profile --profile-options"
        for name, options, words, *most in cases(work):
            before = listing(work)
            rc, out, err = run(args.openge, model, work, options, via_env, args.timeout)
            n_runs += 1
            new_paths = listing(work) - before
            # Clean up whatever a faulty run left so the next case starts from the same state.
            for p in sorted(new_paths, key=len):
                full = os.path.join(work, p.rstrip("/"))
                if os.path.isdir(full):
                    shutil.rmtree(full, ignore_errors=True)
                elif os.path.exists(full):
                    os.remove(full)
            wrong = judge_bad(rc, out, err, words, new_paths, most[0] if most else 1)
            first = next((l for l in err.splitlines() if l.strip()), "")
            status = "ok  " if not wrong else "FAIL"
            print(f"{status} [{way}] {name}: {describe_rc(rc)}: {first[:150]}")
            if wrong:
                failures.append((way, name, options, wrong, err))

        # The valid options, same work dir: exactly one PROF_* folder, exit 0.
        good = json.dumps({"output": os.path.join(work, "out"), "task_trace": "on", "training_trace": "on"})
        before = listing(work)
        rc, out, err = run(args.openge, model, work, good, via_env, args.timeout)
        n_runs += 1
        new_top = {p for p in listing(work) - before if p.count("/") == 2 and p.startswith("out/")}
        folders = [p for p in new_top if FOLDER_RE.match(p[len("out/"):-1])]
        wrong = []
        if rc != 0:
            wrong.append(f"valid options: {describe_rc(rc)}; stderr: {err.strip()[-500:]}")
        if len(folders) != 1 or len(new_top) != 1:
            wrong.append(f"valid options: expected exactly one new PROF_* folder in out/, got {sorted(new_top)}")
        print(f"{'ok  ' if not wrong else 'FAIL'} [{way}] valid options: {describe_rc(rc)}, new folders {sorted(new_top)}")
        if wrong:
            failures.append((way, "valid options", good, wrong, err))
        shutil.rmtree(os.path.join(work, "out"), ignore_errors=True)
        os.makedirs(os.path.join(work, "out"))

    if failures:
        print(f"\nFAIL: {len(failures)} of {n_runs} runs misbehaved:", file=sys.stderr)
        for way, name, options, wrong, err in failures:
            print(f"- [{way}] {name}\n  options: {options}", file=sys.stderr)
            for w in wrong:
                print(f"  * {w}", file=sys.stderr)
            if err.strip():
                print("  stderr: " + err.strip().replace("\n", "\n          ")[:1500], file=sys.stderr)
        return 1
    print(f"OK: {n_runs} runs, every bad option refused with one message and nothing left behind")
    return 0


if __name__ == "__main__":
    sys.exit(main())
