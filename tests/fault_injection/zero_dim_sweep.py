#!/usr/bin/python3
"""Zero-sized dimensions, op by op (docs/RELIABILITY.md, "Zero-sized dimensions"). The op table
is the scope (`openge ops --list`, as the conformance suite): for every single-op ONNX backend
node case of a registered op, and every tensor input of its first data set in turn, the input's
first axis (the batch axis) is made 0 (the model declares that axis symbolic), and the case runs
through `openge run`. Every run must end with exit 0 or exit 1 and one error line, within the
time limit, never by a signal. When it succeeds, every output whose shape ONNX's shape
inference knows for those input shapes must have that shape (an empty output where it says so).

Usage: zero_dim_sweep.py --openge BIN --data CACHE_DIR [--jobs N] [--filter REGEX]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))
import run_conformance  # noqa: E402  (the case discovery and data generation of the conformance suite)

TIMEOUT_S = 60


def read_tensor(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def variants(case, every_axis=False):
    """(input label, model bytes, [input TensorProto], expected output shapes or None): the
    first axis of each input made 0, or with every_axis each axis in turn."""
    model = onnx.load(os.path.join(case.path, "model.onnx"))
    data = case.data_sets[0]
    files = sorted(f for f in os.listdir(data) if re.match(r"input_\d+\.pb$", f))
    tensors = []
    for i, f in enumerate(sorted(files, key=lambda n: int(n[6:-3]))):
        try:
            t = read_tensor(os.path.join(data, f))
        except Exception:
            return []  # a sequence or optional input: not a tensor
        if i < len(model.graph.input):
            run_conformance.relabel_bfloat16(t, run_conformance.declared_elem_type(model.graph.input[i].type))
        tensors.append(t)
    out = []
    for i, t in enumerate(tensors):
        if i >= len(model.graph.input) or not model.graph.input[i].type.HasField("tensor_type"):
            continue
        for axis in range(len(t.dims) if every_axis else min(1, len(t.dims))):
            if t.dims[axis] != 0:
                out.append(zero_axis_variant(model, tensors, i, axis))
    return out


def zero_axis_variant(model, tensors, i, axis):
    t = tensors[i]
    arr = numpy_helper.to_array(t)
    empty = numpy_helper.from_array(np.take(arr, np.array([], dtype=np.int64), axis=axis), t.name)
    empty.data_type = t.data_type
    inputs = list(tensors)
    inputs[i] = empty
    m = onnx.ModelProto()
    m.CopyFrom(model)
    shape = m.graph.input[i].type.tensor_type.shape
    if len(shape.dim) > axis:
        shape.dim[axis].Clear()
        shape.dim[axis].dim_param = "zero_dim"
    for o in m.graph.output:
        if o.type.HasField("tensor_type") and o.type.tensor_type.HasField("shape"):
            o.type.tensor_type.ClearField("shape")
    del m.graph.value_info[:]
    return ("%d axis %d" % (i, axis), m.SerializeToString(), inputs, expected_shapes(m, inputs))


def expected_shapes(model, inputs):
    """Output shapes ONNX's shape inference gives for these input shapes (None where unknown)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for vi, t in zip(m.graph.input, inputs):
        if not vi.type.HasField("tensor_type"):
            continue
        shape = vi.type.tensor_type.shape
        shape.ClearField("dim")
        for d in t.dims:
            shape.dim.add().dim_value = d
    try:
        inferred = onnx.shape_inference.infer_shapes(m)
    except Exception:
        return [None] * len(model.graph.output)
    shapes = []
    for o in inferred.graph.output:
        tt = o.type.tensor_type if o.type.HasField("tensor_type") else None
        if tt is None or not tt.HasField("shape") or any(not d.HasField("dim_value") for d in tt.shape.dim):
            shapes.append(None)
        else:
            shapes.append(tuple(d.dim_value for d in tt.shape.dim))
    return shapes


def run_variant(openge, case, index, model_bytes, inputs, expected):
    work = tempfile.mkdtemp(prefix="zero_dim_")
    try:
        model = os.path.join(work, "model.onnx")
        with open(model, "wb") as f:
            f.write(model_bytes)
        ins = os.path.join(work, "in")
        os.makedirs(ins)
        for k, t in enumerate(inputs):
            with open(os.path.join(ins, "input_%d.pb" % k), "wb") as f:
                f.write(t.SerializeToString())
        outs = os.path.join(work, "out")
        try:
            r = subprocess.run([openge, "run", "--model", model, "--inputs", ins, "--outputs", outs, "--threads", "1"],
                               capture_output=True, text=True, timeout=TIMEOUT_S, cwd=work)
        except subprocess.TimeoutExpired:
            return "hang", "no end within %d s" % TIMEOUT_S
        label = "%s input %s" % (case.name, index)
        if r.returncode < 0 or r.returncode > 1:
            return "crash", "%s: exit %d %s" % (label, r.returncode, r.stderr.strip()[-300:])
        if r.returncode == 1:
            lines = [l for l in r.stderr.splitlines() if "error" in l]
            if len(lines) != 1:
                return "bad_error", "%s: %d error lines: %r" % (label, len(lines), r.stderr[-300:])
            return "refused", ""
        for k, shape in enumerate(expected):
            pb = os.path.join(outs, "output_%d.pb" % k)
            if shape is None or not os.path.exists(pb):
                continue
            got = tuple(read_tensor(pb).dims)
            if got != shape:
                return "wrong_shape", "%s: output %d has shape %s, ONNX infers %s" % (label, k, got, shape)
        return "ran", ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", default=None)
    ap.add_argument("--every-axis", action="store_true", help="each axis of each input, not only the first")
    args = ap.parse_args()
    openge = os.path.abspath(args.openge)
    run_conformance.ensure_generated(args.data)
    scope = run_conformance.registered_ops(openge)
    cases, _, _ = run_conformance.discover_cases(args.data, scope)
    cases = [c for c in cases if c.group != run_conformance.MULTI_OP_GROUP and c.data_sets]
    if args.filter:
        cases = [c for c in cases if re.search(args.filter, c.name)]
    jobs = [(c, v) for c in cases for v in variants(c, args.every_axis)]
    counts, problems, ops = {}, [], set()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_variant, openge, c, *v) for c, v in jobs]
        for (c, _), fut in zip(jobs, futures):
            kind, detail = fut.result()
            counts[kind] = counts.get(kind, 0) + 1
            ops.add(c.group)
            if kind not in ("ran", "refused"):
                problems.append(kind + ": " + detail)
    print("%d runs with a zero %s over %d ops (%d cases): %s" % (
        len(jobs), "axis (every axis in turn)" if args.every_axis else "batch axis", len(ops), len(cases), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    for p in problems:
        print("FAIL " + p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
