#!/usr/bin/python3
"""The Data Dump acceptance on a real model (ResNet-50), through the CLI:

  1. round trip: every op dumped (dump_mode=all, one iteration) and converted to .npy; every
     input of every op is byte for byte the model input, an output of an earlier op or a weight
     of the compiled graph, and the last op's output is byte for byte what `openge run --outputs`
     returns (which is checked against the model's PyTorch output within float tolerance);
  2. stats mode: each row of the stats CSV of a second run equals NumPy's statistics of the
     converted tensor (check_dump_cli.py's rule: max/min exact, the rest to 1e-9 relative);
  3. `openge compare` of the float32 dump against an allow_mix_precision_bf16 dump names the first
     op whose error exceeds the threshold.

The unit suite checks the same on the bundled demo model (tests/dump, tests/dump_cli); the
models are not in the repository, so this is run by hand and its output kept in bench/RESULTS.md.

Usage: dump_acceptance.py --openge BUILD/openge --model resnet50.onnx --input resnet50.input.npy
       [--reference resnet50.torch_out.npy] --work DIR
"""
import argparse
import csv
import glob
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "dump_cli"))
from check_dump_cli import FAILURES, check, numpy_stats  # noqa: E402


def openge(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        raise SystemExit("openge %s failed:\n%s%s" % (" ".join(args), r.stdout, r.stderr))
    return r.stdout


def dumped_run(a, root, *options):
    os.makedirs(root)
    flags = ["run", "--model", a.model, "--input", "%s=%s" % (a.input_name, a.input), "--threads", "1",
             "--outputs", os.path.join(root, "out"), "--option", "dump_config.enable_dump=True",
             "--option", "dump_config.dump_path=" + os.path.join(root, "dump"), "--option", "dump_config.dump_mode=all"]
    os.makedirs(os.path.join(root, "dump"))
    for o in options:
        flags += ["--option", o]
    openge(a.openge, *flags)
    return os.path.join(root, "dump")


def npy_by_key(npy_root):
    """(task, 'input'|'output', slot) -> path of the converted tensor."""
    out = {}
    for path in glob.glob(os.path.join(npy_root, "**", "*.npy"), recursive=True):
        f = os.path.basename(path).split(".")
        out[(int(f[2]), f[5], int(f[6]))] = path
    return out


def round_trip(a, work):
    dump = dumped_run(a, os.path.join(work, "fp32"))
    npy_root = os.path.join(work, "fp32_npy")
    print(openge(a.openge, "dump", "convert", dump, "--to", "npy", "--output", npy_root).strip())
    tensors = {k: np.load(p) for k, p in npy_by_key(npy_root).items()}
    tasks = sorted({k[0] for k in tensors})
    x = np.load(a.input)
    earlier = {x.tobytes()}  # what an op may read: the model input, then each op's outputs
    from_outputs = from_input = weights = 0
    unexplained = []
    for t in tasks:
        for (task, kind, slot), v in sorted(tensors.items()):
            if task != t or kind != "input":
                continue
            if v.tobytes() in earlier:
                from_input += v.tobytes() == x.tobytes()
                from_outputs += v.tobytes() != x.tobytes()
            elif t > 0 and slot > 0:
                weights += 1  # a weight or bias of the compiled graph (not produced at run time)
            else:
                unexplained.append((t, slot))
        for (task, kind, slot), v in tensors.items():
            if task == t and kind == "output":
                earlier.add(v.tobytes())
    check(not unexplained and from_outputs > 50,
          "round trip: %d tasks; %d inputs byte-equal to an earlier op's output, %d to the model input, %d weights; "
          "unexplained %s" % (len(tasks), from_outputs, from_input, weights, unexplained[:5]))
    last = tensors[(tasks[-1], "output", 0)]
    y = np.load(os.path.join(work, "fp32", "out", "output_0.npy"))
    check(last.tobytes() == y.tobytes(), "round trip: the last op's converted output is byte for byte the run's output")
    if a.reference:
        ref = np.load(a.reference).reshape(y.shape)
        err = float(np.max(np.abs(y - ref)) / max(1e-12, float(np.max(np.abs(ref)))))
        check(err < 1e-4, "the run's output agrees with the reference (max abs error / max |ref| = %.2e)" % err)
    return dump, npy_root


def stats(a, work, npy_root):
    dump = dumped_run(a, os.path.join(work, "stats"), "dump_config.dump_data=stats")
    npys = npy_by_key(npy_root)
    rows, mismatches = 0, []
    for path in glob.glob(os.path.join(dump, "**", "*.csv"), recursive=True):
        task = int(os.path.basename(path).split(".")[2])
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                key = (task, row["Input/Output"].lower(), int(row["Index"]))
                if key not in npys:
                    mismatches.append("no .npy for %s" % (key,))
                    continue
                rows += 1
                for name, value in numpy_stats(np.load(npys[key])).items():
                    got = float(row[name])
                    exact = isinstance(value, int) or name in ("Max Value", "Min Value")
                    ok = (got == value if exact else np.isclose(got, value, rtol=1e-9, atol=0)) or (
                        np.isnan(got) and np.isnan(value))
                    if not ok:
                        mismatches.append("%s %s: csv %r, numpy %r" % (key, name, got, value))
    check(rows == len(npys) and not mismatches,
          "stats: %d CSV rows for %d converted tensors, all equal to NumPy's%s" %
          (rows, len(npys), (": " + "; ".join(mismatches[:5])) if mismatches else ""))


def compare(a, work, fp32_dump):
    bf16_dump = dumped_run(a, os.path.join(work, "bf16"), "precision_mode=allow_mix_precision_bf16")
    csv_path = os.path.join(work, "compare.csv")
    out = openge(a.openge, "compare", fp32_dump, bf16_dump, "--output", csv_path)
    print(out.strip())
    check("first" in out and os.path.exists(csv_path) and os.path.exists(csv_path[:-4] + ".html"),
          "compare fp32 vs allow_mix_precision_bf16 names the first deviating op and writes the CSV and the page")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--input-name", default="input")
    ap.add_argument("--reference")
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    fp32_dump, npy_root = round_trip(a, a.work)
    stats(a, a.work, npy_root)
    compare(a, a.work, fp32_dump)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
