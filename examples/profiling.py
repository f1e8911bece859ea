"""Profiling from Python with page 002's profiling fields: a few runs inside msproftx ranges,
then the PROF_ folder and its report.html.

    PYTHONPATH=build/python /usr/bin/python3 examples/profiling.py [model.onnx] [output folder]
"""
import json
import pathlib
import sys
import tempfile

import numpy

import openge
from openge import npu

model = sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1] / "models" / "demo.onnx"
output = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="openge_profiling_")

npu.global_options().profiling_config.enable_profiling = True
npu.global_options().profiling_config.profiling_options = json.dumps(
    {"output": output, "task_trace": "on", "training_trace": "on", "aicpu": "on", "runtime_api": "on", "msproftx": "on"})

with openge.Session(model) as session:   # leaving the block writes the profiling data
    feed = {t.name: numpy.zeros([d or 1 for d in t.shape], t.numpy_dtype) for t in session.inputs}
    for step in range(3):
        with session.range(f"step {step}"):
            session.run(None, feed)
    session.mark("done")
    prof = pathlib.Path(session.profiling_dir)

print(f"collection folder: {prof}")
reports = sorted(prof.rglob("report.html"))
print(f"report: {reports[0] if reports else '(none)'}")
report = openge.profile_report(prof)
print("step times (us):", [round(ns / 1e3, 1) for _, ns in report["step_times_ns"]])
print("top operators by total time:")
for op in sorted(report["ops"], key=lambda o: -o["total_ns"])[:5]:
    print(f"  {op['name']:<24} {op['type']:<20} {op['engine']:<8} {op['count']:>3} x  {op['total_ns'] / 1e3:9.1f} us")
