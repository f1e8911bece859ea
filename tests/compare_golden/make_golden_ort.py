#!/usr/bin/python3
"""Makes a golden folder for `openge compare` with ONNX Runtime: every node output of a model, one
.npy per output named {node_name}.{output_index}.npy ('.', '/', '\\' and ' ' in the name written
'_', as Data Dump file names write them; docs/FORMATS.md, "Golden data for compare").

ONNX Runtime computes intermediate values only for graph outputs, so the model is saved once more
with every node output added as a graph output, and run once by ort_all_outputs.js (beside this
script, onnxruntime-node from --node-path). Nodes must have names: the golden data is found by them.

    make_golden_ort.py --model M.onnx --input NAME=x.npy [--input ...] --out GOLDEN_DIR --node-path NODE_MODULES
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))


def safe_name(name):
    return "".join("_" if c in "./\\ " else c for c in name) or "unnamed"


def with_every_output(model):
    """The model with each node output a graph output (typed by shape inference)."""
    inferred = shape_inference.infer_shapes(model)
    types = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    present = {o.name for o in model.graph.output}
    for node in model.graph.node:
        for name in node.output:
            if name and name not in present:
                if name not in types:
                    raise SystemExit(f"make_golden_ort: node '{node.name}' output '{name}' has no inferred type")
                model.graph.output.append(types[name])
                present.add(name)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--input", action="append", default=[], help="NAME=FILE.npy (repeatable)")
    parser.add_argument("--out", required=True, help="the golden folder to write")
    parser.add_argument("--node-path", required=True, help="folder holding onnxruntime-node (NODE_PATH)")
    args = parser.parse_args()
    model = onnx.load(args.model)
    unnamed = [n.op_type for n in model.graph.node if not n.name]
    if unnamed:
        raise SystemExit(f"make_golden_ort: {len(unnamed)} node(s) have no name (e.g. a {unnamed[0]}): name them, "
                         "since golden files are found by node name")
    os.makedirs(args.out, exist_ok=True)
    outputs = {}
    for node in model.graph.node:
        for index, name in enumerate(node.output):
            if name:
                outputs[name] = os.path.join(args.out, f"{safe_name(node.name)}.{index}.npy")
    inputs = dict(arg.split("=", 1) for arg in args.input)
    with tempfile.TemporaryDirectory() as tmp:
        every = os.path.join(tmp, "every_output.onnx")
        onnx.save(with_every_output(model), every)
        spec = os.path.join(tmp, "spec.json")
        with open(spec, "w") as f:
            json.dump({"model": every, "inputs": {k: os.path.abspath(v) for k, v in inputs.items()},
                       "outputs": outputs}, f)
        result = subprocess.run(["node", os.path.join(HERE, "ort_all_outputs.js"), spec], capture_output=True,
                                text=True, env=dict(os.environ, NODE_PATH=args.node_path))
    if result.returncode != 0:
        raise SystemExit("make_golden_ort: ONNX Runtime failed: " + result.stderr.strip())
    sys.stderr.write(result.stderr)
    print(result.stdout.strip())


if __name__ == "__main__":
    main()
