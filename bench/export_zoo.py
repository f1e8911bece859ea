#!/usr/bin/python3
"""Exports the model zoo (bench/zoo_models.py) to ONNX: NAME.onnx, NAME.input.npy and PyTorch's
outputs NAME.torch_out_<i>.npy, opset 13, batch 1, random weights (seed 0).

Usage: /usr/bin/python3 bench/export_zoo.py OUT_DIR [NAME ...]     (Debian's python3: python3-torch)
"""
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo_models import ZOO, build  # noqa: E402


def export(name, out):
    model, x, scripted = build(name)
    with torch.inference_mode():
        y = model(x)
    outs = list(y) if isinstance(y, (tuple, list)) else [y]
    path = os.path.join(out, name + ".onnx")
    module = torch.jit.script(model) if scripted else model
    torch.onnx.export(module, (x,), path, opset_version=13, input_names=["input"],
                      output_names=[f"output_{i}" for i in range(len(outs))], do_constant_folding=True)
    np.save(os.path.join(out, name + ".input.npy"), x.numpy())
    for i, o in enumerate(outs):
        np.save(os.path.join(out, f"{name}.torch_out_{i}.npy"), o.numpy())
    return {"model": name, "family": ZOO[name][0], "bytes": os.path.getsize(path), "input": list(x.shape),
            "outputs": [list(o.shape) for o in outs]}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or list(ZOO):
        print(json.dumps(export(name, out)), flush=True)


if __name__ == "__main__":
    main()
