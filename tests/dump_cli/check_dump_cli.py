#!/usr/bin/python3
"""Data Dump and overflow detection through the CLI, end to end .

  - OPT-dump_config.dump_data-2: the stats CSV of every op of the demo model matches NumPy's
    statistics of the tensors a tensor dump of the same run converts to (`openge dump convert`);
  - OPT-dump_config.enable_dump_debug-1 / dump_debug_mode-2: a model built to overflow float16 at
    node 'overflow_here' (precision_mode=allow_mix_precision lowers its MatMul) is reported at that
    node only, dumped with its inputs, and the modify_mixlist written by the run makes the next
    run with it clean; under force_fp16 the same node is the one reported;
  - `openge dump convert` on a folder without dump files and with a bad one fails with one message.

Usage: check_dump_cli.py --openge BUILD/openge --work DIR
"""
import argparse
import csv
import glob
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FAILURES = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)


# Warnings printed to stdout (ENV-5/6): the overflow log lines are checked there.
LOG_ENV = dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="2", ASCEND_SLOG_PRINT_TO_STDOUT="1")


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=LOG_ENV)
    if result.returncode != 0:
        raise SystemExit("command failed: %s\n%s%s" % (" ".join(cmd), result.stdout, result.stderr))
    return result


def dump_files(root):
    """Data Dump files: {op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}."""
    out = []
    for path in glob.glob(os.path.join(root, "**", "*"), recursive=True):
        fields = os.path.basename(path).split(".")
        if os.path.isfile(path) and len(fields) == 5 and all(f.isdigit() for f in fields[2:]):
            out.append(path)
    return sorted(out)


def numpy_stats(x):
    x = x.astype(np.float64).ravel()
    finite = x[np.isfinite(x)]
    return {
        "Count": x.size,
        "Max Value": finite.max() if finite.size else np.nan,
        "Min Value": finite.min() if finite.size else np.nan,
        "Avg Value": finite.mean() if finite.size else np.nan,
        "L2Norm Value": np.sqrt(np.sum(finite * finite)) if finite.size else np.nan,
        "NaN Count": int(np.isnan(x).sum()),
        "Negative Inf Count": int(np.isneginf(x).sum()),
        "Positive Inf Count": int(np.isposinf(x).sum()),
    }


def check_stats(openge, work):
    tensor_root, stats_root = os.path.join(work, "tensor"), os.path.join(work, "stats")
    os.makedirs(tensor_root)
    os.makedirs(stats_root)
    common = ["--option", "dump_config.enable_dump=True", "--option", "dump_config.dump_mode=all", "--threads", "1"]
    run([openge, "run", "--option", "dump_config.dump_path=" + tensor_root] + common)
    run([openge, "run", "--option", "dump_config.dump_path=" + stats_root, "--option",
         "dump_config.dump_data=stats"] + common)
    npy_root = os.path.join(work, "npy")
    conv = run([openge, "dump", "convert", tensor_root, "--to", "npy", "--output", npy_root])
    check("converted" in conv.stdout, "openge dump convert reports what it converted: " + conv.stdout.strip())
    # The op's identity in both runs: type, name and task id (the timestamps differ).
    npys = {}
    for path in glob.glob(os.path.join(npy_root, "**", "*.npy"), recursive=True):
        f = os.path.basename(path).split(".")
        npys[(f[0], f[1], f[2], f[5], f[6])] = path  # op_type, op_name, task, input|output, slot
    rows = 0
    mismatches = []
    for path in glob.glob(os.path.join(stats_root, "**", "*.csv"), recursive=True):
        f = os.path.basename(path).split(".")
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                key = (f[0], f[1], f[2], row["Input/Output"].lower(), row["Index"])
                if key not in npys:
                    mismatches.append("no .npy for %s" % (key,))
                    continue
                x = np.load(npys[key])
                want = numpy_stats(x)
                rows += 1
                if row["Shape"] != ",".join(str(d) for d in x.shape):
                    mismatches.append("%s shape %s vs %s" % (key, row["Shape"], x.shape))
                for name, value in want.items():
                    got = float(row[name])
                    if isinstance(value, int) or name in ("Max Value", "Min Value"):
                        ok = got == value or (np.isnan(got) and np.isnan(value))
                    else:
                        ok = np.isclose(got, value, rtol=1e-9, atol=0) or (np.isnan(got) and np.isnan(value))
                    if not ok:
                        mismatches.append("%s %s: csv %r, numpy %r" % (key, name, got, value))
    check(rows == len(npys) and rows > 20,
          "OPT-dump_config.dump_data-2: one stats row per dumped tensor (%d rows, %d tensors)" % (rows, len(npys)))
    check(not mismatches, "stats CSV == NumPy on the converted tensors%s" % (": " + "; ".join(mismatches[:5]) if mismatches else ""))


def overflow_model(path):
    # y = relu(x) @ W / 1000 with W = 200 everywhere: for x = 100 each MatMul output is
    # 4 * 100 * 200 = 80000, above float16's 65504, so the MatMul 'overflow_here' overflows when it
    # computes in float16; 'pre' (100) and 'post' (which only receives the Inf) do not overflow
    # themselves. (A Div is not fused into the MatMul; an Add or a Relu would be.)
    w = numpy_helper.from_array(np.full((4, 4), 200.0, dtype=np.float32), "W")
    k = numpy_helper.from_array(np.array(1000.0, dtype=np.float32), "k")
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="pre"),
        helper.make_node("MatMul", ["r", "W"], ["m"], name="overflow_here"),
        helper.make_node("Div", ["m", "k"], ["y"], name="post"),
    ]
    graph = helper.make_graph(nodes, "fp16_overflow_at_matmul",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], [w, k])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def overflow_run(openge, work, name, model, x, options):
    root = os.path.join(work, name)
    os.makedirs(root)
    cmd = [openge, "run", "--model", model, "--input", "x=" + x, "--outputs", os.path.join(root, "out"),
           "--option", "dump_config.enable_dump_debug=True", "--option", "dump_config.dump_path=" + root]
    for opt in options:
        cmd += ["--option", opt]
    result = run(cmd)
    y = np.load(os.path.join(root, "out", "output_0.npy"))
    mixlists = glob.glob(os.path.join(root, "*", "modify_mixlist.json"))
    return result, dump_files(root), y, (mixlists[0] if mixlists else None)


def check_overflow(openge, work):
    model, x = os.path.join(work, "overflow.onnx"), os.path.join(work, "x.npy")
    overflow_model(model)
    np.save(x, np.full((1, 4), 100.0, dtype=np.float32))

    result, dumps, y, mixlist = overflow_run(openge, work, "mix", model, x, ["precision_mode=allow_mix_precision"])
    names = [os.path.basename(p).split(".")[1] for p in dumps]
    check(names == ["overflow_here"], "allow_mix_precision: only 'overflow_here' is dumped (%s)" % names)
    check(bool(np.isinf(y).all()), "the float16 MatMul really overflowed (y = %s)" % y)
    logged = [l for l in result.stdout.splitlines() if "first overflowing op" in l]
    check(len(logged) == 1 and "MatMul 'overflow_here'" in logged[0],
          "the first overflowing op of the iteration is logged: %s" % logged)
    if dumps:
        conv = os.path.join(work, "mix_npy")
        run([openge, "dump", "convert", os.path.dirname(dumps[0]), "--to", "npy", "--output", conv])
        kinds = sorted(os.path.basename(p).split(".")[5] for p in glob.glob(os.path.join(conv, "*.npy")))
        check(kinds == ["input", "input", "output"],
              "the overflowing op is dumped with its inputs (%s)" % kinds)
        ins = {os.path.basename(p).split(".")[6]: np.load(p) for p in glob.glob(os.path.join(conv, "*.input.*.npy"))}
        check("1" in ins and bool((ins["1"] == 200).all()), "its weight input is dumped as it is")
    check(mixlist is not None, "a modify_mixlist JSON is written")
    if mixlist:
        with open(mixlist) as fh:
            edits = json.load(fh)
        check(edits == {"black-list": {"to-add": ["MatMulV2"]}},
              "the mixlist black-lists the overflowing op type, and only it: %s" % edits)
        result2, dumps2, y2, mixlist2 = overflow_run(openge, work, "mix_fixed", model, x,
                                                    ["precision_mode=allow_mix_precision", "modify_mixlist=" + mixlist])
        check(not dumps2 and "overflowing" not in result2.stdout and mixlist2 is None,
              "with the generated mixlist the next run is clean (%d dumps)" % len(dumps2))
        check(bool(np.allclose(y2, 80.0)), "and computes 80 (%s)" % y2)

    # force_fp16: every op in float16; the culprit is still the MatMul alone.
    result, dumps, y, _ = overflow_run(openge, work, "fp16", model, x,
                                       ["precision_mode=force_fp16", "graph_run_mode=0"])
    names = [os.path.basename(p).split(".")[1] for p in dumps]
    check(names == ["overflow_here"], "force_fp16: only 'overflow_here' is reported (%s)" % names)

    # The float32 run of the same model is clean.
    result, dumps, y, mixlist = overflow_run(openge, work, "fp32", model, x, ["precision_mode=must_keep_origin_dtype"])
    check(not dumps and mixlist is None, "float32: no overflow is reported")

    # atomic_overflow checks only accumulating ops: the MatMul is one.
    result, dumps, y, _ = overflow_run(openge, work, "atomic", model, x,
                                       ["precision_mode=allow_mix_precision", "dump_config.dump_debug_mode=atomic_overflow"])
    names = [os.path.basename(p).split(".")[1] for p in dumps]
    check(names == ["overflow_here"], "atomic_overflow: the accumulating MatMul is reported (%s)" % names)


def check_bad_convert(openge, work):
    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    r = subprocess.run([openge, "dump", "convert", empty, "--to", "npy"], capture_output=True, text=True)
    check(r.returncode != 0 and "no dump files" in r.stderr, "an empty folder: one clear error (%s)" % r.stderr.strip())
    with open(os.path.join(empty, "Conv.c.0.0.1"), "wb") as fh:
        fh.write(b"\x05\x00\x00\x00")
    r = subprocess.run([openge, "dump", "convert", empty, "--to", "npy"], capture_output=True, text=True)
    check(r.returncode != 0 and "Conv.c.0.0.1" in r.stderr, "a bad dump file is named (%s)" % r.stderr.strip())
    r = subprocess.run([openge, "dump", "convert", empty, "--to", "csv"], capture_output=True, text=True)
    check(r.returncode == 2 and "npy" in r.stderr, "--to other than npy is refused (%s)" % r.stderr.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    check_stats(args.openge, args.work)
    check_overflow(args.openge, args.work)
    check_bad_convert(args.openge, args.work)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
