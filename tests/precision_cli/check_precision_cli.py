#!/usr/bin/python3
"""Precision modes through the CLI, end to end.

  - must_keep_origin_dtype gives the same output bytes as no precision option (OPT-precision_mode-9);
  - allow_fp32_to_fp16, allow_mix_precision and allow_mix_precision_bf16 change ResNet-50's output
    and keep it within cosine similarity 0.999 of float32;
  - a model built to overflow float16 at a known node gives inf under force_fp16 and a finite
    result under must_keep_origin_dtype (OPT-precision_mode-3);
  - explain-precision --json reports every node with its dtype and rule, and the cube ops lowered.

Usage: check_precision_cli.py --openge BUILD/openge --resnet50 M.onnx --work DIR
"""
import argparse
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


def run(openge, model, out_dir, options, extra=()):
    cmd = [openge, "run", "--model", model, "--outputs", out_dir]
    for opt in options:
        cmd += ["--option", opt]
    cmd += list(extra)
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise SystemExit("command failed: %s\n%s%s" % (" ".join(cmd), result.stdout, result.stderr))
    return np.load(os.path.join(out_dir, "output_0.npy"))


def cosine(a, b):
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def overflow_model(path):
    # y = x * 300 * 300 / 300 / 300: exactly x in float32; in float16 the product overflows at node
    # 'overflow_here' wherever |x| * 90000 rounds above 65504 (every constant is exact in float16).
    c = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.float32), name)
    nodes = [
        helper.make_node("Mul", ["x", "k300"], ["a"], name="scale_up"),
        helper.make_node("Mul", ["a", "k300"], ["b"], name="overflow_here"),
        helper.make_node("Div", ["b", "k300"], ["c"], name="scale_down"),
        helper.make_node("Div", ["c", "k300"], ["y"], name="scale_down_again"),
    ]
    graph = helper.make_graph(nodes, "fp16_overflow",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
                              [c("k300", 300.0)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--resnet50", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    w = lambda *p: os.path.join(args.work, *p)

    # OPT-precision_mode-9: keeping the model's dtypes changes nothing, byte for byte.
    plain = subprocess.run([args.openge, "run", "--outputs", w("demo_plain")], capture_output=True, text=True)
    check(plain.returncode == 0, "demo model runs without precision options")
    kept = subprocess.run([args.openge, "run", "--outputs", w("demo_kept"), "--option",
                           "precision_mode=must_keep_origin_dtype"], capture_output=True, text=True)
    check(kept.returncode == 0, "demo model runs with must_keep_origin_dtype")
    with open(w("demo_plain", "output_0.npy"), "rb") as f1, open(w("demo_kept", "output_0.npy"), "rb") as f2:
        check(f1.read() == f2.read(), "OPT-precision_mode-9: must_keep_origin_dtype output bytes == no option")

    # Lowered modes on ResNet-50: different outputs, cosine >= 0.999 against float32.
    fp32 = run(args.openge, args.resnet50, w("r50_fp32"), [])
    for mode in ["allow_fp32_to_fp16", "allow_mix_precision", "allow_mix_precision_bf16"]:
        y = run(args.openge, args.resnet50, w("r50_" + mode), ["precision_mode=" + mode])
        cos = cosine(fp32, y)
        check(not np.array_equal(fp32, y), "%s changes ResNet-50's output" % mode)
        check(cos >= 0.999, "%s: cosine similarity to float32 %.6f >= 0.999" % (mode, cos))

    # OPT-precision_mode-3: float16 overflows where the NPU's would.
    overflow_model(w("overflow.onnx"))
    np.save(w("x.npy"), np.array([1.0, -1.0, 0.5, 2.0], dtype=np.float32))
    y16 = run(args.openge, w("overflow.onnx"), w("ovf_fp16"), ["precision_mode=force_fp16", "graph_run_mode=0"],
              ["--input", "x=" + w("x.npy")])
    y32 = run(args.openge, w("overflow.onnx"), w("ovf_fp32"), ["precision_mode=must_keep_origin_dtype"],
              ["--input", "x=" + w("x.npy")])
    x = np.load(w("x.npy"))
    overflows = np.abs(x) * 90000 >= 65520  # rounds to inf in float16
    check(bool((np.isinf(y16) == overflows).all()) and np.allclose(y16[~overflows], x[~overflows]),
          "force_fp16: inf exactly where float16 overflows, the rest exact (%s)" % y16)
    check(bool(np.isfinite(y32).all()) and np.allclose(y32, [1.0, -1.0, 0.5, 2.0]),
          "must_keep_origin_dtype: the same model stays finite (%s)" % y32)

    # explain-precision: one row per node with its rule; the white-listed cube ops lowered.
    res = subprocess.run([args.openge, "explain-precision", "--json", "--option", "precision_mode=allow_mix_precision"],
                         capture_output=True, text=True)
    check(res.returncode == 0, "explain-precision --json runs")
    report = json.loads(res.stdout) if res.returncode == 0 else {"nodes": []}
    nodes = report["nodes"]
    check(len(nodes) > 0 and all(n["rule"] for n in nodes), "every node of the report has a rule")
    convs = [n for n in nodes if n["op_type"] in ("Conv", "FusedConv")]
    check(len(convs) > 0 and all(n["input_dtype"] == "float16" for n in convs),
          "allow_mix_precision: the white-listed convolutions compute in float16")

    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
