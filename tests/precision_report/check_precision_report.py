#!/usr/bin/python3
"""The precision report beside the graph dumps.

With DUMP_GE_GRAPH on, a compile of the demo model under allow_mix_precision_bf16 writes
ge_onnx_<index>_graph_<id>_PrecisionReport.json into the graph-dump folder (DUMP_GRAPH_PATH here),
after the graph's Build dump: one entry per node of the model with the dtype the pass chose, and
no temporary file left. The demo model's Conv is a cube op on the white list (bfloat16); its
Softmax follows SoftmaxV2's precision_reduce flag in the shipped Ascend910B profile, read here.
Without DUMP_GE_GRAPH nothing is written.

Usage: check_precision_report.py --openge BUILD/openge --work DIR
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAILURES = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)


def run(openge, work, env_extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DUMP_")}
    env.update(env_extra)
    cmd = [openge, "run", "--option", "soc_version=Ascend910B", "--option",
           "precision_mode=allow_mix_precision_bf16"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=work, timeout=300)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    args.openge = os.path.abspath(args.openge)
    shutil.rmtree(args.work, ignore_errors=True)
    dumps = os.path.join(args.work, "dumps")
    os.makedirs(dumps)
    r = run(args.openge, args.work, {"DUMP_GE_GRAPH": "2", "DUMP_GRAPH_PATH": dumps})
    check(r.returncode == 0, "openge run with DUMP_GE_GRAPH=2: " + r.stderr.strip())
    reports = sorted(glob.glob(os.path.join(dumps, "ge_onnx_*_graph_*_PrecisionReport.json")))
    check(len(reports) == 1, "one precision report in the dump folder: %s" % reports)
    if reports:
        build = sorted(glob.glob(os.path.join(dumps, "ge_onnx_*_Build.onnx")))
        check(len(build) == 1 and os.path.basename(build[0]) < os.path.basename(reports[0]),
              "it follows the Build dump of the same graph: %s" % [os.path.basename(p) for p in build + reports])
        with open(reports[0]) as f:
            report = json.load(f)
        nodes = {n["node"]: n for n in report["nodes"]}
        model = onnx.load(os.path.join(ROOT, "models", "demo.onnx"))
        by_type = {}
        for n in report["nodes"]:
            by_type.setdefault(n["op_type"], set()).add(n["input_dtype"])
        print("dtypes by op type:", by_type)
        check(len(nodes) >= 1 and all(set(n) >= {"node", "op_type", "original_dtype", "input_dtype", "output_dtype",
                                                 "engine", "rule"} for n in report["nodes"]),
              "every entry names node, op type, original and chosen dtypes, engine and rule")
        conv = [n for n in report["nodes"] if n["op_type"] in ("Conv", "FusedConv")]
        check(conv and all(n["input_dtype"] == "bfloat16" for n in conv), "Conv computes in bfloat16 (white list)")
        # Softmax (SoftmaxV2): the shipped profile's precision_reduce flag says white (true) or black.
        with open(os.path.join(ROOT, "opp", "built-in", "op_impl", "ai_core", "tbe", "config", "ascend910b",
                               "aic-ascend910b-ops-info.json")) as f:
            white = json.load(f)["SoftmaxV2"]["precision_reduce"]["flag"] == "true"
        want = "bfloat16" if white else "float32"
        softmax = [n for n in report["nodes"] if n["op_type"] == "Softmax"]
        check(softmax and all(n["input_dtype"] == want for n in softmax),
              "Softmax computes in %s (SoftmaxV2 %s list in the profile)" % (want, "white" if white else "black"))
        check(len(softmax) == sum(1 for n in model.graph.node if n.op_type == "Softmax"),
              "the model's Softmax node is reported")
    leftovers = [p for p in os.listdir(dumps) if not (p.endswith(".onnx") or p.endswith(".pbtxt") or p.endswith(".json"))]
    check(not leftovers, "no temporary file left in the dump folder: %s" % leftovers)
    quiet = os.path.join(args.work, "quiet")
    os.makedirs(quiet)
    r = run(args.openge, quiet, {})
    check(r.returncode == 0 and not glob.glob(os.path.join(quiet, "**", "*PrecisionReport*"), recursive=True),
          "without DUMP_GE_GRAPH no report is written")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
