#!/usr/bin/env python3
"""Data-parallel training step time: OpenGE over Open MPI against PyTorch 1.13's
DistributedDataParallel (gloo backend, OpenBLAS), the same model, initial weights, global batch and
data, SGD with momentum in fp32 (models and data of bench/train_vs_pytorch.py).

Configurations, each its own set of processes started by mpirun (ranks x threads):
  openge 1x2            one process, 2 threads (the baseline of the same cores)
  openge 2x1            2 ranks of 1 thread, HCCL's default gradient split: hcom_parallel on / off,
                        is_tailing_optimization on
  openge 2x1 tuned      the split aoe_mode 4 chose in a tuning run before (it measures candidate
                        splits over real steps and stores the fastest in the knowledge base of
                        OUT/aoe, which these runs read): hcom_parallel on / off, tailing on
  pytorch 1x2, ddp 2x1  PyTorch eager on one process, and DDP with gloo on 2 ranks (25 MB buckets)
Reported: the median step time of rank 0 after the first steps, and the last loss (the ranks'
mean), per configuration; ratios against DDP.

    /usr/bin/python3 bench/ddp_vs_openge.py --model resnet18 --steps 20 --batch 32 --out bench/ddp
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_vs_pytorch as tvp  # noqa: E402


def rank_and_size():
    return int(os.environ.get("OMPI_COMM_WORLD_RANK", "0")), int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))


def shard(x, rank, size):
    n = len(x)
    return x[n * rank // size:n * (rank + 1) // size]


def run_openge(args, rank, size):
    import openge
    options = {"hcom_parallel": args.hcom == "True", "is_tailing_optimization": args.tailing == "True"}
    if args.aoe:
        options["aoe_config.work_path"] = args.aoe
        if args.tune:
            options["aoe_config.aoe_mode"] = "4"
    split = [float(p) for p in args.split.split(",")] if args.split else []
    trainer = openge.Trainer(args.onnx, loss="cross_entropy", optimizer="momentum", lr=args.lr, momentum=0.9,
                             threads=args.threads, options=options, split_by_size=split)
    name = tvp.MODELS[args.model][3]
    losses, times = [], []
    for x, y in tvp.batches(args.model, args.steps, args.batch, args.seed):
        start = time.perf_counter()
        losses.append(trainer.step({name: shard(x, rank, size), "labels": shard(y, rank, size)}))
        times.append(time.perf_counter() - start)
    return losses, times


def run_pytorch(args, rank, size):
    import torch
    import torch.distributed as dist
    wrap = None
    if size > 1:
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % args.port, rank=rank, world_size=size)
        wrap = torch.nn.parallel.DistributedDataParallel
    return tvp.run_pytorch(args, wrap=wrap, select=lambda a: shard(a, rank, size))


def worker(args):
    rank, size = rank_and_size()
    losses, times = (run_openge if args.engine == "openge" else run_pytorch)(args, rank, size)
    if rank == 0:
        json.dump({"losses": losses, "times": times}, sys.stdout)


# label, engine, ranks, threads, hcom_parallel, is_tailing_optimization, split tuned by aoe_mode 4
CONFIGS = [
    ("openge 1x2", "openge", 1, 2, "True", "False", False),
    ("openge 2x1 hcom_parallel on", "openge", 2, 1, "True", "False", False),
    ("openge 2x1 hcom_parallel off", "openge", 2, 1, "False", "False", False),
    ("openge 2x1 hcom_parallel on, tailing on", "openge", 2, 1, "True", "True", False),
    ("openge 2x1 tuned split, hcom_parallel on", "openge", 2, 1, "True", "False", True),
    ("openge 2x1 tuned split, hcom_parallel off", "openge", 2, 1, "False", "False", True),
    ("openge 2x1 tuned split, hcom on, tailing on", "openge", 2, 1, "True", "True", True),
    ("pytorch 1x2", "pytorch", 1, 2, "", "", False),
    ("pytorch ddp 2x1 (gloo)", "pytorch", 2, 1, "", "", False),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=sorted(tvp.MODELS), default="resnet18")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=32, help="global batch")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split", default="", help="gradient split by size for OpenGE (default HCCL's)")
    ap.add_argument("--out", default="bench/ddp")
    ap.add_argument("--engine", help=argparse.SUPPRESS)
    ap.add_argument("--onnx", help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--hcom", default="True", help=argparse.SUPPRESS)
    ap.add_argument("--tailing", default="False", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, default=29511, help=argparse.SUPPRESS)
    ap.add_argument("--aoe", default="", help=argparse.SUPPRESS)
    ap.add_argument("--tune", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.engine:
        return worker(args)
    os.makedirs(args.out, exist_ok=True)
    args.onnx = os.path.join(args.out, f"{args.model}.onnx")
    tvp.export(args.model, args.onnx, args.batch, args.seed)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    cpu = open("/proc/cpuinfo").read()
    flags = sorted({f for f in cpu.split("flags\t\t: ")[1].split("\n")[0].split() if f.startswith(("avx", "amx"))})
    print(f"{args.model}, global batch {args.batch}, {args.steps} steps, CPU flags: {' '.join(flags)}")
    aoe = os.path.abspath(os.path.join(args.out, "aoe"))
    shutil.rmtree(aoe, ignore_errors=True)
    os.makedirs(aoe)

    def mpirun(i, engine, ranks, threads, hcom, tailing, steps, extra=()):
        cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks), sys.executable, __file__,
               "--engine", engine, "--onnx", args.onnx, "--threads", str(threads), "--hcom", hcom, "--tailing", tailing,
               "--port", str(args.port + i), "--split", args.split, "--steps", str(steps)] + list(extra) + \
              [f"--{k}={getattr(args, k)}" for k in ["model", "batch", "lr", "seed"]]
        return subprocess.run(cmd, stdout=subprocess.PIPE, env=env, check=True, text=True)

    # aoe_mode 4 on 2 ranks x 1 thread: one bucket, HCCL's default and 2-32 equal buckets, 3 steps each.
    tune = mpirun(99, "openge", 2, 1, "True", "False", 25, ["--aoe", aoe, "--tune"])
    tuned = json.loads(tune.stdout.strip().splitlines()[-1])
    print(f"  aoe_mode 4 tuning run: {len(tuned['times'])} steps; record in {aoe}")
    results = {}
    for i, (label, engine, ranks, threads, hcom, tailing, use_tuned) in enumerate(CONFIGS):
        done = mpirun(i, engine, ranks, threads, hcom, tailing, args.steps, ["--aoe", aoe] if use_tuned else [])
        r = json.loads(done.stdout.strip().splitlines()[-1])
        skip = min(3, args.steps - 1)
        results[label] = float(np.median(r["times"][skip:])) * 1000
        print(f"  {label:42s} median step {results[label]:8.1f} ms   last loss {r['losses'][-1]:.5f}", flush=True)
    ddp = results["pytorch ddp 2x1 (gloo)"]
    for label, t in results.items():
        if label.startswith("openge 2x1"):
            print(f"  {label} / DDP 2x1: {t / ddp:.2f}")
    for path in glob.glob(os.path.join(aoe, "aoe_result_gdat_*.json")):
        report = next(iter(json.load(open(path)).values()))[1]["GDAT"]
        cands = ", ".join(f"{len(c['split_by_idx'])} buckets {c['step_performance(ms)']:.0f} ms" for c in report["candidates"])
        print(f"  aoe_mode 4 measured: {cands}; chose {len(report['split_by_idx'])} buckets")


if __name__ == "__main__":
    main()
