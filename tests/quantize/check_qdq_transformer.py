#!/usr/bin/python3
"""End to end on a real torch export: bench/export_bert.py makes a small BERT-style encoder (2
layers, hidden 64, 4 heads, sequence 16), bench/qdq_quantize_transformer.py quantizes it to int8
QDQ, and OpenGE must run every weight MatMul of it as QLinearMatMul on the AI Core engine
(fusion_result.json: RequantFusionPass applied once per weight MatMul; explain-precision: that
many QLinearMatMul nodes on AI_CORE and no float weight MatMul left), with the int8 output within
the quantization error of the float model's: cosine >= 0.999 on the exported input (measured
0.9999; a wrong scale or a mis-fused layer gives far less).

Usage: check_qdq_transformer.py --openge BINARY --work DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAYERS = 2


def run(cmd, cwd):
    # fusion_result.json goes to the working directory only without a work path.
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_WORK_PATH"}
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    try:
        import torch  # noqa: F401  (bench/export_bert.py exports through torch.onnx)
    except ImportError:
        print("NOT RUN: python3-torch is not installed (a bench-only package); the C++ test "
              "RequantTransformerBlock covers the fusion without it")
        sys.exit(77)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    w = args.work
    args.openge = os.path.abspath(args.openge)
    py = sys.executable
    run([py, os.path.join(ROOT, "bench", "export_bert.py"), "bert", "--layers", str(LAYERS), "--hidden", "64",
         "--heads", "4", "--seq", "16"], w)
    q = json.loads(run([py, os.path.join(ROOT, "bench", "qdq_quantize_transformer.py"), "bert.onnx", "bert_int8.onnx",
                        "--calib", "4"], w).strip().splitlines()[-1])
    weight_matmuls = 4 * LAYERS  # in-projection, output projection, FFN up, FFN down
    failures = []
    if q["weight_matmuls"] != weight_matmuls:
        failures.append(f"the quantizer found {q['weight_matmuls']} weight MatMuls, expected {weight_matmuls}")

    outs = {}
    for kind, model in (("fp32", "bert.onnx"), ("int8", "bert_int8.onnx")):
        run([args.openge, "run", "--model", model, "--input", "input=bert.input.npy", "--outputs", "out_" + kind], w)
        outs[kind] = np.load(os.path.join(w, "out_" + kind, "output_0.npy")).astype(np.float64).ravel()
    fusion = json.load(open(os.path.join(w, "fusion_result.json")))  # the last run's: the int8 model
    requant = next(iter(fusion.values()))["graph_fusion"].get("RequantFusionPass", {})
    if requant.get("effect_times") != str(weight_matmuls):
        failures.append(f"RequantFusionPass: {requant}, expected effect_times {weight_matmuls}")

    report = json.loads(run([args.openge, "explain-precision", "--model", "bert_int8.onnx", "--input",
                             "input=bert.input.npy", "--json"], w))
    qlinear = [n for n in report["nodes"] if n["op_type"] == "QLinearMatMul"]
    on_aicore = sum(n["engine"] == "AI_CORE" for n in qlinear)
    if len(qlinear) != weight_matmuls or on_aicore != weight_matmuls:
        failures.append(f"{len(qlinear)} QLinearMatMul ({on_aicore} on AI_CORE), expected {weight_matmuls} on AI_CORE")
    model = onnx.load(os.path.join(w, "bert_int8.onnx"))
    dq_weights = {n.output[0] for n in model.graph.node if n.op_type == "DequantizeLinear" and n.name.endswith("_weight_DQ")}
    if len(dq_weights) != weight_matmuls:
        failures.append(f"{len(dq_weights)} weight DequantizeLinear in the QDQ model, expected {weight_matmuls}")

    a, b = outs["int8"], outs["fp32"]
    cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    print(f"weight MatMuls {weight_matmuls}; RequantFusionPass {requant}; QLinearMatMul on AI_CORE {on_aicore}; "
          f"cosine int8 vs fp32 {cosine:.6f}; max abs {np.abs(a - b).max():.4f}")
    if not cosine >= 0.999:
        failures.append(f"cosine of the int8 output to the float output {cosine:.6f} < 0.999")
    if failures:
        sys.exit("FAILED:\n  " + "\n  ".join(failures))
    print("PASSED")


if __name__ == "__main__":
    main()
