#!/usr/bin/env python3
"""End-to-end training on real data: `openge train` learns the handwritten digits, and the model
it saves, run by `openge run` (a Session on the written ONNX file), classifies the held-out test
samples at the required accuracy. Also checks the loss curve files and that the loss fell."""
import argparse
import csv
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# model, data folders, required test accuracy, training flags
CASES = {
    "mlp": ("train", "test", 0.95, ["--optimizer", "momentum", "--lr", "0.05", "--epochs", "10"]),
    "cnn": ("train_cnn", "test_cnn", 0.97, ["--optimizer", "momentum", "--lr", "0.05", "--epochs", "8"]),
    "mlp_adam": ("train", "test", 0.95, ["--optimizer", "adam", "--lr", "0.003", "--epochs", "10"]),
    # bf16 mixed precision (page 002's allow_mix_precision_bf16 on the Ascend910B profile): the
    # cube ops and their gradients compute in bfloat16, parameters stay float32.
    "mlp_bf16": ("train", "test", 0.95, ["--optimizer", "momentum", "--lr", "0.05", "--epochs", "10", "--option",
                                         "precision_mode=allow_mix_precision_bf16", "--option", "soc_version=Ascend910B"]),
    "cnn_bf16": ("train_cnn", "test_cnn", 0.97, ["--optimizer", "momentum", "--lr", "0.05", "--epochs", "8", "--option",
                                                 "precision_mode=allow_mix_precision_bf16", "--option",
                                                 "soc_version=Ascend910B"]),
}


def run(cmd):
    print("$", " ".join(cmd), flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(done.stdout, flush=True)
    if done.returncode != 0:
        sys.exit(f"command failed with exit code {done.returncode}")
    return done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openge", required=True)
    parser.add_argument("--work", required=True, help="folder for data, models and results")
    parser.add_argument("--case", required=True, choices=sorted(CASES))
    parser.add_argument("--threads", default="2")
    args = parser.parse_args()
    data = os.path.join(args.work, "digits")
    if not os.path.exists(os.path.join(data, "cnn.onnx")):
        run([sys.executable, os.path.join(HERE, "make_digits.py"), data])
    train_dir, test_dir, required, flags = CASES[args.case]
    model = os.path.join(data, args.case.split("_")[0] + ".onnx")
    options = [f for i, f in enumerate(flags) if f == "--option" or (i > 0 and flags[i - 1] == "--option")]
    out = os.path.join(args.work, args.case)
    os.makedirs(out, exist_ok=True)
    saved = os.path.join(out, "trained.onnx")
    run([args.openge, "train", "--model", model, "--data", os.path.join(data, train_dir), "--eval-data",
         os.path.join(data, test_dir), "--loss", "cross_entropy", "--batch", "32", "--threads", args.threads,
         "--save", saved] + flags)

    with open(os.path.join(out, "trained.loss.csv")) as f:
        rows = list(csv.DictReader(f))
    losses = [float(r["loss"]) for r in rows]
    assert len(losses) > 100, f"expected one row per step, got {len(losses)}"
    first, last = np.mean(losses[:20]), np.mean(losses[-20:])
    assert last < 0.3 * first, f"the loss did not fall: first steps {first:.4f}, last steps {last:.4f}"
    html = open(os.path.join(out, "trained.loss.html")).read()
    assert "<polyline" in html and "accuracy" in html, "the HTML loss curve is incomplete"

    outputs = os.path.join(out, "outputs")
    run([args.openge, "run", "--model", saved, "--input", "image=" + os.path.join(data, test_dir, "image.npy"),
         "--outputs", outputs, "--threads", args.threads] + options)
    logits = np.load(os.path.join(outputs, "output_0.npy"))
    labels = np.load(os.path.join(data, test_dir, "labels.npy"))
    accuracy = float((logits.argmax(axis=1) == labels).mean())
    print(f"{args.case}: test accuracy of the saved model {100 * accuracy:.2f} % (required {100 * required:.0f} %)")
    assert accuracy >= required, f"test accuracy {accuracy:.4f} below {required}"


if __name__ == "__main__":
    main()
