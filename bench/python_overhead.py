"""The Python binding's overhead over the C++ API: the benchmark suite's MLP (784-1024-1024-10,
Linear+ReLU, batch 1; made here with onnx.helper, or --model bench/models/mlp.onnx),
run through openge.Session.run in this process and through `openge bench` (the C++ Session::run
in a loop), alternating R rounds of N timed runs each; the result is the median of the
per-round medians and their ratio (<= 1.05).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py --openge build/openge \
        [--rounds 7] [--runs 400] [--threads 1] [--batch 1] [--sizes 784,1024,1024,10] [--model M.onnx]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy
import onnx
from onnx import TensorProto, helper

import openge


def make_mlp(path, batch, sizes, seed=0):
    rng = numpy.random.default_rng(seed)
    nodes, inits, prev = [], [], "x"
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = (rng.standard_normal((n_in, n_out)) / numpy.sqrt(n_in)).astype(numpy.float32)
        b = (rng.standard_normal(n_out) * 0.1).astype(numpy.float32)
        inits += [helper.make_tensor(f"w{i}", TensorProto.FLOAT, w.shape, w.ravel()),
                  helper.make_tensor(f"b{i}", TensorProto.FLOAT, b.shape, b)]
        last = i == len(sizes) - 2
        nodes.append(helper.make_node("Gemm", [prev, f"w{i}", f"b{i}"], ["y" if last else f"g{i}"]))
        if not last:
            nodes.append(helper.make_node("Relu", [f"g{i}"], [f"h{i}"]))
            prev = f"h{i}"
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, sizes[0]])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, sizes[-1]])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def python_median_ms(session, x, warmup, runs):
    feed = {session.inputs[0].name: x}
    for _ in range(warmup):
        session.run(None, feed)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def cpp_median_ms(cli, model, name, x_path, threads, warmup, runs):
    out = subprocess.run([cli, "bench", "--model", model, "--input", f"{name}={x_path}", "--threads", str(threads),
                          "--warmup", str(warmup), "--runs", str(runs), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openge", required=True, help="the openge CLI of the same build")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=400, help="timed runs per round and side")
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--sizes", default="784,1024,1024,10")
    ap.add_argument("--model", help="an existing one-input float32 model instead of the generated MLP")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        model, x_path = args.model or os.path.join(tmp, "mlp.onnx"), os.path.join(tmp, "x.npy")
        if not args.model:
            make_mlp(model, args.batch, sizes)
        session = openge.Session(model, threads=args.threads)
        (info,) = session.inputs
        x = numpy.random.default_rng(1).standard_normal(info.shape).astype(numpy.float32)
        numpy.save(x_path, x)
        py, cpp = [], []
        for r in range(args.rounds):
            # Alternate which side goes first so drifts in machine load hit both alike.
            order = ("py", "cpp") if r % 2 == 0 else ("cpp", "py")
            for side in order:
                if side == "py":
                    py.append(python_median_ms(session, x, args.warmup, args.runs))
                else:
                    cpp.append(cpp_median_ms(args.openge, model, info.name, x_path, args.threads, args.warmup, args.runs))
            print(f"round {r}: python {py[-1] * 1e3:8.1f} us   C++ {cpp[-1] * 1e3:8.1f} us")
        py_ms, cpp_ms = statistics.median(py), statistics.median(cpp)
        result = {"model": args.model or f"MLP {'-'.join(map(str, sizes))} batch {args.batch}", "threads": args.threads,
                  "rounds": args.rounds, "runs": args.runs, "python_median_us": round(py_ms * 1e3, 2),
                  "cpp_median_us": round(cpp_ms * 1e3, 2), "overhead_us": round((py_ms - cpp_ms) * 1e3, 2),
                  "ratio": round(py_ms / cpp_ms, 4)}
        print(json.dumps(result))


if __name__ == "__main__":
    main()
