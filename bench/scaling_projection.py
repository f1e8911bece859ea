#!/usr/bin/env python3
"""Projected data-parallel scaling of OpenGE beyond this machine: step time against rank count and
link bandwidth, for ResNet-50 and BERT-base, with hcom_parallel on and off.

Calibration (measured here): a profiled 2-rank `openge train` of ResNet-18 (bench/train_vs_pytorch.py's
model, gradients cut into buckets of several sizes) writes hccl_*.json; a least-squares fit of each
gradient all-reduce's duration against its bytes gives the per-message latency alpha and the
bandwidth of this machine's loopback (shared memory).

Model: a ring all-reduce of B bytes over N ranks takes 2(N-1)*alpha + 2(N-1)/N * B / bandwidth.
With hcom_parallel on, the gradients of the backward pass become ready evenly over it and are
all-reduced bucket by bucket (25 MB buckets) one after the other on the communication thread; with
it off, one all-reduce of every gradient follows the backward pass. A step is forward + backward +
the communication not hidden + the update (weak scaling: the per-rank batch stays fixed).

Per-rank compute is an input: --resnet50-ms / --bert-base-ms (forward + backward + update of one
rank's batch). Defaults are this machine's 1-thread ResNet-18 (batch 32, 64x64) and 2-layer BERT
(batch 8, sequence 128) steps scaled by the models' training FLOPs (ResNet-50 / ResNet-18 = 2.3x at
the same input; BERT-base / the 2-layer BERT of hidden 256 = about 50x at the same batch and
sequence: 12 layers of 768 against 2 of 256) — estimates, stated as such in the output.

Links: the measured loopback, and 10 / 25 / 100 Gb/s Ethernet at 90 % of the line rate with a
25 us message latency (assumptions, not measured here).

    /usr/bin/python3 bench/scaling_projection.py --openge build/openge --out bench/scaling
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

MODELS = {  # name: (parameters, default per-rank compute ms, where the default comes from)
    "ResNet-50": (25.6e6, None, "resnet50-ms"),
    "BERT-base": (110e6, None, "bert-base-ms"),
}
LINKS_GBPS = [10, 25, 100]
RANKS = [2, 8, 64, 512]
NETWORK_ALPHA_US = 25.0  # a TCP message's latency between hosts (assumption, not measured here)
BUCKET_BYTES = 25e6


def calibrate(args):
    """(alpha seconds, bandwidth bytes/s) of this machine's 2-rank all-reduce."""
    import train_vs_pytorch as tvp
    work = os.path.join(args.out, "calibration")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "data"))
    onnx_path = os.path.join(work, "resnet18.onnx")
    tvp.export("resnet18", onnx_path, 4, 0)
    x, y = tvp.batches("resnet18", 1, 8, 0)[0]
    np.save(os.path.join(work, "data", "image.npy"), x)
    np.save(os.path.join(work, "data", "labels.npy"), y)
    prof = os.path.join(work, "prof")
    os.makedirs(prof)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    options = json.dumps({"output": prof, "task_trace": "off", "hccl": "on"})
    subprocess.run(["mpirun", "--oversubscribe", "-np", "2", args.openge, "train", "--model", onnx_path, "--data",
                    os.path.join(work, "data"), "--batch", "8", "--epochs", "6", "--threads", "1", "--no-shuffle",
                    "--split-by-size", "2,3,5,10,20,60", "--option", "hcom_parallel=False", "--profile",
                    "--profile-options", options, "--curve", os.path.join(work, "loss")], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    # Each rank records an all-reduce from its own start, which includes waiting for the other
    # rank; the transfer itself runs from the later start to the earlier end (one steady clock on
    # one host, microseconds in ts).
    spans = {}
    for path in glob.glob(os.path.join(prof, "PROF_*", "mindstudio_profiler_output", "hccl_*.json")):
        for e in json.load(open(path)):
            if e.get("ph") == "X" and e["args"].get("bucket", -1) >= 0:
                key = (e["args"]["Iteration ID"], e["args"]["bucket"])
                spans.setdefault(key, []).append((float(e["ts"]), float(e["ts"]) + e["dur"], e["args"]["size(Byte)"]))
    points = []
    for key, both in spans.items():
        if len(both) == 2:
            start, end = max(b[0] for b in both), min(b[1] for b in both)
            points.append((both[0][2], max(end - start, 0.0) * 1e-6))
    b = np.array([p[0] for p in points], dtype=np.float64)
    t = np.array([p[1] for p in points], dtype=np.float64)
    # duration = alpha + bytes / bandwidth (2 ranks: a ring all-reduce moves each byte once each way)
    slope, alpha = np.polyfit(b, t, 1)
    return max(alpha, 1e-6), 1.0 / slope, len(points)


def allreduce_s(nbytes, ranks, alpha, bandwidth):
    return 2 * (ranks - 1) * alpha + 2 * (ranks - 1) / ranks * nbytes / bandwidth


def step_s(compute_s, nbytes, ranks, alpha, bandwidth, overlap):
    forward, backward, update = 0.3 * compute_s, 0.65 * compute_s, 0.05 * compute_s
    if ranks == 1:
        return compute_s
    if not overlap:
        return compute_s + allreduce_s(nbytes, ranks, alpha, bandwidth)
    buckets = max(1, int(np.ceil(nbytes / BUCKET_BYTES)))
    free = 0.0
    for k in range(1, buckets + 1):
        ready = forward + backward * k / buckets
        free = max(ready, free) + allreduce_s(nbytes / buckets, ranks, alpha, bandwidth)
    return max(forward + backward, free) + update


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--openge", default="build/openge")
    ap.add_argument("--out", default="bench/scaling")
    ap.add_argument("--resnet18-ms", type=float, default=270.0,
                    help="1-thread ResNet-18 step, batch 32, 64x64 (this machine: bench/ddp_vs_openge.py)")
    ap.add_argument("--bert2-ms", type=float, default=88.0, help="1-thread 2-layer BERT step, batch 8 (this machine)")
    ap.add_argument("--resnet50-ms", type=float, default=None)
    ap.add_argument("--bert-base-ms", type=float, default=None)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    alpha, bandwidth, n = calibrate(args)
    print(f"calibration: {n} gradient all-reduces of a 2-rank ResNet-18 run on this machine's loopback: "
          f"alpha {alpha * 1e6:.0f} us, bandwidth {bandwidth / 1e9:.2f} GB/s")
    compute = {"ResNet-50": (args.resnet50_ms or args.resnet18_ms * 2.3) / 1000,
               "BERT-base": (args.bert_base_ms or args.bert2_ms * 50) / 1000}
    rows = []
    for model, (params, _, _) in MODELS.items():
        nbytes = params * 4
        for gbps in ["loopback"] + LINKS_GBPS:
            bw = bandwidth if gbps == "loopback" else 0.9 * gbps * 1e9 / 8
            a = alpha if gbps == "loopback" else max(alpha, NETWORK_ALPHA_US * 1e-6)
            for overlap in (True, False):
                base = step_s(compute[model], nbytes, 1, a, bw, overlap)
                cells = []
                for ranks in RANKS:
                    s = step_s(compute[model], nbytes, ranks, a, bw, overlap)
                    cells.append(f"{s * 1000:.0f} ms ({100 * base / s:.0f} %)")
                rows.append((model, gbps, "on" if overlap else "off", cells))
    header = "| model | link | hcom_parallel | " + " | ".join(f"{r} ranks" for r in RANKS) + " |"
    lines = [header, "|" + "---|" * (3 + len(RANKS))]
    for model, gbps, on, cells in rows:
        link = "loopback (measured)" if gbps == "loopback" else f"{gbps} Gb/s"
        lines.append(f"| {model} | {link} | {on} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    print(f"per-rank compute: ResNet-50 {compute['ResNet-50'] * 1000:.0f} ms, BERT-base {compute['BERT-base'] * 1000:.0f} ms "
          f"(estimates unless given); step time (scaling efficiency = one rank's step / N ranks' step)")
    print(table)
    open(os.path.join(args.out, "projection.md"), "w").write(table + "\n")


if __name__ == "__main__":
    main()
