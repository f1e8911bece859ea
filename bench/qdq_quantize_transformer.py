#!/usr/bin/python3
"""Makes an int8 QDQ model from a float32 transformer (a torch.onnx export of BERT-style encoder
layers: MatMul, Gemm, Add, Mul, Div, Sub, Pow, Sqrt, ReduceMean (decomposed LayerNorm),
LayerNormalization, Softmax, Erf (GELU), Reshape, Transpose, Slice, Shape, Gather, Constant),
with onnx.helper and NumPy only, in the scheme of bench/qdq_quantize.py (whose weight and
activation quantizers it shares) and of ONNX Runtime's QDQ quantizer for MatMul:

  - every MatMul whose second input is a constant 2-D weight [K, N] ("weight MatMul"; a Gemm with
    a constant weight, alpha = beta = 1 and transA = 0 is first rewritten to MatMul(x, W as [K, N])
    followed by Add(C), the same float computation): weights int8, symmetric, one scale per
    output column (DequantizeLinear axis 1), |q| <= 127;
  - the weight MatMul's activation input and its output (before the bias Add): uint8, one scale
    and zero point per tensor, from the min/max (always including 0) over the calibration inputs,
    computed by a NumPy forward pass of the float model; QuantizeLinear -> DequantizeLinear is
    inserted after each such tensor's producer and every reader reads the DequantizeLinear;
  - everything else stays float: the bias Adds, residual Adds, LayerNorm, Softmax, GELU and the
    two attention MatMuls (QK^T and softmax·V, whose operands are both activations).

Calibration inputs are standard normal draws from numpy.random.default_rng(seed) for seeds
--calib-seed, --calib-seed + 1, ... (the model's float input shape).

Usage: /usr/bin/python3 bench/qdq_quantize_transformer.py FP32.onnx INT8.onnx [--calib 8] [--calib-seed 1000]
"""
import argparse
import json
import os
import sys

import numpy as np
import onnx
import scipy.special
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qdq_quantize import activation_params, attrs_of, save_rewritten, weight_params  # noqa: E402

F = np.float32


# ---- a NumPy forward pass of the float model (for calibration) -----------------------------

def _div(a, b):
    if np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer):
        return (np.trunc(a / b)).astype(np.result_type(a, b))  # ONNX integer Div truncates
    return a / b


def _slice(x, starts, ends, axes=None, steps=None):
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[int(a)] = slice(int(s), int(e), int(st))
    return x[tuple(index)]


def _reshape(x, shape):
    shape = [x.shape[i] if d == 0 else int(d) for i, d in enumerate(shape)]
    return x.reshape(shape)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _layer_norm(x, scale, bias, a):
    axes = tuple(range(a.get("axis", -1) % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + a.get("epsilon", 1e-5)) * scale
    return y + bias if bias is not None else y


def _gemm(a, b, c, attrs):
    a = a.T if attrs.get("transA", 0) else a
    b = b.T if attrs.get("transB", 0) else b
    y = attrs.get("alpha", 1.0) * (a @ b)
    return y + attrs.get("beta", 1.0) * c if c is not None else y


# op -> f(inputs, attributes); opset 13 forms (Slice, Reshape, ReduceMean's axes attribute).
OPS = {
    "MatMul": lambda i, a: i[0] @ i[1],
    "Gemm": lambda i, a: _gemm(i[0], i[1], i[2] if len(i) > 2 else None, a),
    "Add": lambda i, a: i[0] + i[1],
    "Sub": lambda i, a: i[0] - i[1],
    "Mul": lambda i, a: i[0] * i[1],
    "Div": lambda i, a: _div(i[0], i[1]),
    "Pow": lambda i, a: np.power(i[0], i[1]),
    "Sqrt": lambda i, a: np.sqrt(i[0]),
    "Erf": lambda i, a: scipy.special.erf(i[0]),
    "Relu": lambda i, a: np.maximum(i[0], 0),
    "Tanh": lambda i, a: np.tanh(i[0]),
    "ReduceMean": lambda i, a: i[0].mean(axis=tuple(a["axes"]) if "axes" in a else None,
                                         keepdims=bool(a.get("keepdims", 1))),
    "Softmax": lambda i, a: _softmax(i[0], a.get("axis", -1)),
    "LayerNormalization": lambda i, a: _layer_norm(i[0], i[1], i[2] if len(i) > 2 else None, a),
    "Transpose": lambda i, a: np.transpose(i[0], a.get("perm")),
    "Reshape": lambda i, a: _reshape(i[0], i[1]),
    "Slice": lambda i, a: _slice(i[0], *i[1:]),
    "Shape": lambda i, a: np.array(i[0].shape, np.int64),
    "Gather": lambda i, a: np.take(i[0], i[1], axis=a.get("axis", 0)),
    "Unsqueeze": lambda i, a: np.expand_dims(i[0], tuple(int(d) for d in i[1])),
    "Concat": lambda i, a: np.concatenate(i, axis=a["axis"]),
    "Cast": lambda i, a: i[0].astype(helper.tensor_dtype_to_np_dtype(a["to"])),
    "Identity": lambda i, a: i[0],
    "Constant": lambda i, a: a["value"],
}


def forward(graph, inits, x, wanted):
    """Runs the float graph on x and returns {name: array} for the tensors in `wanted`."""
    env = dict(inits)
    env[graph.input[0].name] = x
    found = {n: x for n in wanted if n == graph.input[0].name}
    for node in graph.node:
        if node.op_type not in OPS:
            raise ValueError(f"op {node.op_type} ({node.name}) is not supported by this calibrator")
        a = attrs_of(node)
        if "value" in a:
            a["value"] = numpy_helper.to_array(a["value"])
        y = OPS[node.op_type]([env[i] if i else None for i in node.input], a)
        y = np.asarray(y)
        env[node.output[0]] = y.astype(F) if y.dtype == np.float64 else y
        if node.output[0] in wanted:
            found[node.output[0]] = env[node.output[0]]
    return found


# ---- quantization ----------------------------------------------------------------------------

def gemm_to_matmul(g, inits):
    """Gemm(x, W, C) with a constant 2-D W, alpha = beta = 1, transA = 0 -> MatMul(x, W[K, N]) + C."""
    nodes = []
    for n in g.node:
        a = attrs_of(n)
        if (n.op_type != "Gemm" or n.input[1] not in inits or a.get("transA", 0) or a.get("alpha", 1.0) != 1.0
                or a.get("beta", 1.0) != 1.0):
            nodes.append(n)
            continue
        w = inits[n.input[1]]
        w_kn = w.T.copy() if a.get("transB", 0) else w
        w_name = n.input[1] + "_kn"
        inits[w_name] = w_kn
        g.initializer.append(numpy_helper.from_array(w_kn, w_name))
        has_bias = len(n.input) > 2 and n.input[2]
        mm_out = n.output[0] + "_matmul" if has_bias else n.output[0]
        nodes.append(helper.make_node("MatMul", [n.input[0], w_name], [mm_out], name=n.name + "_MatMul"))
        if has_bias:
            nodes.append(helper.make_node("Add", [mm_out, n.input[2]], [n.output[0]], name=n.name + "_BiasAdd"))
    del g.node[:]
    g.node.extend(nodes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fp32")
    ap.add_argument("int8")
    ap.add_argument("--calib", type=int, default=8)
    ap.add_argument("--calib-seed", type=int, default=1000)
    args = ap.parse_args()

    model = onnx.load(args.fp32)
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    gemm_to_matmul(g, inits)
    weight_matmuls = [n for n in g.node if n.op_type == "MatMul" and n.input[1] in inits and inits[n.input[1]].ndim == 2]
    to_quantize = list(dict.fromkeys(t for n in weight_matmuls for t in (n.input[0], n.output[0])))

    shape = [d.dim_value for d in g.input[0].type.tensor_type.shape.dim]
    lo = {t: np.inf for t in to_quantize}
    hi = {t: -np.inf for t in to_quantize}
    for k in range(args.calib):
        x = np.random.default_rng(args.calib_seed + k).standard_normal(shape).astype(F)
        acts = forward(g, inits, x, set(to_quantize))
        for t in to_quantize:
            lo[t] = min(lo[t], float(acts[t].min()))
            hi[t] = max(hi[t], float(acts[t].max()))

    weight_names = {n.input[1] for n in weight_matmuls}
    new_inits = [i for i in g.initializer if i.name not in weight_names]

    def add_init(name, arr):
        new_inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    pending, rename = {}, {}
    for t in to_quantize:
        s, z = activation_params(lo[t], hi[t])
        base = t.replace("/", "_").replace(":", "_").strip("_")
        s_name, z_name = add_init(base + "_scale", s), add_init(base + "_zero_point", z)
        q, dq = base + "_quantized", base + "_dequantized"
        pending[t] = [helper.make_node("QuantizeLinear", [t, s_name, z_name], [q], name=base + "_Q"),
                      helper.make_node("DequantizeLinear", [q, s_name, z_name], [dq], name=base + "_DQ")]
        rename[t] = dq

    out_nodes = list(pending.pop(g.input[0].name, []))
    weight_node_names = {id(n) for n in weight_matmuls}
    for n in g.node:
        for i, name in enumerate(n.input):
            if name in rename:
                n.input[i] = rename[name]
        if id(n) in weight_node_names:
            w = inits[n.input[1]]  # [K, N]: output channels are columns
            scales, wq_t = weight_params(w.T)
            base = (n.name or n.output[0]).replace("/", "_").strip("_")
            wq_name = add_init(base + "_weight_quantized", wq_t.T.copy())
            ws_name = add_init(base + "_weight_scale", scales)
            wz_name = add_init(base + "_weight_zero_point", np.zeros(scales.shape, np.int8))
            out_nodes.append(helper.make_node("DequantizeLinear", [wq_name, ws_name, wz_name], [base + "_weight"],
                                              name=base + "_weight_DQ", axis=1))
            n.input[1] = base + "_weight"
        out_nodes.append(n)
        if n.output[0] in pending:
            out_nodes.extend(pending.pop(n.output[0]))
    assert not pending, pending
    save_rewritten(model, out_nodes, new_inits, "openge bench/qdq_quantize_transformer.py", args.int8)
    print(json.dumps({"model": args.int8, "quantized_tensors": len(to_quantize), "calibration_inputs": args.calib,
                      "calib_seed": args.calib_seed, "weight_matmuls": len(weight_matmuls)}))


if __name__ == "__main__":
    main()
