#!/usr/bin/python3
"""Hostile models of the "sizes computed from data" kind, run through the openge CLI.

Generates COUNT small ONNX models (seeded, so every run makes the same files) whose tensor sizes
come from data: ConstantOfShape / Expand / Tile / Range / Reshape / Resize / Pad / Concat and
chains of them, fed huge, negative, int64-overflowing and zero dimensions, in three forms:
  - constant: the sizes are initializers (constant folding and compile-time inference see them);
  - runtime:  the sizes are graph inputs given as .npy files (inference at run time);
  - derived:  the sizes are computed in the graph from the shape of a symbolic input
              (Shape -> Mul -> ...), known only when the run starts.
Each model is run with `openge run` under a low address-space limit (RLIMIT_AS) and a lower
max_tensor_bytes, JOBS at a time. Every run must end with exit 0 (a legitimately fine model,
e.g. zero dims or an empty Range) or exit 1 with exactly one error line on stderr that names a
node of the model; nothing may die by a signal (abort, segfault) or exceed the address-space
limit (an allocation past max_tensor_bytes would). The issue's reproducer (ConstantOfShape of a
constant [100000,100000], which aborted with an uncaught std::bad_alloc) runs first, at the
default limit.

Usage: hostile_sizes.py --openge BUILD/openge --work DIR [--count 1000] [--seed 8] [--jobs 2]
"""
import argparse
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
from onnx import TensorProto, helper

I64_MAX = 2**63 - 1
# Dims that no tensor of any dtype may have under the test limit (each alone exceeds it), dims
# whose products overflow int64, negative ones, zero, and small legitimate ones.
HUGE = [300_000_000, 10**9, 2**31, 2**32, 10**12, 2**40, 2**62, I64_MAX]
NEGATIVE = [-1, -2, -7, -(2**31), -(2**63)]
SMALL = [1, 2, 3, 4]
DTYPES = [TensorProto.FLOAT, TensorProto.INT8, TensorProto.INT64, TensorProto.BOOL, TensorProto.FLOAT16]
NP_OF = {TensorProto.FLOAT: np.float32, TensorProto.INT8: np.int8, TensorProto.INT64: np.int64, TensorProto.INT32: np.int32,
         TensorProto.BOOL: np.bool_, TensorProto.FLOAT16: np.float16}


def pick_dim(rng):
    r = rng.random()
    if r < 0.40:
        return rng.choice(HUGE)
    if r < 0.55:
        return rng.choice(NEGATIVE)
    if r < 0.70:
        return 0
    return rng.choice(SMALL)


def pick_dims(rng, rank=None):
    rank = rank if rank is not None else rng.randint(1, 4)
    return [pick_dim(rng) for _ in range(rank)]


class Builder:
    """One model: nodes, initializers, graph inputs (with the .npy data the run feeds them)."""

    def __init__(self, rng, form):
        self.rng, self.form = rng, form
        self.nodes, self.inits, self.inputs, self.feeds = [], [], [], {}
        self.counter = 0

    def name(self, kind):
        self.counter += 1
        return f"{kind}_{self.counter}"

    def int64_vector(self, values, kind="shape"):
        """An int64 1-D tensor: an initializer, a graph input, or derived from a symbolic input."""
        arr = np.array(values, dtype=np.int64)
        form = self.form
        if form == "derived" and len(values) > 0:
            return self.derived_vector(arr, kind)
        tname = self.name(kind)
        if form == "constant":
            self.inits.append(helper.make_tensor(tname, TensorProto.INT64, [len(values)], arr.tolist()))
        else:
            self.inputs.append(helper.make_tensor_value_info(tname, TensorProto.INT64, [len(values)]))
            self.feeds[tname] = arr
        return tname

    def derived_vector(self, arr, kind):
        """values = Shape(x) * 0 + arr, x a float input with symbolic dims (1 at run time)."""
        x = self.name("x")
        self.inputs.append(helper.make_tensor_value_info(x, TensorProto.FLOAT, ["n"] * len(arr)))
        shp, zero, mul, base, out = (self.name(k) for k in ("shape", "zero", "mul", "base", kind))
        self.nodes.append(helper.make_node("Shape", [x], [shp + "_out"], name=shp))
        self.inits.append(helper.make_tensor(zero, TensorProto.INT64, [], [0]))
        self.nodes.append(helper.make_node("Mul", [shp + "_out", zero], [mul + "_out"], name=mul))
        self.inits.append(helper.make_tensor(base, TensorProto.INT64, [len(arr)], arr.tolist()))
        self.nodes.append(helper.make_node("Add", [mul + "_out", base], [out + "_out"], name=out))
        return out + "_out"

    def scalar(self, value, dtype):
        tname = self.name("scalar")
        arr = np.array(value, dtype=NP_OF[dtype] if dtype in NP_OF else np.int64)
        if self.form == "constant" or self.form == "derived":
            self.inits.append(helper.make_tensor(tname, dtype, [], [arr.item()]))
        else:
            self.inputs.append(helper.make_tensor_value_info(tname, dtype, []))
            self.feeds[tname] = arr
        return tname

    def small_data(self, dtype=TensorProto.FLOAT, dims=None):
        dims = dims or [self.rng.choice(SMALL) for _ in range(self.rng.randint(1, 3))]
        tname = self.name("data")
        vals = np.arange(int(np.prod(dims)), dtype=np.float64)
        self.inits.append(helper.make_tensor(tname, dtype, dims, vals.astype(NP_OF[dtype]).tolist()))
        return tname, dims

    def node(self, op, inputs, **attrs):
        name = self.name(op.lower())
        out = name + "_out"  # not the node's name: an error must name the node, not just the value
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out


# --- one generator per op; each returns its output name, `src` an optional producer to extend ---

def gen_constant_of_shape(b, src):
    dtype = b.rng.choice(DTYPES)
    value = helper.make_tensor("value", dtype, [1], [1] if dtype != TensorProto.FLOAT16 else [np.float16(1)])
    return b.node("ConstantOfShape", [b.int64_vector(pick_dims(b.rng))], value=value)


def gen_expand(b, src):
    if src is None:
        src, _ = b.small_data()
    return b.node("Expand", [src, b.int64_vector(pick_dims(b.rng))])


def gen_tile(b, src):
    if src is None:
        src, dims = b.small_data()
        rank = len(dims)
    else:
        rank = b.rng.randint(1, 4)  # may not match the producer's rank: an error, named
    return b.node("Tile", [src, b.int64_vector(pick_dims(b.rng, rank))])


def gen_range(b, src):
    dtype = b.rng.choice([TensorProto.INT64, TensorProto.FLOAT, TensorProto.INT32])
    pool = [0, 1, -1, 10, -10] + HUGE[:6] + [-(10**12)]
    if dtype == TensorProto.INT32:
        pool = [v for v in pool if -(2**31) <= v < 2**31]
    start, limit = b.rng.choice(pool), b.rng.choice(pool)
    delta = b.rng.choice([1, -1, 0, 3, 2**30] if dtype != TensorProto.FLOAT else [1.0, -1.0, 0.0, 1e-9, 1e-30])
    return b.node("Range", [b.scalar(start, dtype), b.scalar(limit, dtype), b.scalar(delta, dtype)])


def gen_reshape(b, src):
    if src is None:
        src, _ = b.small_data()
    dims = [b.rng.choice(HUGE + NEGATIVE + [0, -1, 2, 3]) for _ in range(b.rng.randint(1, 4))]
    return b.node("Reshape", [src, b.int64_vector(dims)], allowzero=b.rng.choice([0, 1]))


def gen_resize(b, src):
    if src is None:
        src, dims = b.small_data(dims=[1, 1, 2, 2])
    roi = b.name("roi")
    b.inits.append(helper.make_tensor(roi, TensorProto.FLOAT, [0], []))
    if b.rng.random() < 0.5:
        sizes = b.int64_vector(pick_dims(b.rng, 4), "sizes")
        scales = b.name("scales")
        b.inits.append(helper.make_tensor(scales, TensorProto.FLOAT, [0], []))
        return b.node("Resize", [src, roi, scales, sizes], mode="nearest")
    scales = b.name("scales")
    vals = [b.rng.choice([1.0, 2.0, 1e5, 1e9, 1e20, -2.0, 0.0, float("inf"), float("nan")]) for _ in range(4)]
    b.inits.append(helper.make_tensor(scales, TensorProto.FLOAT, [4], vals))
    return b.node("Resize", [src, roi, scales], mode="nearest")


def gen_pad(b, src):
    if src is None:
        src, dims = b.small_data()
        rank = len(dims)
    else:
        rank = b.rng.randint(1, 4)
    pads = [b.rng.choice(HUGE + NEGATIVE + [0, 1, 2]) for _ in range(2 * rank)]
    return b.node("Pad", [src, b.int64_vector(pads, "pads")], mode=b.rng.choice(["constant", "reflect", "edge"]))


def gen_concat(b, src):
    first = src if src is not None else gen_constant_of_shape(b, None)
    second = gen_constant_of_shape(b, None)
    return b.node("Concat", [first, second], axis=b.rng.choice([0, 1, -1]))


GENERATORS = [gen_constant_of_shape, gen_expand, gen_tile, gen_range, gen_reshape, gen_resize, gen_pad, gen_concat]
FORMS = ["constant", "runtime", "derived"]
OPSET = 14  # Reshape's allowzero


def make_model(rng, index, work):
    form = FORMS[index % len(FORMS)]
    b = Builder(rng, form)
    out = None
    for _ in range(rng.randint(1, 3)):  # chains of one to three size-computing ops
        out = rng.choice(GENERATORS)(b, out)
    # The output is declared by name only: its type and shape are what the engine infers.
    graph = helper.make_graph(b.nodes, f"hostile_{index}", b.inputs, [onnx.ValueInfoProto(name=out)], b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    path = os.path.join(work, f"m{index:04d}_{form}.onnx")
    onnx.save(model, path)
    feeds = []
    for name, arr in b.feeds.items():
        npy = os.path.join(work, f"m{index:04d}_{name}.npy")
        np.save(npy, arr)
        feeds.append(f"{name}={npy}")
    return path, feeds, [n.name for n in b.nodes]


def limit_address_space(nbytes):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_one(args, path, feeds, node_names, default_limit=False):
    cmd = [args.openge, "run", "--model", path, "--threads", "1"]
    if not default_limit:
        cmd += ["--option", f"max_tensor_bytes={args.max_tensor_bytes}"]
    for f in feeds:
        cmd += ["--input", f]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=args.timeout,
                           preexec_fn=limit_address_space(args.rlimit_as))
    except subprocess.TimeoutExpired:
        return f"{path}: timed out after {args.timeout}s", "timeout"
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    return check_outcome(path, p, lines, node_names), p.returncode


def check_outcome(path, p, lines, node_names):
    """None when the run ended as it must, else what went wrong."""
    if p.returncode < 0:
        return f"{path}: killed by {signal.Signals(-p.returncode).name}; stderr: {p.stderr[-500:]}"
    if p.returncode == 0:
        return f"{path}: exit 0 but stderr: {lines}" if lines else None
    if p.returncode != 1:
        return f"{path}: exit {p.returncode}; stderr: {p.stderr[-500:]}"
    if len(lines) != 1 or not lines[0].startswith("openge run: error: "):
        return f"{path}: exit 1 but not one error line: {lines}"
    if not any(f"'{n}'" in lines[0] for n in node_names):
        return f"{path}: the error names no node of the model: {lines[0]}"
    if "bad_alloc" in lines[0] or "out of memory" in lines[0]:
        return f"{path}: an allocation reached the address-space limit: {lines[0]}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openge", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--max-tensor-bytes", type=int, default=256 << 20)
    ap.add_argument("--rlimit-as", type=int, default=3 << 30, help="address-space limit of each run (bytes)")
    args = ap.parse_args()

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    rng = random.Random(args.seed)

    # The reproducer, at the default limit: 10^10 floats from a 2-element constant.
    repro = os.path.join(args.work, "issue_reproducer.onnx")
    onnx.save(helper.make_model(helper.make_graph(
        [helper.make_node("ConstantOfShape", ["s"], ["y"], name="cos1")], "repro", [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("s", TensorProto.INT64, [2], [100000, 100000])]),
        opset_imports=[helper.make_opsetid("", 13)], ir_version=8), repro)
    failures = []
    problem, _ = run_one(args, repro, [], ["cos1"], default_limit=True)
    if problem:
        failures.append("issue reproducer: " + problem)

    cases = [make_model(rng, i, args.work) for i in range(args.count)]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda c: run_one(args, *c), cases))
    failures += [problem for problem, _ in results if problem]
    exits = {}
    for _, code in results:
        exits[code] = exits.get(code, 0) + 1

    # Exit codes per form, so that a generator change that makes everything trivially fine shows.
    print(f"{args.count} hostile models (seed {args.seed}), max_tensor_bytes={args.max_tensor_bytes}, "
          f"RLIMIT_AS={args.rlimit_as >> 20} MiB: exit codes {dict(sorted(exits.items(), key=str))}, "
          f"{len(failures)} failure(s)")
    if failures:
        for f in failures[:50]:
            print("FAIL", f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
