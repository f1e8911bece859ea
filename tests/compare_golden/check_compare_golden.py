#!/usr/bin/python3
"""`openge compare` against golden data from ONNX Runtime, end to end.

A small chain model (built here with onnx.helper) runs once in OpenGE with Data Dump on, under
precision_mode=allow_mix_precision_bf16 and under must_keep_origin_dtype, on the input ONNX Runtime
gets for the golden folder (make_golden_ort.py). Checks that compare:
  - names the first deviating op of the bf16 run by its model node name ('proj', the MatMul that
    bf16 moves; the ops before it stay float32) and the error of the output before it;
  - names the ops present on one side only (the precision pass's Casts in the dump; the model node
    that fusion merged into 'shift_in's op in the golden folder), and pairs the fused op with the
    model node whose output it computes ('shift_in', not 'scale_in');
  - finds no deviating op in the float32 run against the same golden data;
  - reads the run's `openge dump convert` output as it reads the dump;
  - warns that a dump of two iterations was compared by its first;
  - refuses a folder of .npy files none of which follows the golden names, with one message;
  - a run under precision_mode=force_fp32 says in one line that Cube ops take float16 inputs (as
    CANN does), and a must_keep_origin_dtype run says nothing of the kind.

Exit 77 (skipped) when onnxruntime-node is not installed at --node-path.

Usage: check_compare_golden.py --openge BUILD/openge --work DIR --node-path NODE_MODULES
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
FAILURES = []
THRESHOLD = "1e-3"


def check(condition, message, detail=""):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)
        if detail:
            print(detail)


def run(cmd, expect_ok=True):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if expect_ok and result.returncode != 0:
        raise SystemExit("command failed: %s\n%s%s" % (" ".join(cmd), result.stdout, result.stderr))
    return result


def make_model(path):
    """x -> Mul 'scale_in' -> Add 'shift_in' -> MatMul 'proj' -> Softmax 'probs' -> Mul 'scale_out':
    element-wise ops on the float32 input that fusion merges, then the Cube op where bf16 starts."""
    rng = np.random.default_rng(7)
    inits = [numpy_helper.from_array(a, n) for n, a in [
        ("c_scale", np.float32([1.5])), ("c_shift", np.float32([0.25])),
        ("w_proj", rng.uniform(-1, 1, (64, 64)).astype(np.float32)), ("c_out", np.float32([2.0]))]]
    nodes = [
        helper.make_node("Mul", ["x", "c_scale"], ["t_scaled"], name="scale_in"),
        helper.make_node("Add", ["t_scaled", "c_shift"], ["t_shifted"], name="shift_in"),
        helper.make_node("MatMul", ["t_shifted", "w_proj"], ["t_proj"], name="proj"),
        helper.make_node("Softmax", ["t_proj"], ["t_probs"], name="probs", axis=-1),
        helper.make_node("Mul", ["t_probs", "c_out"], ["y"], name="scale_out"),
    ]
    graph = helper.make_graph(nodes, "golden_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 64])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def dump_run(openge, model, x, dump_path, mode, iterations=1):
    os.makedirs(dump_path)
    run([openge, "run", "--model", model, "--input", "x=" + x, "--iterations", str(iterations), "--threads", "1",
         "--option", "precision_mode=" + mode, "--option", "dump_config.enable_dump=True", "--option",
         "dump_config.dump_mode=output", "--option", "dump_config.dump_path=" + dump_path])


def csv_rows(stdout):
    """The per-op CSV compare prints: its header line and the lines after it up to the summary."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Iteration,"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("A: "))
    return list(csv.DictReader(lines[start:end]))


def compare(openge, a, b, expect_ok=True):
    return run([openge, "compare", a, b, "--threshold", THRESHOLD], expect_ok)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openge", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--node-path", required=True)
    args = parser.parse_args()
    args.work, args.openge = os.path.abspath(args.work), os.path.abspath(args.openge)
    if not os.path.isdir(os.path.join(args.node_path, "onnxruntime-node")) or not shutil.which("node"):
        print("skipped: onnxruntime-node is not installed at " + args.node_path + " (or node is missing)")
        return 77
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.chdir(args.work)  # runs write fusion_result.json into their working folder
    model, x = os.path.join(args.work, "chain.onnx"), os.path.join(args.work, "x.npy")
    make_model(model)
    np.save(x, np.random.default_rng(3).uniform(-1, 1, (8, 64)).astype(np.float32))
    golden = os.path.join(args.work, "golden")
    run([sys.executable, os.path.join(HERE, "make_golden_ort.py"), "--model", model, "--input", "x=" + x, "--out",
         golden, "--node-path", args.node_path])
    names = sorted(os.listdir(golden))
    check(names == sorted(n + ".0.npy" for n in ["scale_in", "shift_in", "proj", "probs", "scale_out"]),
          "the golden folder holds one {node}.{index}.npy per node output: " + " ".join(names))

    bf16 = os.path.join(args.work, "dump_bf16")
    dump_run(args.openge, model, x, bf16, "allow_mix_precision_bf16")
    r = compare(args.openge, bf16, golden)
    out = r.stdout
    print(out)
    check("first op over the threshold 0.001: model node 'proj'" in out,
          "bf16 run: the first deviating op is named by its model node name, 'proj'", out)
    check("the output before it ('shift_in') had max rel error 0" in out,
          "bf16 run: the error of the output before it (shift_in's, float32) is given", out)
    fused = [row for row in csv_rows(out) if row["Op Type"] == "FusedElementwise"]
    check(len(fused) == 1 and fused[0]["Model Node"] == "shift_in" and float(fused[0]["Max Rel Error"]) < 1e-5,
          "the fused op is paired with the model node whose output it computes, shift_in, and agrees with it", out)
    only_a = [l for l in out.splitlines() if l.startswith("only in A: ")]
    only_b = [l for l in out.splitlines() if l.startswith("only in B: ")]
    check(any(l.startswith("only in A: Cast '") for l in only_a), "the precision pass's Cast is named as only in the dump",
          out)
    check(only_b == ["only in B: 'scale_in' output 0"],
          "the model node fused into shift_in's op is named as the only one in the golden folder alone", out)
    check("golden .npy folder" in out and "A: Data Dump" in out, "the folders' kinds are named", out)

    fp32 = os.path.join(args.work, "dump_fp32")
    dump_run(args.openge, model, x, fp32, "must_keep_origin_dtype")
    r = compare(args.openge, fp32, golden)
    check("no op exceeds the threshold" in r.stdout, "float32 run: no op deviates from ONNX Runtime", r.stdout)
    check("only in A: Cast" not in r.stdout, "float32 run: no Cast is inserted", r.stdout)

    converted = os.path.join(args.work, "converted_bf16")
    run([args.openge, "dump", "convert", bf16, "--to", "npy", "--output", converted])
    r = compare(args.openge, golden, converted)
    check("A: golden .npy folder, B: converted Data Dump (.npy)" in r.stdout, "dump convert's output is read as a dump",
          r.stdout)
    check("model node 'proj'" in r.stdout and "first op over the threshold" in r.stdout,
          "golden against the converted dump: the first deviating op is 'proj'", r.stdout)

    twice = os.path.join(args.work, "dump_twice")
    dump_run(args.openge, model, x, twice, "allow_mix_precision_bf16", iterations=2)
    r = compare(args.openge, twice, golden)
    check("holds 2 iterations; compared iteration 0 with the golden data" in r.stderr,
          "a dump of two iterations is compared by its first, with a warning", r.stderr)

    stray = os.path.join(args.work, "stray")
    os.makedirs(stray)
    np.save(os.path.join(stray, "some_tensor.npy"), np.zeros(3, np.float32))
    r = compare(args.openge, bf16, stray, expect_ok=False)
    errors = [l for l in r.stderr.splitlines() if "error" in l]
    check(r.returncode == 1 and len(errors) == 1 and "does not follow the golden names" in r.stderr,
          "a folder of .npy files without golden names is refused with one message", r.stderr)

    lines = {}
    for mode in ["force_fp32", "must_keep_origin_dtype"]:
        r = run([args.openge, "run", "--model", model, "--input", "x=" + x, "--threads", "1", "--option",
                 "precision_mode=" + mode], expect_ok=False)
        lines[mode] = [l for l in (r.stdout + r.stderr).splitlines() if "float16 inputs" in l]
    check(len(lines["force_fp32"]) == 1 and "Cube ops" in lines["force_fp32"][0] and
          "must_keep_origin_dtype" in lines["force_fp32"][0],
          "force_fp32: one line says Cube ops take float16 inputs and names must_keep_origin_dtype",
          "\n".join(lines["force_fp32"]))
    check(not lines["must_keep_origin_dtype"], "must_keep_origin_dtype: no such line")

    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
