#!/usr/bin/python3
"""A model exported by PyTorch from a scripted for loop and while loop runs in OpenGE and matches
PyTorch's output.

The module (LoopModel below) is scripted with torch.jit.script, so its loops become ONNX Loop
nodes: the for loop carries a tensor that grows every iteration (torch.cat) and reads the outer
input x; the while loop's condition is computed in the body and exported as an If nested in the
Loop, reading a constant of the main graph two scopes up.

With torch importable, the model is exported afresh into --work and PyTorch's own output is the
expectation. Without it, the committed torch_loop.onnx and torch_loop_expected.npz (made by
`torch_loop.py --regenerate`) are used.

Usage: torch_loop.py --openge BUILD/openge --work DIR
       torch_loop.py --regenerate          (rewrites the committed model and expectation)
"""
import argparse
import os
import subprocess
import sys

import numpy as np
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
COMMITTED_MODEL = os.path.join(HERE, "torch_loop.onnx")
COMMITTED_EXPECTED = os.path.join(HERE, "torch_loop_expected.npz")
STEP_COUNTS = (5, 1, 0)  # the for loop's trip count per data set; 0 runs no iteration


def export(model_path):
    """Exports the scripted module; returns {steps: (inputs, outputs)} computed by PyTorch."""
    import torch

    class LoopModel(torch.nn.Module):
        def forward(self, x, steps):
            h = torch.zeros_like(x[0])
            hs = torch.zeros(0, x.size(1))
            for i in range(int(steps)):
                h = torch.tanh(0.5 * h + x[i % x.size(0)])
                hs = torch.cat([hs, h.unsqueeze(0)], 0)
            k = 0
            while bool(h.sum() < 4.0) and k < 50:
                h = h + 0.25
                k += 1
            return h, hs

    scripted = torch.jit.script(LoopModel())
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(0))
    torch.onnx.export(scripted, (x, torch.tensor(STEP_COUNTS[0])), model_path, opset_version=13,
                      input_names=["x", "steps"], output_names=["h", "hs"])
    cases = {}
    for steps in STEP_COUNTS:
        h, hs = scripted(x, torch.tensor(steps))
        cases[steps] = ([x.numpy(), np.array(steps, dtype=np.int64)], [h.numpy(), hs.numpy()])
    return cases


def committed_cases():
    data = np.load(COMMITTED_EXPECTED)
    return {s: ([data[f"x_{s}"], data[f"steps_{s}"]], [data[f"h_{s}"], data[f"hs_{s}"]])
            for s in STEP_COUNTS}


def regenerate():
    cases = export(COMMITTED_MODEL)
    arrays = {}
    for s, (ins, outs) in cases.items():
        arrays.update({f"x_{s}": ins[0], f"steps_{s}": ins[1], f"h_{s}": outs[0], f"hs_{s}": outs[1]})
    np.savez(COMMITTED_EXPECTED, **arrays)
    print(f"wrote {COMMITTED_MODEL} and {COMMITTED_EXPECTED}")


def run_openge(openge, model, inputs, work):
    in_dir, out_dir = os.path.join(work, "in"), os.path.join(work, "out")
    os.makedirs(in_dir, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    for i, a in enumerate(inputs):
        with open(os.path.join(in_dir, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a).SerializeToString())
    proc = subprocess.run([openge, "run", "--model", model, "--inputs", in_dir, "--outputs", out_dir],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"openge run failed (exit {proc.returncode}): {proc.stdout.decode()}")
    outs = []
    for j in range(2):
        from onnx import TensorProto
        t = TensorProto()
        with open(os.path.join(out_dir, f"output_{j}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        outs.append(numpy_helper.to_array(t))
    return outs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge")
    ap.add_argument("--work")
    ap.add_argument("--regenerate", action="store_true")
    args = ap.parse_args()
    if args.regenerate:
        regenerate()
        return 0
    os.makedirs(args.work, exist_ok=True)
    try:
        import torch  # noqa: F401
        model = os.path.join(args.work, "torch_loop.onnx")
        cases = export(model)
        source = "exported now by PyTorch"
    except ImportError:
        model, cases = COMMITTED_MODEL, committed_cases()
        source = "committed (PyTorch is not importable)"
    failures = 0
    for steps, (ins, want) in sorted(cases.items()):
        got = run_openge(args.openge, model, ins, os.path.join(args.work, f"steps_{steps}"))
        for name, w, g in zip(("h", "hs"), want, got):
            if w.shape != g.shape or not np.allclose(g, w, rtol=1e-5, atol=1e-6):
                print(f"FAIL steps={steps} output {name}: got {g.shape} {g.ravel()[:6]}, "
                      f"expected {w.shape} {w.ravel()[:6]}")
                failures += 1
    print(f"torch loop model ({source}): {len(cases) * 2 - failures} of {len(cases) * 2} outputs match")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
