#!/usr/bin/env python3
"""A model trained by OpenGE runs in ONNX Runtime: the digits MLP and CNN (tests/training/
make_digits.py) trained for a few epochs by openge.Trainer, saved, and run by ONNX Runtime 1.30
(onnxruntime-node, ../shared/bench/ort_run.js) on the test samples; prints the largest difference
from the Trainer's own forward (evaluate).

    PYTHONPATH=build/python /usr/bin/python3 bench/trained_model_in_ort.py --work /tmp/ort_check \\
        --ort-script ../shared/bench/ort_run.js --node-path ~/.cache/openge-peers/node_modules
"""
import argparse
import os
import subprocess
import sys

import numpy as np

import openge

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("--ort-script", required=True)
    parser.add_argument("--node-path", required=True)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    data = os.path.join(args.work, "digits")
    if not os.path.exists(os.path.join(data, "cnn.onnx")):
        subprocess.run([sys.executable, os.path.join(HERE, "..", "tests", "training", "make_digits.py"), data], check=True)
    for model, suffix in [("mlp", ""), ("cnn", "_cnn")]:
        load = lambda split: {n: np.load(os.path.join(data, split + suffix, n + ".npy")) for n in ["image", "labels"]}
        train, test = load("train"), load("test")
        trainer = openge.Trainer(os.path.join(data, model + ".onnx"), loss="cross_entropy", optimizer="momentum", lr=0.05,
                                 threads=1)
        trainer.fit(train, epochs=args.epochs)
        saved = os.path.join(args.work, model + "_trained.onnx")
        trainer.save(saved)
        x = os.path.join(args.work, model + "_x.npy")
        np.save(x, test["image"])
        (ours,) = trainer.evaluate({"image": test["image"]})
        ort_out = os.path.join(args.work, model + "_ort.npy")
        subprocess.run(["node", args.ort_script, saved, x, "--threads", "1", "--runs", "1", "--warmup", "0", "--save",
                        ort_out], env=dict(os.environ, NODE_PATH=args.node_path), check=True, stdout=subprocess.DEVNULL)
        theirs = np.load(ort_out)
        accuracy = float((theirs.argmax(1) == test["labels"]).mean())
        print(f"{model}: max |OpenGE - ONNX Runtime| = {np.abs(ours - theirs).max():.2e} (largest logit "
              f"{np.abs(theirs).max():.1f}); ONNX Runtime test accuracy {100 * accuracy:.2f} %")


if __name__ == "__main__":
    main()
