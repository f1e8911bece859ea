#!/usr/bin/python3
"""Fused vs unfused latency, side by side with ONNX Runtime, interleaved.

Per model and round, one `openge bench` process per configuration, then ONNX Runtime:
  fused    the defaults (every fusion pass on; jit_compile=auto: fused vector ops compiled online)
  unfused  fusion_switch_file {"Switch": {"GraphFusion": {"ALL": "off"}, "UBFusion": {"ALL": "off"}}}
  ort      ONNX Runtime 1.30 CPU (onnxruntime-node, its default graph optimizations)
Prints a Markdown table: per configuration the median of the rounds' medians (and their min), and
fused / unfused and fused / ORT as medians of the per-round ratios.

  /usr/bin/python3 bench/fusion_latency.py --peers ORT_DIR --ort-script ORT_HARNESS \
      --models-dir MODELS --models resnet50 mobilenet_v2 bert_float --threads 1 --rounds 5 --runs 20
"""
import argparse
import json
import os
import statistics
import tempfile

from bench_common import ROOT, add_common_args, node_env, parse_args, run_json


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap)
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--models", nargs="+", default=["resnet50", "mobilenet_v2", "bert_float"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    args = parse_args(ap)
    env = node_env(args.peers)
    with tempfile.TemporaryDirectory() as tmp:
        off = os.path.join(tmp, "all_off.cfg")
        with open(off, "w") as f:
            json.dump({"Switch": {"GraphFusion": {"ALL": "off"}, "UBFusion": {"ALL": "off"}}}, f)
        print(f"threads {args.threads}, {args.rounds} rounds x {args.runs} runs (+{args.warmup} warm-up)\n")
        print("| model | fused median (min) ms | unfused median (min) ms | ORT median (min) ms | fused/unfused | fused/ORT |")
        print("|---|---|---|---|---|---|")
        for name in args.models:
            model = os.path.join(args.models_dir, name + ".onnx")
            inp = os.path.join(args.models_dir, name + ".input.npy")
            common = [args.openge, "bench", "--model", model, "--input", "input=" + inp, "--threads", str(args.threads),
                      "--warmup", str(args.warmup), "--runs", str(args.runs), "--json"]
            t = {"fused": [], "unfused": [], "ort": []}
            for _ in range(args.rounds):
                t["fused"].append(run_json(common)["median_ms"])
                t["unfused"].append(run_json(common + ["--option", "fusion_switch_file=" + off])["median_ms"])
                t["ort"].append(run_json(["node", args.ort_script, model, inp, "--threads", str(args.threads),
                                          "--warmup", str(args.warmup), "--runs", str(args.runs)], env=env)["median"])
            cell = lambda k: f"{statistics.median(t[k]):.2f} ({min(t[k]):.2f})"
            ratio = lambda a, b: statistics.median(x / y for x, y in zip(t[a], t[b]))
            print(f"| {name} | {cell('fused')} | {cell('unfused')} | {cell('ort')} | {ratio('fused', 'unfused'):.3f} "
                  f"| {ratio('fused', 'ort'):.3f} |", flush=True)


if __name__ == "__main__":
    main()
