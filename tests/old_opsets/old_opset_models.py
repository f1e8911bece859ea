#!/usr/bin/python3
"""Models of ONNX opsets 1-6, each run through `openge run`, against NumPy.

Every case builds one small model with onnx.helper at an old opset, in the old form of its op
(consumed_inputs, broadcast/axis, Concat without axis, Reshape's shape attribute, Cast's type
name, Pad's paddings, BatchNormalization's is_test/spatial, Upsample-1's scales …), and either
  - computes the expected outputs with NumPy from the old opset's definition, independently of
    OpenGE, and compares (exact for integers and bools, rtol 1e-5 for floats), or
  - expects one clear refusal: exit 1 and a message naming the node, the op and the opset.

Usage: old_opset_models.py --openge BUILD/openge [--work DIR] [--filter REGEX]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(7)
NP_TO_ONNX = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int32): TensorProto.INT32,
              np.dtype(np.int64): TensorProto.INT64, np.dtype(np.bool_): TensorProto.BOOL}


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


class Case:
    def __init__(self, name, opset, nodes, inputs, expected=None, initializers=None, error=None,
                 ir_version=3, no_opset_import=False):
        self.name = name
        self.opset = opset
        self.nodes = nodes
        self.inputs = inputs                  # [(name, array)] fed at run time
        self.initializers = initializers or []  # [(name, array)]
        self.expected = expected or []        # [(name, array)] graph outputs
        self.error = error                    # fragments the refusal must contain
        self.ir_version = ir_version
        self.no_opset_import = no_opset_import

    def model(self):
        def info(name, arr):
            return helper.make_tensor_value_info(name, NP_TO_ONNX[arr.dtype], arr.shape)
        outputs = [helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype], None) for n, a in self.expected]
        if not outputs:  # refusal cases: the output of the last node
            outputs = [helper.make_empty_tensor_value_info(self.nodes[-1].output[0])]
            outputs[0].type.tensor_type.elem_type = TensorProto.FLOAT
        inits = [numpy_helper.from_array(a, n) for n, a in self.initializers]
        # IR < 4 lists initializers among the graph inputs too.
        graph_inputs = [info(n, a) for n, a in self.inputs] + [info(n, a) for n, a in self.initializers]
        graph = helper.make_graph(self.nodes, self.name, graph_inputs, outputs, initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                                  producer_name="openge-old-opset-tests")
        model.ir_version = self.ir_version
        if self.no_opset_import:
            del model.opset_import[:]
        return model


def node(op, inputs, outputs, name, **attrs):
    return helper.make_node(op, inputs, outputs, name=name, **attrs)


# ---------------------------------------------------------------------------------------------
# NumPy references

def batch_norm(x, scale, b, mean, var, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return ((x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * scale.reshape(shape)
            + b.reshape(shape)).astype(np.float32)


def upsample_linear_asymmetric(x, sh, sw):
    """Upsample (bilinear) with output = floor(dim * scale), source = dst / scale, clamped."""
    n, c, h, w = x.shape
    oh, ow = int(np.floor(h * sh)), int(np.floor(w * sw))
    ys = np.minimum(np.arange(oh) / sh, h - 1)
    xs = np.minimum(np.arange(ow) / sw, w - 1)
    y0 = np.floor(ys).astype(int); x0 = np.floor(xs).astype(int)
    y1 = np.minimum(y0 + 1, h - 1); x1 = np.minimum(x0 + 1, w - 1)
    dy = (ys - y0)[:, None]; dx = (xs - x0)[None, :]
    top = x[:, :, y0][:, :, :, x0] * (1 - dx) + x[:, :, y0][:, :, :, x1] * dx
    bot = x[:, :, y1][:, :, :, x0] * (1 - dx) + x[:, :, y1][:, :, :, x1] * dx
    return (top * (1 - dy) + bot * dy).astype(np.float32)


def conv2d(x, w, b):
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    out = np.zeros((n, m, h - kh + 1, wd - kw + 1), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,mc->nmhw", x[:, :, i:i + out.shape[2], j:j + out.shape[3]], w[:, :, i, j])
    return (out + b.reshape(1, -1, 1, 1)).astype(np.float32)


def softmax_2d(x, axis):
    flat = x.reshape(int(np.prod(x.shape[:axis])), -1)
    e = np.exp(flat - flat.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).reshape(x.shape).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# Cases

def cases():
    out = []
    a4 = f32(2, 3, 4, 5)
    b3, b34, b5 = f32(3), f32(3, 4), f32(5)
    # Binary ops: broadcast / axis (opsets 1-6) and consumed_inputs (1-5).
    out.append(Case("add1_broadcast_axis1_consumed_inputs", 1,
                    [node("Add", ["a", "b"], ["y"], "add", broadcast=1, axis=1, consumed_inputs=[0, 0])],
                    [("a", a4)], [("y", a4 + b3[None, :, None, None])], initializers=[("b", b3)]))
    out.append(Case("mul6_broadcast_axis1_runtime_b", 6,
                    [node("Mul", ["a", "b"], ["y"], "mul", broadcast=1, axis=1)],
                    [("a", a4), ("b", b34)], [("y", a4 * b34[None, :, :, None])]))
    out.append(Case("sub6_broadcast_suffix", 6, [node("Sub", ["a", "b"], ["y"], "sub", broadcast=1)],
                    [("a", a4), ("b", b5)], [("y", a4 - b5)]))
    a_eq = f32(2, 3, 4, 5)
    out.append(Case("div5_same_shape_consumed_inputs", 5,
                    [node("Div", ["a", "b"], ["y"], "div", consumed_inputs=[1, 0])],
                    [("a", a4), ("b", a_eq)], [("y", a4 / a_eq)]))
    ia = RNG.integers(0, 3, (3, 4)).astype(np.int32)
    ib = RNG.integers(0, 3, (3,)).astype(np.int32)
    out.append(Case("equal1_broadcast_axis0", 1, [node("Equal", ["a", "b"], ["y"], "eq", broadcast=1, axis=0)],
                    [("a", ia), ("b", ib)], [("y", ia == ib[:, None])]))
    pa, pb = np.abs(f32(2, 3)) + 0.5, f32(3)
    out.append(Case("pow1_broadcast_axis1", 1, [node("Pow", ["a", "b"], ["y"], "pow", broadcast=1, axis=1)],
                    [("a", pa), ("b", pb)], [("y", np.power(pa, pb[None, :]).astype(np.float32))]))
    out.append(Case("add6_broadcast_axis_too_far", 6,
                    [node("Add", ["a", "b"], ["y"], "add_bad", broadcast=1, axis=3)],
                    [("a", a4)], initializers=[("b", b34)], error=["Add 'add_bad'", "broadcast axis 3"]))
    # Conv, then its bias as an opset 1-6 Add with axis 1, then Relu: the fusion passes see a
    # NumPy-broadcast Add of a [C,1,1] constant.
    xc, wc, bc = f32(1, 2, 5, 5), f32(3, 2, 3, 3), f32(3)
    out.append(Case("conv_add_axis1_relu_opset6", 6,
                    [node("Conv", ["x", "w"], ["c"], "conv", kernel_shape=[3, 3]),
                     node("Add", ["c", "b"], ["s"], "bias", broadcast=1, axis=1),
                     node("Relu", ["s"], ["y"], "relu")],
                    [("x", xc)], [("y", np.maximum(conv2d(xc, wc, bc), 0))],
                    initializers=[("w", wc), ("b", bc)]))
    # Gemm opsets 1-6: broadcast attribute on C.
    ga, gb, gc = f32(3, 4), f32(4, 5), f32(5)
    out.append(Case("gemm6_broadcast_c", 6,
                    [node("Gemm", ["a", "b", "c"], ["y"], "gemm", broadcast=1, alpha=0.5, beta=2.0)],
                    [("a", ga)], [("y", (0.5 * ga @ gb + 2.0 * gc).astype(np.float32))],
                    initializers=[("b", gb), ("c", gc)]))
    # Concat without axis (opsets 1-3): axis 1.
    c1, c2 = f32(2, 3, 2), f32(2, 1, 2)
    out.append(Case("concat3_default_axis", 3, [node("Concat", ["p", "q"], ["y"], "concat")],
                    [("p", c1), ("q", c2)], [("y", np.concatenate([c1, c2], axis=1))]))
    # Reshape's shape attribute (opsets 1-4).
    r = f32(2, 3, 4)
    out.append(Case("reshape4_shape_attribute", 4,
                    [node("Reshape", ["x"], ["y"], "reshape", shape=[4, 0, -1], consumed_inputs=[0])],
                    [("x", r)], [("y", r.reshape(4, 3, 2))]))
    # Cast's type by name (opsets 1-5).
    cx = np.array([[1.7, -2.5, 0.2], [3.9, -0.9, 100.0]], np.float32)
    out.append(Case("cast1_type_name", 1, [node("Cast", ["x"], ["y"], "cast", to="INT32")],
                    [("x", cx)], [("y", np.trunc(cx).astype(np.int32))]))
    out.append(Case("cast1_bad_type_name", 1, [node("Cast", ["x"], ["y"], "cast_bad", to="FLOATY")],
                    [("x", cx)], error=["Cast 'cast_bad'", "opset 1", "FLOATY"]))
    # Pad-1's paddings.
    px = f32(2, 3)
    out.append(Case("pad1_paddings", 1, [node("Pad", ["x"], ["y"], "pad", paddings=[0, 1, 1, 2], value=1.5)],
                    [("x", px)], [("y", np.pad(px, ((0, 1), (1, 2)), constant_values=1.5))]))
    # Slice-1 attributes.
    sx = f32(3, 5)
    out.append(Case("slice1_attributes", 1, [node("Slice", ["x"], ["y"], "slice", axes=[1], starts=[1], ends=[4])],
                    [("x", sx)], [("y", sx[:, 1:4])]))
    # Clip-1: consumed_inputs, min only (no upper bound).
    out.append(Case("clip1_min_only", 1, [node("Clip", ["x"], ["y"], "clip", min=-0.3, consumed_inputs=[0])],
                    [("x", sx)], [("y", np.maximum(sx, np.float32(-0.3)))]))
    # Activations with consumed_inputs and their opset-1 defaults.
    ax = f32(2, 6)
    selu = np.where(ax > 0, 1.0507 * ax, 1.0507 * 1.6732 * (np.exp(ax) - 1)).astype(np.float32)
    out.append(Case("selu1_defaults", 1, [node("Selu", ["x"], ["y"], "selu", consumed_inputs=[0])],
                    [("x", ax)], [("y", selu)]))
    selu6 = np.where(ax > 0, 1.0507009873554805 * ax,
                     1.0507009873554805 * 1.6732632423543772 * (np.exp(ax) - 1)).astype(np.float32)
    out.append(Case("selu6_defaults", 6, [node("Selu", ["x"], ["y"], "selu")], [("x", ax)], [("y", selu6)]))
    out.append(Case("leakyrelu1", 1, [node("LeakyRelu", ["x"], ["y"], "lrelu", consumed_inputs=[0])],
                    [("x", ax)], [("y", np.where(ax > 0, ax, 0.01 * ax).astype(np.float32))]))
    out.append(Case("hardsigmoid1", 1,
                    [node("HardSigmoid", ["x"], ["y"], "hsig", alpha=0.3, consumed_inputs=[0])],
                    [("x", ax)], [("y", np.clip(0.3 * ax + 0.5, 0, 1).astype(np.float32))]))
    s1, s2, s3 = f32(2, 3), f32(2, 3), f32(2, 3)
    out.append(Case("sum5_consumed_inputs", 5, [node("Sum", ["a", "b", "c"], ["y"], "sum", consumed_inputs=[0, 0, 0])],
                    [("a", s1), ("b", s2), ("c", s3)], [("y", s1 + s2 + s3)]))
    # Softmax-1: coerced to 2-D at axis 1.
    smx = f32(2, 3, 4)
    out.append(Case("softmax1_flattens", 1, [node("Softmax", ["x"], ["y"], "softmax")],
                    [("x", smx)], [("y", softmax_2d(smx, 1))]))
    # BatchNormalization: is_test / spatial / consumed_inputs.
    bx = f32(2, 3, 4, 4)
    sc, bb, mn, vr = f32(3), f32(3), f32(3), np.abs(f32(3)) + 0.5
    out.append(Case("batchnorm6_is_test", 6,
                    [node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], "bn", is_test=1, epsilon=1e-3)],
                    [("x", bx)], [("y", batch_norm(bx, sc, bb, mn, vr, 1e-3))],
                    initializers=[("s", sc), ("b", bb), ("m", mn), ("v", vr)]))
    bmean = bx.mean(axis=(0, 2, 3)); bvar = bx.var(axis=(0, 2, 3))
    out.append(Case("batchnorm6_training_batch_statistics", 6,
                    [node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], "bn_train", is_test=0)],
                    [("x", bx)], [("y", batch_norm(bx, sc, bb, bmean, bvar, 1e-5))],
                    initializers=[("s", sc), ("b", bb), ("m", mn), ("v", vr)]))
    ps, pb_, pm, pv = f32(3, 4, 4), f32(3, 4, 4), f32(3, 4, 4), np.abs(f32(3, 4, 4)) + 0.5
    per_act = ((bx - pm) / np.sqrt(pv + 1e-5) * ps + pb_).astype(np.float32)
    out.append(Case("batchnorm5_per_activation", 5,
                    [node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], "bn_pa", is_test=1, spatial=0,
                          consumed_inputs=[0, 0, 0, 1, 1])],
                    [("x", bx)], [("y", per_act)],
                    initializers=[("s", ps), ("b", pb_), ("m", pm), ("v", pv)]))
    # Dropout: is_test = 1 is the identity; is_test = 0 would draw a random mask.
    out.append(Case("dropout6_is_test", 6, [node("Dropout", ["x"], ["y"], "drop", is_test=1, ratio=0.3)],
                    [("x", ax)], [("y", ax)]))
    out.append(Case("dropout6_training_refused", 6, [node("Dropout", ["x"], ["y"], "drop_train", ratio=0.3)],
                    [("x", ax)], error=["Dropout 'drop_train'", "opset 6", "is_test"]))
    # Upsample-1: height_scale / width_scale.
    ux = f32(1, 2, 3, 4)
    out.append(Case("upsample1_nearest", 1,
                    [node("Upsample", ["x"], ["y"], "up", height_scale=2.0, width_scale=3.0)],
                    [("x", ux)], [("y", ux.repeat(2, axis=2).repeat(3, axis=3))]))
    out.append(Case("upsample6_bilinear", 6,
                    [node("Upsample", ["x"], ["y"], "up_bl", height_scale=2.0, width_scale=2.0, mode="bilinear")],
                    [("x", ux)], [("y", upsample_linear_asymmetric(ux, 2.0, 2.0))]))
    # PRelu before opset 7: a one-value slope; a per-channel slope is ambiguous and refused.
    out.append(Case("prelu6_one_slope", 6, [node("PRelu", ["x", "s"], ["y"], "prelu")],
                    [("x", ax)], [("y", np.where(ax < 0, np.float32(0.25) * ax, ax).astype(np.float32))],
                    initializers=[("s", np.array([0.25], np.float32))]))
    out.append(Case("prelu6_channel_slope_refused", 6, [node("PRelu", ["x", "s"], ["y"], "prelu_c")],
                    [("x", bx)], initializers=[("s", sc)], error=["PRelu 'prelu_c'", "opset 6", "slope"]))
    # Split: attribute from opset 2; Split-1's second input is refused.
    spx = f32(2, 6)
    out.append(Case("split2_attribute", 2, [node("Split", ["x"], ["y0", "y1"], "split", axis=1, split=[2, 4])],
                    [("x", spx)], [("y0", spx[:, :2]), ("y1", spx[:, 2:])]))
    out.append(Case("split1_constant_sizes_input", 1,
                    [node("Split", ["x", "sizes"], ["y0", "y1"], "split_in", axis=1)],
                    [("x", spx)], [("y0", spx[:, :1]), ("y1", spx[:, 1:])],
                    initializers=[("sizes", np.array([1, 5], np.int64))]))
    out.append(Case("split1_runtime_sizes_refused", 1,
                    [node("Split", ["x", "sizes"], ["y0", "y1"], "split_rt", axis=1)],
                    [("x", spx), ("sizes", np.array([2, 4], np.int64))],
                    error=["Split 'split_rt'", "opset 1", "constant"]))
    out.append(Case("tile5_refused", 5, [node("Tile", ["x", "t", "ax"], ["y"], "tile")],
                    [("x", spx)], initializers=[("t", np.array([2], np.int64)), ("ax", np.array([1], np.int64))],
                    error=["Tile 'tile'", "opset 5"]))
    # Inputs that later opsets added do not exist in old ones.
    out.append(Case("unsqueeze6_axes_input_refused", 6, [node("Unsqueeze", ["x", "axes"], ["y"], "unsq")],
                    [("x", spx)], initializers=[("axes", np.array([0], np.int64))],
                    error=["Unsqueeze 'unsq'", "opset 6", "takes at most 1"]))
    out.append(Case("expand6_does_not_exist", 6, [node("Expand", ["x", "shape"], ["y"], "expand")],
                    [("x", spx)], initializers=[("shape", np.array([2, 6], np.int64))],
                    error=["Expand 'expand'", "opset 6"]))
    # TopK-1: k as an attribute.
    tx = f32(2, 5)
    order = np.argsort(-tx, axis=1, kind="stable")[:, :2]
    out.append(Case("topk1_k_attribute", 1, [node("TopK", ["x"], ["v", "i"], "topk", k=2)],
                    [("x", tx)], [("v", np.take_along_axis(tx, order, axis=1)), ("i", order.astype(np.int64))]))
    # IR version 1-2 models have no opset_import: opset 1.
    out.append(Case("ir2_no_opset_import", 1, [node("Relu", ["x"], ["y"], "relu", consumed_inputs=[0])],
                    [("x", ax)], [("y", np.maximum(ax, 0))], ir_version=2, no_opset_import=True))
    return out


# ---------------------------------------------------------------------------------------------

def run_case(case, openge, work_root):
    work = tempfile.mkdtemp(prefix=case.name + "_", dir=work_root)
    try:
        model_path = os.path.join(work, "model.onnx")
        onnx.save(case.model(), model_path)
        in_dir, out_dir = os.path.join(work, "in"), os.path.join(work, "out")
        os.makedirs(in_dir)
        os.makedirs(out_dir)
        for i, (name, arr) in enumerate(case.inputs):
            with open(os.path.join(in_dir, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(arr, name).SerializeToString())
        proc = subprocess.run([openge, "run", "--model", model_path, "--inputs", in_dir, "--outputs", out_dir],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60,
                              env=dict(os.environ, OMP_NUM_THREADS="1"))
        text = proc.stdout.decode("utf-8", "replace").strip()
        if case.error:
            if proc.returncode != 1:
                return f"expected exit 1 (a refusal), got {proc.returncode}: {text[-300:]}"
            missing = [frag for frag in case.error if frag not in text]
            return f"the message lacks {missing}: {text[-300:]}" if missing else ""
        if proc.returncode != 0:
            return f"exit {proc.returncode}: {text[-300:]}"
        for j, (name, want) in enumerate(case.expected):
            path = os.path.join(out_dir, f"output_{j}.pb")
            if not os.path.exists(path):
                return f"output_{j}.pb ({name}) was not written"
            t = TensorProto()
            with open(path, "rb") as f:
                t.ParseFromString(f.read())
            got = numpy_helper.to_array(t)
            if got.dtype != want.dtype or got.shape != want.shape:
                return f"{name}: got {got.dtype}{list(got.shape)}, expected {want.dtype}{list(want.shape)}"
            if want.dtype.kind == "f":
                if not np.allclose(got, want, rtol=1e-5, atol=1e-6):
                    return f"{name}: max abs difference {np.max(np.abs(got - want))}"
            elif not np.array_equal(got, want):
                return f"{name}: values differ"
        return ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openge", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("--filter", default="")
    args = ap.parse_args()
    if args.work:
        os.makedirs(args.work, exist_ok=True)
    work_root = tempfile.mkdtemp(prefix="old_opsets_", dir=args.work)
    failures = 0
    selected = [c for c in cases() if re.search(args.filter, c.name)]
    for case in selected:
        problem = run_case(case, args.openge, work_root)
        print(f"{'FAIL' if problem else 'ok  '} {case.name} (opset {case.opset}){': ' + problem if problem else ''}")
        failures += bool(problem)
    shutil.rmtree(work_root, ignore_errors=True)
    print(f"{len(selected) - failures} of {len(selected)} old-opset cases pass")
    return 1 if failures or not selected else 0


if __name__ == "__main__":
    sys.exit(main())
