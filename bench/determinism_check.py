#!/usr/bin/python3
"""deterministic=1 on real models: N process runs at each thread count, every output's bytes hashed;
the check passes when all runs at all thread counts give one hash (OPT-deterministic).

Usage: /usr/bin/python3 bench/determinism_check.py --models-dir DIR [--models resnet50 bert_float]
           [--runs 20] [--threads 1 2] [--option deterministic=1] [--openge build/openge]
Models are NAME.onnx + NAME.input.npy in --models-dir (exported beforehand, not committed).
Prints one JSON line per model: the distinct hashes per thread count and whether they all agree.
Exit status 1 when a model gives more than one distinct output."""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def output_hash(openge, model, inp, threads, options):
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [openge, "run", "--model", model, "--input", "input=" + inp, "--outputs", tmp, "--threads", str(threads)]
        for o in options:
            cmd += ["--option", o]
        subprocess.run(cmd, check=True, capture_output=True)
        h = hashlib.sha256()
        names = sorted(n for n in os.listdir(tmp) if n.endswith(".pb"))
        if not names:
            raise RuntimeError("openge run wrote no output_<i>.pb in " + tmp)
        for name in names:
            with open(os.path.join(tmp, name), "rb") as f:
                h.update(f.read())
        return h.hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--models-dir", required=True)
    ap.add_argument("--models", nargs="+", default=["resnet50", "bert_float"])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--option", action="append", default=None, help="NAME=VALUE (default deterministic=1)")
    args = ap.parse_args()
    options = args.option if args.option is not None else ["deterministic=1"]
    failed = False
    for name in args.models:
        model = os.path.join(args.models_dir, name + ".onnx")
        inp = os.path.join(args.models_dir, name + ".input.npy")
        per_threads = {t: set() for t in args.threads}
        # Interleaved (1, 2, 1, 2 ...) so that a drift of the machine affects both alike.
        for _ in range(args.runs):
            for t in args.threads:
                per_threads[t].add(output_hash(args.openge, model, inp, t, options))
        distinct = set().union(*per_threads.values())
        failed |= len(distinct) != 1
        print(json.dumps({"model": name, "options": options, "runs_per_thread_count": args.runs,
                          "hashes": {str(t): sorted(h) for t, h in per_threads.items()},
                          "identical": len(distinct) == 1}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
