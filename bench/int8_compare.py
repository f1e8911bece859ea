#!/usr/bin/python3
"""An int8 QDQ model against its float32 original, on OpenGE and on ONNX Runtime, in one run:

  latency: medians of `openge bench` and of ONNX Runtime's harness for the four (runtime, model)
           pairs, interleaved round by round (fp32 OpenGE, int8 OpenGE, fp32 ORT, int8 ORT, …),
           at each thread count; the ratios are medians of the per-round ratios;
  top-1:   agreement of the argmax on --top1-inputs seeded inputs (standard normal draws from
           numpy.random.default_rng(--top1-seed + i)), run in batches of --batch (batch-N copies
           of both models in a temporary folder): OpenGE int8 vs ONNX Runtime int8 on the same
           file, int8 vs fp32 on each runtime, and OpenGE fp32 vs ONNX Runtime fp32; also the
           centred top-1 (argmax of the logits minus their mean over the inputs), which stays
           informative when random weights make one class win for every input.

Usage: /usr/bin/python3 bench/int8_compare.py --fp32 M.onnx --int8 M_int8.onnx --input M.input.npy \
           --peers ORT_DIR --ort-script ORT_HARNESS [--threads 1 2] [--rounds 4] [--runs 30]
(or OPENGE_ORT_PEERS / OPENGE_ORT_SCRIPT; see bench_common.py). Prints Markdown for bench/RESULTS.md.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx

from bench_common import ROOT, add_common_args, node_env, parse_args, run_json


def with_batch(src, dst, batch):
    """A copy of a batch-1 model whose input and output have batch `batch`."""
    m = onnx.load(src)
    for v in list(m.graph.input) + list(m.graph.output):
        v.type.tensor_type.shape.dim[0].dim_value = batch
    del m.graph.value_info[:]
    onnx.save(m, dst)


def openge_outputs(openge, model, inp, tmp):
    out = os.path.join(tmp, "openge_out")
    subprocess.run([openge, "run", "--model", model, "--input", "input=" + inp, "--outputs", out], check=True,
                   capture_output=True)
    return np.load(os.path.join(out, "output_0.npy"))


def ort_outputs(args, env, model, inp, tmp):
    save = os.path.join(tmp, "ort_out.npy")
    subprocess.run(["node", args.ort_script, model, inp, "--threads", "1", "--runs", "1", "--warmup", "0", "--save", save],
                   check=True, capture_output=True, env=env)
    return np.load(save)


def top1(args, env):
    shape = list(np.load(args.input).shape)
    logits = {k: [] for k in ("openge_fp32", "openge_int8", "ort_fp32", "ort_int8")}
    with tempfile.TemporaryDirectory() as tmp:
        models = {}
        for kind, path in (("fp32", args.fp32), ("int8", args.int8)):
            models[kind] = os.path.join(tmp, f"{kind}_b{args.batch}.onnx")
            with_batch(path, models[kind], args.batch)
        for start in range(0, args.top1_inputs, args.batch):
            xs = [np.random.default_rng(args.top1_seed + i).standard_normal(shape[1:]).astype(np.float32)
                  for i in range(start, start + args.batch)]
            inp = os.path.join(tmp, "batch.npy")
            np.save(inp, np.stack(xs))
            for kind in ("fp32", "int8"):
                logits["openge_" + kind].append(openge_outputs(args.openge, models[kind], inp, tmp))
                logits["ort_" + kind].append(ort_outputs(args, env, models[kind], inp, tmp))
            print(f"top-1: {start + args.batch} of {args.top1_inputs} inputs", file=sys.stderr, flush=True)
    logits = {k: np.concatenate(v)[:args.top1_inputs] for k, v in logits.items()}
    if args.save_logits:
        np.savez(args.save_logits, **logits)
    top = {k: v.argmax(axis=1) for k, v in logits.items()}
    # A model with random weights predicts nearly the same class for every input; the argmax of
    # the logits minus their mean over the inputs (each runtime and model its own mean) ranks the
    # input-dependent part, whose classes vary, so agreement on it is informative.
    centred = {k: (v - v.mean(axis=0)).argmax(axis=1) for k, v in logits.items()}
    pairs = [("openge_int8", "ort_int8"), ("openge_int8", "openge_fp32"), ("ort_int8", "ort_fp32"),
             ("openge_fp32", "ort_fp32")]
    rows = []
    for a, b in pairs:
        scale = float(np.abs(logits[b]).max())
        rows.append((a, b, int((top[a] == top[b]).sum()), int((centred[a] == centred[b]).sum()),
                     float(np.abs(logits[a] - logits[b]).max() / scale)))
    distinct = {k: (len(set(top[k].tolist())), len(set(centred[k].tolist()))) for k in top}
    return rows, distinct


def latency(args, env):
    rows = []
    for threads in args.threads:
        med = {k: [] for k in ("openge_fp32", "openge_int8", "ort_fp32", "ort_int8")}
        for _ in range(args.rounds):
            for kind, model in (("fp32", args.fp32), ("int8", args.int8)):
                a = run_json([args.openge, "bench", "--model", model, "--input", "input=" + args.input, "--threads",
                              str(threads), "--warmup", str(args.warmup), "--runs", str(args.runs), "--json"])
                med["openge_" + kind].append(a["median_ms"])
            for kind, model in (("fp32", args.fp32), ("int8", args.int8)):
                b = run_json(["node", args.ort_script, model, args.input, "--threads", str(threads), "--warmup",
                              str(args.warmup), "--runs", str(args.runs)], env)
                med["ort_" + kind].append(b["median"])
        ratio = lambda a, b: statistics.median(x / y for x, y in zip(med[a], med[b]))
        row = {k: statistics.median(v) for k, v in med.items()}
        row.update(threads=threads, og_int8_vs_fp32=ratio("openge_int8", "openge_fp32"),
                   ort_int8_vs_fp32=ratio("ort_int8", "ort_fp32"), int8_og_vs_ort=ratio("openge_int8", "ort_int8"))
        rows.append(row)
        print(f"t={threads}: {row}", file=sys.stderr, flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser()
    add_common_args(ap)
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--fp32", required=True)
    ap.add_argument("--int8", required=True)
    ap.add_argument("--input", required=True, help="the .npy input for latency (batch 1)")
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--top1-inputs", type=int, default=100)
    ap.add_argument("--top1-seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--save-logits", help="write every runtime's logits to this .npz")
    ap.add_argument("--skip-top1", action="store_true")
    args = parse_args(ap)
    env = node_env(args.peers)
    if not args.skip_latency:
        rows = latency(args, env)
        print("| threads | OpenGE fp32 ms | OpenGE int8 ms | ORT 1.30 fp32 ms | ORT 1.30 int8 ms | OpenGE int8/fp32 | "
              "ORT int8/fp32 | int8 OpenGE/ORT |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['threads']} | {r['openge_fp32']:.2f} | {r['openge_int8']:.2f} | {r['ort_fp32']:.2f} | "
                  f"{r['ort_int8']:.2f} | {r['og_int8_vs_fp32']:.2f} | {r['ort_int8_vs_fp32']:.2f} | {r['int8_og_vs_ort']:.2f} |")
    if not args.skip_top1:
        rows, distinct = top1(args, env)
        print()
        n = args.top1_inputs
        print(f"| {n} seeded inputs | top-1 agree | centred top-1 agree | max logit difference (rel. to max abs) |")
        print("|---|---|---|---|")
        for a, b, agree, agree_c, diff in rows:
            print(f"| {a} vs {b} | {agree}/{n} | {agree_c}/{n} | {diff:.1e} |")
        print()
        print("distinct classes (top-1, centred top-1): " + ", ".join(f"{k} {v[0]}, {v[1]}" for k, v in distinct.items()))


if __name__ == "__main__":
    main()
