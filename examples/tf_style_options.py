"""Page 002's configuration lines, unchanged, then a model run with them.

    PYTHONPATH=build/python /usr/bin/python3 examples/tf_style_options.py [model.onnx]

The option lines below are copied verbatim from the configuration examples of page 002
(npu.global_options() of the TF Adapter); options without a CPU effect are accepted and
validated (see `openge options --explain NAME`).
"""
import pathlib
import sys

import numpy

import openge
from openge import npu

npu.global_options().graph_run_mode=1
npu.global_options().deterministic=1
npu.global_options().memory_config.atomic_clean_policy=1
npu.global_options().memory_config.static_memory_policy=0
npu.global_options().precision_mode="allow_mix_precision"
npu.global_options().dump_config.dump_mode="all"
npu.global_options().hcom_parallel=True
npu.global_options().stream_sync_timeout=600000
npu.global_options().event_sync_timeout=600000
npu.global_options().jit_compile = "auto"

model = sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1] / "models" / "demo.onnx"
session = openge.Session(model)
print(session)
rng = numpy.random.default_rng(0)
feed = {t.name: rng.uniform(-1, 1, [d or 1 for d in t.shape]).astype(t.numpy_dtype) for t in session.inputs}
for info, value in zip(session.outputs, session.run(None, feed)):
    print(f"{info.name}: {value.dtype} {list(value.shape)} mean {value.astype(numpy.float64).mean():.6f}")
print("effective configuration (set by this script):")
for name, (value, source, origin) in npu.global_options().effective().items():
    if source == "flag":
        print(f"  {name} = {value}")
