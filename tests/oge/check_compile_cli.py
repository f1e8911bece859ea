#!/usr/bin/python3
"""openge compile and openge run --model M.oge on the demo model, through the CLI."""
import argparse
import os
import shutil
import subprocess
import sys


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    a.openge, a.model, a.work = (os.path.abspath(x) for x in (a.openge, a.model, a.work))
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    failures = []

    def check(cond, what, proc=None):
        if not cond:
            failures.append(what + ("" if proc is None else f"\n  stdout: {proc.stdout}\n  stderr: {proc.stderr}"))

    oge = os.path.join(a.work, "demo.oge")
    p = run([a.openge, "compile", "--model", a.model, "--output", oge, "--threads", "1",
             "--option", "precision_mode=allow_fp32_to_fp16"], a.work)
    check(p.returncode == 0 and os.path.isfile(oge), "compile failed", p)
    check("option precision_mode = allow_fp32_to_fp16" in p.stdout, "compile does not list the recorded option", p)
    for kind, model in (("onnx", a.model), ("oge", oge)):
        extra = ["--option", "precision_mode=allow_fp32_to_fp16"] if kind == "onnx" else []
        p = run([a.openge, "run", "--model", model, "--threads", "1", "--outputs", os.path.join(a.work, kind)] + extra,
                a.work)
        check(p.returncode == 0, f"run of the {kind} failed", p)
    for name in sorted(os.listdir(os.path.join(a.work, "onnx"))):
        with open(os.path.join(a.work, "onnx", name), "rb") as x, open(os.path.join(a.work, "oge", name), "rb") as y:
            check(x.read() == y.read(), f"{name}: the .oge's output differs from the .onnx's")

    p = run([a.openge, "run", "--model", oge, "--option", "precision_mode=allow_mix_precision"], a.work)
    check(p.returncode != 0 and "compiled with 'allow_fp32_to_fp16'" in p.stderr and "openge compile" in p.stderr,
          "a conflicting option is not refused with what differs", p)
    with open(oge, "rb") as f:
        data = f.read()
    cut = os.path.join(a.work, "cut.oge")
    with open(cut, "wb") as f:
        f.write(data[: len(data) // 2])
    p = run([a.openge, "run", "--model", cut], a.work)
    check(p.returncode == 1 and "truncated" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          "a truncated .oge is not one error line", p)
    missing = os.path.join(a.work, "no", "such", "x.oge")
    p = run([a.openge, "compile", "--model", a.model, "--output", missing], a.work)
    check(p.returncode != 0 and not os.path.exists(missing), "a failed compile left a file or exited 0", p)
    p = run([a.openge, "compile", "--model", a.model, "--output", oge, "--input-shape", "image:1,3,x"], a.work)
    check(p.returncode != 0 and "--input-shape" in p.stderr, "a bad --input-shape is not refused", p)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
