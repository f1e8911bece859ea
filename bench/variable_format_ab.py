#!/usr/bin/env python3
"""variable_format_optimize off against on: the same openge.Trainer run (bench/train_vs_pytorch.py's
worker: its model, batches and SGD with momentum) in alternating processes, ROUNDS rounds, each
reporting the median step time of steps 4..STEPS in CPU time (on a shared machine a one-thread
step's CPU time moves far less than its wall time) and its peak RSS.

    /usr/bin/python3 bench/variable_format_ab.py --model resnet18 --batch 32 --steps 12 --rounds 5 --work DIR
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import train_vs_pytorch  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(train_vs_pytorch.MODELS), default="resnet18")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--work", required=True, help="the exported model goes here")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    onnx = os.path.join(args.work, f"{args.model}.onnx")
    if not os.path.exists(onnx):
        train_vs_pytorch.export(args.model, onnx, args.batch, 0)
    results = {"off": [], "on": []}
    losses = {}
    for r in range(args.rounds):
        for name, value in [("off", "False"), ("on", "True")] if r % 2 == 0 else [("on", "True"), ("off", "False")]:
            cmd = [sys.executable, os.path.join(HERE, "train_vs_pytorch.py"), "--engine", "openge", "--onnx", onnx,
                   f"--model={args.model}", f"--steps={args.steps}", f"--batch={args.batch}",
                   f"--threads={args.threads}", "--clock=cpu", f"--option=variable_format_optimize={value}"]
            out = json.loads(subprocess.run(cmd, stdout=subprocess.PIPE, check=True, text=True).stdout)
            step = statistics.median(out["times"][3:]) * 1000
            results[name].append((step, out["peak_rss_mib"]))
            losses[name] = out["losses"]
            print(f"round {r + 1} {name}: {step:.1f} ms/step (CPU), peak RSS {out['peak_rss_mib']:.0f} MiB", flush=True)
    off = statistics.median(t for t, _ in results["off"])
    on = statistics.median(t for t, _ in results["on"])
    print(f"{args.model} batch {args.batch}, {args.threads} thread(s): median off {off:.1f} ms, on {on:.1f} ms, "
          f"on/off {on / off:.3f}; losses identical: {losses['off'] == losses['on']}")


if __name__ == "__main__":
    main()
