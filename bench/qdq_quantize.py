#!/usr/bin/python3
"""Makes an int8 QDQ model from a float32 CNN (ResNet-style ONNX export: Conv, Relu, Add, MaxPool,
GlobalAveragePool, Flatten, Gemm, Identity), with onnx.helper and NumPy only (ONNX Runtime's
quantization tool is not used):

  - weights: int8, symmetric, one scale per output channel (DequantizeLinear axis 0), |q| <= 127;
  - biases: int32, scale = x_scale * w_scale[m] (float32), zero point 0; with --float-bias the
    float32 biases are left as they are (the form some quantizers write), for OpenGE to quantize;
  - with --float-residual, a Conv whose output is a residual Add's first input gets no Q/DQ of its
    own: the Add reads its float output (the form ONNX Runtime's quantizer leaves before an Add);
  - activations: uint8, one scale and zero point per tensor, from the min/max (always including 0)
    of each tensor over calibration inputs, computed by a NumPy forward pass of the float model;
  - QuantizeLinear -> DequantizeLinear on every Conv/Gemm input and on every Conv output (after
    its Relu when the Relu is the Conv's only reader, whose range then starts at 0 so that the
    zero point is 0); every reader of a quantized tensor reads the DequantizeLinear. Add, MaxPool,
    GlobalAveragePool and Flatten stay float, between DequantizeLinear and QuantizeLinear.

Calibration inputs are standard normal draws from numpy.random.default_rng(seed) for seeds
--calib-seed, --calib-seed + 1, ... (the model's input shape).

Usage: /usr/bin/python3 bench/qdq_quantize.py FP32.onnx INT8.onnx [--calib 8] [--calib-seed 1000] [--float-bias] [--float-residual]
"""
import argparse
import json

import numpy as np
import onnx
from numpy.lib.stride_tricks import sliding_window_view
from onnx import helper, numpy_helper

F = np.float32


# ---- a NumPy forward pass of the float model (for calibration) -----------------------------

def conv2d(x, w, b, attrs):
    sh, sw = attrs.get("strides", [1, 1])
    pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
    group = attrs.get("group", 1)
    if attrs.get("dilations", [1, 1]) != [1, 1]:
        raise ValueError("dilated Conv is not supported by this calibrator")
    n, c, _, _ = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    win = sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]  # N C OH OW kh kw
    oh, ow = win.shape[2], win.shape[3]
    outs = []
    mg = m // group
    for g in range(group):
        cols = win[:, g * cg:(g + 1) * cg].transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, cg * kh * kw)
        wg = w[g * mg:(g + 1) * mg].reshape(mg, -1)
        outs.append((cols @ wg.T).reshape(n, oh, ow, mg).transpose(0, 3, 1, 2))
    y = np.concatenate(outs, axis=1)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y.astype(F)


def maxpool(x, attrs):
    kh, kw = attrs["kernel_shape"]
    sh, sw = attrs.get("strides", [1, 1])
    pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=-np.inf)
    return sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw].max(axis=(4, 5))


def gemm(a, b, c, attrs):
    if attrs.get("transA", 0):
        a = a.T
    if attrs.get("transB", 0):
        b = b.T
    y = attrs.get("alpha", 1.0) * (a @ b)
    if c is not None:
        y = y + attrs.get("beta", 1.0) * c
    return y.astype(F)


def attrs_of(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def forward(graph, inits, x, wanted):
    """Runs the float graph on x and returns {name: array} for the tensors in `wanted`."""
    env = dict(inits)
    env[graph.input[0].name] = x
    found = {}
    for node in graph.node:
        a = attrs_of(node)
        ins = [env[i] if i else None for i in node.input]
        op = node.op_type
        if op == "Conv":
            y = conv2d(ins[0], ins[1], ins[2] if len(ins) > 2 else None, a)
        elif op == "Relu":
            y = np.maximum(ins[0], 0)
        elif op == "Add":
            y = ins[0] + ins[1]
        elif op == "MaxPool":
            y = maxpool(ins[0], a)
        elif op == "GlobalAveragePool":
            y = ins[0].mean(axis=(2, 3), keepdims=True)
        elif op == "Flatten":
            y = ins[0].reshape(ins[0].shape[0], -1)
        elif op == "Gemm":
            y = gemm(ins[0], ins[1], ins[2] if len(ins) > 2 else None, a)
        elif op == "Identity":
            y = ins[0]
        else:
            raise ValueError(f"op {op} is not supported by this calibrator")
        env[node.output[0]] = y
        if node.output[0] in wanted:
            found[node.output[0]] = y
    return found


# ---- quantization ----------------------------------------------------------------------------

def activation_params(lo, hi):
    """uint8 scale and zero point for the range [lo, hi] widened to include 0."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = F((hi - lo) / 255.0) if hi > lo else F(1.0)
    zp = int(np.clip(np.rint(-lo / float(scale)), 0, 255))
    return scale, np.uint8(zp)


def weight_params(w):
    """Per-output-channel symmetric int8: scales [M] and the quantized weights."""
    amax = np.abs(w.reshape(w.shape[0], -1)).max(axis=1).astype(F)
    scales = np.where(amax > 0, amax / F(127), F(1)).astype(F)
    q = np.clip(np.rint(w / scales.reshape((-1,) + (1,) * (w.ndim - 1))), -127, 127).astype(np.int8)
    return scales, q


def save_rewritten(model, nodes, inits, producer, path):
    """Replaces the graph's nodes, keeps the initializers some node still reads, drops the stale
    value_info (shapes of renamed tensors), checks the model and saves it."""
    g = model.graph
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    used = {name for n in g.node for name in n.input}
    g.initializer.extend(i for i in inits if i.name in used)
    del g.value_info[:]
    model.producer_name = producer
    onnx.checker.check_model(model)
    onnx.save(model, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fp32")
    ap.add_argument("int8")
    ap.add_argument("--calib", type=int, default=8)
    ap.add_argument("--calib-seed", type=int, default=1000)
    ap.add_argument("--float-bias", action="store_true", help="keep the float32 biases (no int32 DequantizeLinear)")
    ap.add_argument("--float-residual", action="store_true",
                    help="no Q/DQ on a Conv output that is a residual Add's first input (the Add reads it in float)")
    args = ap.parse_args()

    model = onnx.load(args.fp32)
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    # Identity of an initializer (the exporter's shared biases): a copy of the initializer.
    alias = {n.output[0]: n.input[0] for n in g.node if n.op_type == "Identity" and n.input[0] in inits}
    nodes = [n for n in g.node if n.output[0] not in alias]
    for n in nodes:
        for i, name in enumerate(n.input):
            if name in alias:
                n.input[i] = alias[name]
    del g.node[:]
    g.node.extend(nodes)

    readers = {}
    for n in g.node:
        for name in n.input:
            readers.setdefault(name, []).append(n)
    # Tensors to quantize: every Conv/Gemm activation input, every Conv output (after its Relu).
    to_quantize = []
    for n in g.node:
        if n.op_type in ("Conv", "Gemm"):
            to_quantize.append(n.input[0])
        if n.op_type == "Conv":
            r = readers.get(n.output[0], [])
            if args.float_residual and len(r) == 1 and r[0].op_type == "Add" and r[0].input[0] == n.output[0]:
                continue  # the residual Add reads this Conv's float output
            to_quantize.append(r[0].output[0] if len(r) == 1 and r[0].op_type == "Relu" else n.output[0])
    to_quantize = list(dict.fromkeys(to_quantize))

    shape = [d.dim_value for d in g.input[0].type.tensor_type.shape.dim]
    lo = {t: np.inf for t in to_quantize}
    hi = {t: -np.inf for t in to_quantize}
    for k in range(args.calib):
        x = np.random.default_rng(args.calib_seed + k).standard_normal(shape).astype(F)
        acts = forward(g, inits, x, set(to_quantize))
        acts[g.input[0].name] = x
        for t in to_quantize:
            lo[t] = min(lo[t], float(acts[t].min()))
            hi[t] = max(hi[t], float(acts[t].max()))

    new_inits = [i for i in g.initializer if i.name not in {n.input[1] for n in g.node if n.op_type in ("Conv", "Gemm")}]
    new_nodes, act_scale = [], {}

    def add_init(name, arr):
        new_inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    # Q -> DQ pairs; readers are redirected to the DQ output.
    rename = {}
    for t in to_quantize:
        s, z = activation_params(lo[t], hi[t])
        act_scale[t] = s
        base = t.replace("/", "_").strip("_")
        s_name, z_name = add_init(base + "_scale", s), add_init(base + "_zero_point", z)
        q, dq = base + "_quantized", base + "_dequantized"
        new_nodes.append((t, [helper.make_node("QuantizeLinear", [t, s_name, z_name], [q], name=base + "_Q"),
                              helper.make_node("DequantizeLinear", [q, s_name, z_name], [dq], name=base + "_DQ")]))
        rename[t] = dq

    out_nodes = []
    pending = {t: pair for t, pair in new_nodes}
    if g.input[0].name in pending:
        out_nodes.extend(pending.pop(g.input[0].name))
    for n in g.node:
        x_name = n.input[0]
        for i, name in enumerate(n.input):
            if name in rename:
                n.input[i] = rename[name]
        if n.op_type in ("Conv", "Gemm"):
            w = inits[n.input[1]]
            trans_b = n.op_type == "Gemm" and attrs_of(n).get("transB", 0)
            wk = w if (n.op_type == "Conv" or trans_b) else w.T  # output channel first
            scales, wq = weight_params(wk)
            if n.op_type == "Gemm" and not trans_b:
                wq = wq.T
            base = n.name.replace("/", "_").strip("_") or n.output[0]
            wq_name = add_init(base + "_weight_quantized", wq)
            ws_name = add_init(base + "_weight_scale", scales)
            wz_name = add_init(base + "_weight_zero_point", np.zeros(scales.shape, np.int8))
            axis = 0 if (n.op_type == "Conv" or trans_b) else 1
            out_nodes.append(helper.make_node("DequantizeLinear", [wq_name, ws_name, wz_name], [base + "_weight"],
                                              name=base + "_weight_DQ", axis=axis))
            n.input[1] = base + "_weight"
            if len(n.input) > 2 and n.input[2] and not args.float_bias:
                b = inits[n.input[2]].astype(np.float64)
                bs = (act_scale[x_name] * scales).astype(F)  # float32 product, as the quantized op defines
                bq = np.clip(np.rint(b / bs.astype(np.float64)), -2**31, 2**31 - 1).astype(np.int32)
                bq_name = add_init(base + "_bias_quantized", bq)
                bs_name = add_init(base + "_bias_scale", bs)
                bz_name = add_init(base + "_bias_zero_point", np.zeros(bs.shape, np.int32))
                out_nodes.append(helper.make_node("DequantizeLinear", [bq_name, bs_name, bz_name], [base + "_bias"],
                                                  name=base + "_bias_DQ", axis=0))
                n.input[2] = base + "_bias"
        out_nodes.append(n)
        if n.output[0] in pending:
            out_nodes.extend(pending.pop(n.output[0]))
    assert not pending, pending
    save_rewritten(model, out_nodes, new_inits, "openge bench/qdq_quantize.py", args.int8)
    print(json.dumps({"model": args.int8, "quantized_tensors": len(to_quantize), "calibration_inputs": args.calib,
                      "calib_seed": args.calib_seed,
                      "int8_cube_ops": sum(n.op_type in ("Conv", "Gemm") for n in g.node)}))


if __name__ == "__main__":
    main()
