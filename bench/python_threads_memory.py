"""Python threads sharing one Session, and a run loop's memory.

1. Threads: one openge.Session (threads=1: one intra-op thread) of an MLP (Gemm+Relu, made here
   with onnx.helper), run 4 Python threads x 50 runs against 1 thread x 200 runs, rounds
   alternating which goes first. Every output is checked against NumPy (float64) on the model's
   own weights. Reported: wall time of each side (min and median over rounds), the speed-up,
   and the CPU time the process used per wall second during the threaded side ("cores used":
   more than 1 only if run() releases the GIL and the machine has a free core).
2. Memory: after --loop warm-up runs (compile, arena, allocator pools), VmRSS before and after
   --loop more runs of the same Session (each output touched, then dropped).
The load average, the cores this process may use and the CPU's model and SIMD flags are printed
with the numbers: on a shared machine they decide the threaded result.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_threads_memory.py \
        [--rounds 5] [--threads 4] [--runs-per-thread 50] [--batch 32] [--sizes 512,1024,1024,10] [--loop 1000]
"""
import argparse
import json
import os
import statistics
import tempfile
import threading
import time

import numpy
import onnx
from onnx import numpy_helper

import openge
from python_overhead import make_mlp

SIMD_FLAGS = ("avx2", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "avx_vnni", "amx_tile", "amx_bf16")


def cpu_description():
    model, flags = "?", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    return model, [f for f in SIMD_FLAGS if f in flags]


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def numpy_reference(model_path, x):
    """The MLP's output in float64 from the model's own initializers (w{i}, b{i})."""
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(model_path).graph.initializer}
    h, layers = x.astype(numpy.float64), len(inits) // 2
    for i in range(layers):
        h = h @ inits[f"w{i}"].astype(numpy.float64) + inits[f"b{i}"]
        if i < layers - 1:
            h = numpy.maximum(h, 0)
    return h


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=4, help="Python threads of the threaded side")
    ap.add_argument("--runs-per-thread", type=int, default=50)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--sizes", default="512,1024,1024,10")
    ap.add_argument("--loop", type=int, default=1000, help="runs of the memory loop (and of its warm-up)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    total = args.threads * args.runs_per_thread
    cpu, simd = cpu_description()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "mlp.onnx")
        make_mlp(model, args.batch, sizes)
        session = openge.Session(model, threads=1)
        rng = numpy.random.default_rng(5)
        inputs = [rng.standard_normal((args.batch, sizes[0])).astype(numpy.float32) for _ in range(args.threads)]
        expected = [numpy_reference(model, x) for x in inputs]
        session.run(None, {"x": inputs[0]})  # compile once
        wrong = []

        def runs(k, n):
            for _ in range(n):
                (y,) = session.run(None, {"x": inputs[k]})
                if not numpy.allclose(y, expected[k], rtol=1e-4, atol=1e-4):
                    wrong.append(k)

        def serial():
            for k in range(args.threads):  # the same inputs, one thread
                runs(k, args.runs_per_thread)

        def threaded():
            ts = [threading.Thread(target=runs, args=(k, args.runs_per_thread)) for k in range(args.threads)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()

        one, many = [], []
        for r in range(args.rounds):
            for side in (("serial", "threaded") if r % 2 == 0 else ("threaded", "serial")):
                (one if side == "serial" else many).append(timed(serial if side == "serial" else threaded))
            print(f"round {r}: 1 thread x {total}: {one[-1][0]:.3f} s   {args.threads} threads x "
                  f"{args.runs_per_thread}: {many[-1][0]:.3f} s (cores used {many[-1][1] / many[-1][0]:.2f})")

        for _ in range(args.loop):  # warm-up of the memory loop
            session.run(None, {"x": inputs[0]})
        before = rss_kib()
        for _ in range(args.loop):
            (y,) = session.run(["y"], {"x": inputs[0]})
            y.sum()
        after = rss_kib()
    load_after = os.getloadavg()
    serial_s = [w for w, _ in one]
    threaded_s = [w for w, _ in many]
    result = {
        "model": f"MLP {'-'.join(map(str, sizes))} batch {args.batch}, Session threads=1",
        "runs": total, "python_threads": args.threads, "rounds": args.rounds,
        "outputs_checked": total * args.rounds * 2, "wrong_outputs": len(wrong),
        "serial_s_min": round(min(serial_s), 3), "serial_s_median": round(statistics.median(serial_s), 3),
        "threaded_s_min": round(min(threaded_s), 3), "threaded_s_median": round(statistics.median(threaded_s), 3),
        "speedup_median": round(statistics.median(serial_s) / statistics.median(threaded_s), 2),
        "cores_used_threaded_max": round(max(c / w for w, c in many), 2),
        "cores_used_serial_max": round(max(c / w for w, c in one), 2),
        "loop_runs": args.loop, "rss_before_kib": before, "rss_after_kib": after, "rss_growth_kib": after - before,
        "cpus_allowed": len(os.sched_getaffinity(0)), "loadavg_before": [round(v, 2) for v in load_before],
        "loadavg_after": [round(v, 2) for v in load_after], "cpu": cpu, "simd_flags": simd,
    }
    print(json.dumps(result))
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
