#!/usr/bin/python3
"""AOE operator tuning (aoe_config.aoe_mode=2) measured: per model, one tuning run into a fresh
work folder (its wall time and its record: operators measured, the model's time before and after
inside the tuning run), one compile that must take every tunable operator from the knowledge
base (the count is read from the engine's info log), then interleaved rounds of
untuned OpenGE (an empty work folder), tuned OpenGE (the knowledge base, no tuning) and ONNX
Runtime, each a median over --runs runs; ratios are taken pair by pair within a round and their
median reported. Prints a Markdown table for bench/RESULTS.md.

Usage: /usr/bin/python3 bench/aoe_tuning.py --models-dir DIR --peers ORT_DIR [--models NAME ...]
           [--threads 2] [--rounds 3] [--runs 10] [--aoe-mode 2|1]
--aoe-mode 1 tunes the graph's passes (subgraph tuning) instead of the operators: "measured" is then
the number of candidate compiles and "changed" the passes the winner runs without.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from bench_common import ROOT, node_env, run_json

HIT_LINE = re.compile(r"AOE knowledge base .*: (\d+) of (\d+) tunable operators hit")
SUBGRAPH_HIT_LINE = re.compile(r"AOE knowledge base .*: this graph's subgraph tuning entry hit \((\d+) passes off\)")


def openge_bench(args, model, inp, work, threads, runs, extra=(), env=None):
    cmd = [args.openge, "bench", "--model", model, "--input", "input=" + inp, "--threads", str(threads),
           "--warmup", "3" if runs > 1 else "0", "--runs", str(runs), "--json",
           "--option", "aoe_config.work_path=" + work, *extra]
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models-dir", required=True)
    ap.add_argument("--peers", default=os.environ.get("OPENGE_ORT_PEERS"))
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--models", nargs="+")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--aoe-mode", choices=["1", "2"], default="2")
    args = ap.parse_args()
    if not args.peers or not os.path.isdir(os.path.join(args.peers, "node_modules")):
        ap.error("give ONNX Runtime's folder: --peers DIR or OPENGE_ORT_PEERS=DIR (DIR/node_modules/onnxruntime-node)")
    env = node_env(args.peers)
    ort_script = os.path.join(ROOT, "bench", "ort_zoo.js")
    names = args.models or sorted(os.path.basename(f)[:-5] for f in glob.glob(os.path.join(args.models_dir, "*.onnx")))
    rows = []
    for name in names:
        model = os.path.join(args.models_dir, name + ".onnx")
        inp = os.path.join(args.models_dir, name + ".input.npy")
        with tempfile.TemporaryDirectory() as tmp:
            work, empty = os.path.join(tmp, "work"), os.path.join(tmp, "empty")
            os.makedirs(work)
            os.makedirs(empty)
            start = time.monotonic()
            openge_bench(args, model, inp, work, args.threads, 1, ["--option", "aoe_config.aoe_mode=" + args.aoe_mode])
            tuning_s = time.monotonic() - start
            kind = "opat" if args.aoe_mode == "2" else "sgat"
            record = json.load(open(glob.glob(os.path.join(work, f"aoe_result_{kind}_*.json"))[0]))
            report = next(iter(record.values()))
            basic = report[0]["basic"]
            if args.aoe_mode == "2":
                measured = report[1]["OPAT"]["knowledge_base"]["measured_operators"]
                changed = len(report[1]["OPAT"]["repo_modified_operators"])
            else:
                measured = len(report[1]["SGAT"]["candidates"])
                changed = "+".join(report[1]["SGAT"]["passes_off"]) or "none"
            # The next compile: hits counted by the engine (info log on stdout).
            log_env = dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="1", ASCEND_SLOG_PRINT_TO_STDOUT="1")
            out = openge_bench(args, model, inp, work, args.threads, 1, env=log_env).stdout
            if args.aoe_mode == "2":
                hit = HIT_LINE.search(out)
                hits = f"{hit.group(1)}/{hit.group(2)}" if hit else "none logged"
            else:
                hit = SUBGRAPH_HIT_LINE.search(out)
                hits = f"graph hit, {hit.group(1)} passes off" if hit else "none logged"
            untuned, tuned, ort = [], [], []
            for _ in range(args.rounds):
                untuned.append(json.loads(openge_bench(args, model, inp, empty, args.threads, args.runs)
                                          .stdout.strip().splitlines()[-1])["median_ms"])
                tuned.append(json.loads(openge_bench(args, model, inp, work, args.threads, args.runs)
                                        .stdout.strip().splitlines()[-1])["median_ms"])
                ort.append(run_json(["node", ort_script, model, inp, "--threads", str(args.threads), "--warmup", "3",
                                     "--runs", str(args.runs)], env)["median"])
        row = dict(name=name, tuning_s=tuning_s, measured=measured,
                   changed=changed, before=basic["model_baseline_performance(ms)"],
                   after=basic["model_result_performance(ms)"], hits=hits, untuned=statistics.median(untuned),
                   tuned=statistics.median(tuned), ort=statistics.median(ort),
                   tuned_vs_untuned=statistics.median(t / u for t, u in zip(tuned, untuned)),
                   untuned_vs_ort=statistics.median(u / o for u, o in zip(untuned, ort)),
                   tuned_vs_ort=statistics.median(t / o for t, o in zip(tuned, ort)))
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    print(f"| model | tuning s | ops measured / changed | in-run before → after ms | next compile hits | "
          f"untuned ms | tuned ms | ORT ms | tuned/untuned | untuned/ORT | tuned/ORT |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['name']} | {r['tuning_s']:.1f} | {r['measured']} / {r['changed']} | {r['before']:.2f} → "
              f"{r['after']:.2f} | {r['hits']} | {r['untuned']:.2f} | {r['tuned']:.2f} | {r['ort']:.2f} | "
              f"{r['tuned_vs_untuned']:.2f} | {r['untuned_vs_ort']:.2f} | {r['tuned_vs_ort']:.2f} |")


if __name__ == "__main__":
    main()
