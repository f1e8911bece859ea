"""How far mixed precision moves a model's outputs: runs one feed under several precision
modes and compares each with the float32 run (must_keep_origin_dtype: force_fp32 runs Cube ops on
float16 inputs, as CANN does, so it is no float32 baseline).

    PYTHONPATH=build/python /usr/bin/python3 examples/mixed_precision.py [model.onnx]
"""
import pathlib
import sys

import numpy

import openge
from openge import npu

model = sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1] / "models" / "demo.onnx"
modes = ["must_keep_origin_dtype", "force_fp32", "allow_mix_precision", "allow_mix_precision_bf16", "allow_fp32_to_fp16"]

results = {}
for mode in modes:
    options = npu.NpuOptions()          # independent of npu.global_options()
    options.precision_mode = mode
    session = openge.Session(model, options=options)
    if not results:
        rng = numpy.random.default_rng(0)
        feed = {t.name: rng.uniform(-1, 1, [d or 1 for d in t.shape]).astype(t.numpy_dtype) for t in session.inputs}
    results[mode] = session.run(None, feed)

reference = results["must_keep_origin_dtype"]
print(f"{'precision_mode':<26} {'max |diff|':>12} {'max rel diff':>14}")
for mode in modes:
    diffs = [numpy.abs(o.astype(numpy.float64) - r.astype(numpy.float64)) for o, r in zip(results[mode], reference)]
    scale = max(float(numpy.abs(r).max()) for r in reference) or 1.0
    worst = max(float(d.max()) for d in diffs)
    print(f"{mode:<26} {worst:>12.3e} {worst / scale:>14.3e}")
