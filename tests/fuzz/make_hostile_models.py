#!/usr/bin/python3
"""Builds hostile ONNX files for the loader: truncations, byte flips and hand-made invalid
models, derived from a few small valid models (made with onnx.helper).

Every case says what OpenGE must do with it:
  "invalid" - the file is certainly not a valid ONNX model that OpenGE could run (broken
              protobuf, violated ONNX rule, unsupported opset, hostile size or path): the CLI
              must exit non-zero with one error line.
  "maybe"   - a random mutation that still parses and passes onnx.checker (e.g. a flipped bit
              inside a weight): the CLI may run it, or refuse it with one error line.
A random mutation that parses but fails onnx.checker is "invalid" unless the checker's
objection is one OpenGE may legitimately ignore (see _checker_verdict).

Usage as a script:
  make_hostile_models.py OUT_DIR           writes all cases (OUT_DIR/manifest.json lists them)
  make_hostile_models.py --seeds OUT_DIR   writes fuzzer seeds (valid bases + hand-made cases)
The output is deterministic (fixed seeds).
"""
import json
import os
import random
import struct
import sys
import tempfile
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 7


# ---------------------------------------------------------------------------------------------
# Valid base models. Each: (name, model, {input_index: np.ndarray}, {relative path: bytes}).

def _model(nodes, inputs, outputs, initializers, opset=OPSET, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="openge-hostile-tests")
    model.ir_version = IR_VERSION
    return model


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def base_conv():
    """Conv -> Relu -> Reshape -> MatMul -> Add -> Softmax; float weights as raw_data."""
    rng = np.random.default_rng(1)
    inits = [
        numpy_helper.from_array(_f32(rng, 4, 3, 3, 3), "conv.w"),
        numpy_helper.from_array(_f32(rng, 4), "conv.b"),
        numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "flat.shape"),
        numpy_helper.from_array(_f32(rng, 256, 10), "fc.w"),
        numpy_helper.from_array(_f32(rng, 10), "fc.b"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "conv.w", "conv.b"], ["c"], name="conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Reshape", ["r", "flat.shape"], ["f"], name="flatten"),
        helper.make_node("MatMul", ["f", "fc.w"], ["m"], name="fc"),
        helper.make_node("Add", ["m", "fc.b"], ["logits"], name="bias"),
        helper.make_node("Softmax", ["logits"], ["y"], name="softmax", axis=1),
    ]
    model = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    return "conv", model, {0: _f32(rng, 1, 3, 8, 8)}, {}


def base_shapes():
    """MatMul/Add/Relu plus Shape/Gather/Unsqueeze/Concat/Reshape/Transpose; typed-field
    (non-raw) int64 and float initializers."""
    inits = [
        helper.make_tensor("w", TensorProto.FLOAT, [4, 6], [0.1 * i for i in range(24)]),
        helper.make_tensor("b", TensorProto.FLOAT, [6], [0.5, -0.5, 1, -1, 2, -2]),
        helper.make_tensor("idx0", TensorProto.INT64, [], [0]),
        helper.make_tensor("tail", TensorProto.INT64, [2], [3, 2]),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
        helper.make_node("Add", ["m", "b"], ["a"], name="add"),
        helper.make_node("Relu", ["a"], ["r"], name="relu"),
        helper.make_node("Shape", ["r"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "idx0"], ["n"], name="gather", axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsq"),
        helper.make_node("Concat", ["n1", "tail"], ["newshape"], name="concat", axis=0),
        helper.make_node("Reshape", ["r", "newshape"], ["rs"], name="reshape"),
        helper.make_node("Transpose", ["rs"], ["y"], name="transpose", perm=[0, 2, 1]),
    ]
    inits.append(helper.make_tensor("axes", TensorProto.INT64, [1], [0]))
    model = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2, 3])], inits)
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    return "shapes", model, {0: x}, {}


def base_external():
    """Add with a weight stored as external data in weights.bin next to the model."""
    w = (np.arange(6, dtype=np.float32) + 1).reshape(2, 3)
    ext = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2, 3])
    _set_external(ext, "weights.bin", offset=16, length=w.nbytes)
    blob = b"\0" * 16 + w.tobytes() + b"\0" * 8
    nodes = [helper.make_node("Add", ["x", "w"], ["a"], name="add"),
             helper.make_node("Mul", ["a", "x"], ["y"], name="mul")]
    model = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [ext])
    return "external", model, {0: np.ones((2, 3), np.float32)}, {"weights.bin": blob}


BASES = [base_conv, base_shapes, base_external]


def _set_external(tensor, location, offset=None, length=None, raw_keys=None):
    tensor.ClearField("raw_data")
    tensor.ClearField("float_data")
    tensor.data_location = TensorProto.EXTERNAL
    del tensor.external_data[:]
    entries = raw_keys if raw_keys is not None else [("location", location)] + (
        [("offset", str(offset))] if offset is not None else []) + (
        [("length", str(length))] if length is not None else [])
    for k, v in entries:
        e = tensor.external_data.add()
        e.key = k
        e.value = v


# ---------------------------------------------------------------------------------------------
# Cases

class Case:
    def __init__(self, name, base, data, expect, why, files=None, links=None):
        self.name = name          # file stem; the model is written as <name>.onnx
        self.base = base          # base model whose inputs are fed
        self.data = data          # serialized model bytes
        self.expect = expect      # "invalid" or "maybe"
        self.why = why
        self.files = files or {}  # extra files next to the model (external data)
        self.links = links or {}  # symlinks next to the model: name -> target


def _checker_verdict(data, files):
    """("invalid"|"maybe", why) for bytes produced by a random mutation."""
    model = onnx.ModelProto()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.ParseFromString(data)
    except Exception as e:  # protobuf's DecodeError and friends
        return "invalid", f"protobuf does not parse ({type(e).__name__})"
    # The checker resolves external data against the model's folder: check a written copy.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.onnx")
        with open(path, "wb") as f:
            f.write(data)
        for rel, blob in files.items():
            with open(os.path.join(d, rel), "wb") as f:
                f.write(blob)
        try:
            onnx.checker.check_model(path, full_check=True)
        except Exception as e:
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            runnable = (len(model.graph.node) > 0 and len(model.opset_import) > 0
                        and len(model.graph.output) > 0)
            # Objections about metadata that do not make a complete graph unrunnable.
            if runnable and any(k in msg for k in ("ir_version", "IR version",
                                                   "Field 'name' of 'graph'")):
                return "maybe", f"checker objects only to metadata: {msg}"
            return "invalid", f"onnx.checker: {msg}"
    return "maybe", "parses and passes onnx.checker"


def random_mutations(name, model_bytes, files, rng, n_trunc, n_flip):
    cases = []
    size = len(model_bytes)
    # Truncations: every region of the file, plus the first and last bytes.
    offsets = sorted(set([0, 1, 2, 3, size - 1, size - 2] +
                         [int(size * k / n_trunc) for k in range(1, n_trunc)]))
    for off in offsets:
        data = model_bytes[:off]
        expect, why = _checker_verdict(data, files)
        cases.append(Case(f"{name}_trunc_{off:06d}", name, data, expect,
                          f"truncated to {off} of {size} bytes; {why}", files))
    for k in range(n_flip):
        buf = bytearray(model_bytes)
        flips = []
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(size)
            buf[pos] ^= rng.randint(1, 255)
            flips.append(pos)
        data = bytes(buf)
        expect, why = _checker_verdict(data, files)
        cases.append(Case(f"{name}_flip_{k:03d}", name, data, expect,
                          f"bytes flipped at {flips}; {why}", files))
    return cases


def _mutated(model, fn):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    fn(m)
    return m.SerializeToString()


def _init(m, name):
    return next(t for t in m.graph.initializer if t.name == name)


def _node(m, name):
    return next(n for n in m.graph.node if n.name == name)


def _attr(node, name):
    return next(a for a in node.attribute if a.name == name)


def _replace_attr(node, attr):
    for i, a in enumerate(node.attribute):
        if a.name == attr.name:
            del node.attribute[i]
            break
    node.attribute.append(attr)


def structured_mutations(conv, shapes, external):
    """Hand-made invalid models, each breaking one rule. All "invalid"."""
    c_model = conv[1]
    s_model = shapes[1]
    e_model, e_files = external[1], external[3]
    out = []

    def add(name, base, fn, why, model=None, files=None, links=None):
        m = model if model is not None else {"conv": c_model, "shapes": s_model,
                                             "external": e_model}[base]
        out.append(Case(name, base, _mutated(m, fn), "invalid", why, files, links))

    # --- tensors: data size vs dims, hostile dims, bad types
    def set_dims(name, dims):
        return lambda m: (_init(m, name).ClearField("dims"), _init(m, name).dims.extend(dims))
    add("conv_raw_data_short", "conv",
        lambda m: setattr(_init(m, "conv.w"), "raw_data", _init(m, "conv.w").raw_data[:-4]),
        "raw_data one float shorter than dims")
    add("conv_raw_data_long", "conv",
        lambda m: setattr(_init(m, "conv.w"), "raw_data", _init(m, "conv.w").raw_data + b"\0" * 4),
        "raw_data one float longer than dims")
    add("conv_raw_data_odd", "conv",
        lambda m: setattr(_init(m, "conv.b"), "raw_data", _init(m, "conv.b").raw_data + b"\1"),
        "raw_data size not a multiple of the element size")
    add("conv_raw_data_empty", "conv",
        lambda m: setattr(_init(m, "fc.w"), "raw_data", b""), "no data for a [256,10] tensor")
    add("conv_wrong_dims_data", "conv", set_dims("conv.w", [4, 3, 3, 2]),
        "dims [4,3,3,2] for 108 floats")
    add("conv_wrong_dims_channels", "conv",
        lambda m: (set_dims("conv.w", [4, 1, 9, 3])(m), _replace_attr(
            _node(m, "conv"), helper.make_attribute("kernel_shape", [9, 3]))),
        "Conv weight with 1 input channel for a 3-channel input")
    add("conv_huge_dims", "conv", set_dims("conv.w", [1 << 40, 1 << 40, 3, 3]),
        "dims of 2^80 elements")
    add("conv_overflow_dims", "conv", set_dims("fc.w", [1 << 32, 1 << 32, 1 << 32]),
        "dims whose product overflows int64")
    add("conv_max_dims", "conv", set_dims("fc.b", [(1 << 63) - 1]), "dims [INT64_MAX]")
    add("conv_negative_dims", "conv", set_dims("conv.w", [-4, 3, 3, 3]), "negative dim")
    add("conv_negative_dims_pair", "conv", set_dims("fc.w", [-256, -10]),
        "two negative dims whose product is positive")
    add("conv_negative_input_dim", "conv",
        lambda m: setattr(m.graph.input[0].type.tensor_type.shape.dim[2], "dim_value", -8),
        "graph input declares a negative dim")
    add("conv_input_rank_mismatch", "conv",
        lambda m: m.graph.input[0].type.tensor_type.shape.dim.pop(),
        "graph input declared rank 3, the data has rank 4")
    add("conv_input_dim_mismatch", "conv",
        lambda m: setattr(m.graph.input[0].type.tensor_type.shape.dim[1], "dim_value", 5),
        "graph input declared 5 channels, the data has 3")
    add("conv_input_type_mismatch", "conv",
        lambda m: setattr(m.graph.input[0].type.tensor_type, "elem_type", TensorProto.INT32),
        "graph input declared int32, the data is float")
    add("conv_init_dtype_undefined", "conv",
        lambda m: setattr(_init(m, "conv.b"), "data_type", TensorProto.UNDEFINED),
        "initializer with data_type UNDEFINED")
    add("conv_init_dtype_unknown", "conv",
        lambda m: setattr(_init(m, "conv.b"), "data_type", 999), "initializer with data_type 999")
    add("conv_init_dtype_string", "conv",
        lambda m: (setattr(_init(m, "conv.b"), "data_type", TensorProto.STRING),
                   _init(m, "conv.b").ClearField("raw_data"),
                   _init(m, "conv.b").string_data.extend([b"a", b"b", b"c", b"d"])),
        "Conv bias of type string")
    add("shapes_int64_data_short", "shapes",
        lambda m: _init(m, "tail").int64_data.pop(), "int64_data one element short")
    add("shapes_float_data_long", "shapes",
        lambda m: _init(m, "w").float_data.append(1.0), "float_data one element long")
    add("shapes_wrong_typed_field", "shapes",
        lambda m: (_init(m, "tail").ClearField("int64_data"),
                   _init(m, "tail").float_data.extend([3.0, 2.0])),
        "INT64 tensor with its values in float_data")
    add("shapes_duplicate_initializer", "shapes",
        lambda m: m.graph.initializer.append(_init(m, "w")), "initializer 'w' defined twice")
    add("shapes_duplicate_input", "shapes",
        lambda m: m.graph.input.append(m.graph.input[0]), "graph input 'x' declared twice")
    add("conv_sequence_input", "conv",
        lambda m: m.graph.input[0].type.CopyFrom(helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(TensorProto.FLOAT, [1, 3, 8, 8]))),
        "graph input of sequence type fed a tensor")
    add("conv_untyped_input", "conv", lambda m: m.graph.input[0].ClearField("type"),
        "graph input without a type")

    # --- graph structure
    add("shapes_unknown_op", "shapes", lambda m: setattr(_node(m, "relu"), "op_type", "FooBar"),
        "unknown op FooBar")
    add("shapes_unknown_domain", "shapes",
        lambda m: setattr(_node(m, "relu"), "domain", "com.evil"), "op in an unknown domain")
    add("shapes_empty_op_type", "shapes", lambda m: setattr(_node(m, "relu"), "op_type", ""),
        "node without op_type")
    add("shapes_cycle", "shapes",
        lambda m: (_node(m, "mm").input.__setitem__(0, "r")), "MatMul reads Relu's output: cycle")
    add("shapes_self_loop", "shapes",
        lambda m: (_node(m, "relu").input.__setitem__(0, "r")), "Relu reads its own output")
    add("shapes_dangling_input", "shapes",
        lambda m: (_node(m, "add").input.__setitem__(1, "nowhere")),
        "Add reads a value nobody defines")
    add("shapes_duplicate_output", "shapes",
        lambda m: (_node(m, "relu").output.__setitem__(0, "a")),
        "Relu writes 'a', which Add already writes")
    add("shapes_output_shadows_input", "shapes",
        lambda m: (_node(m, "relu").output.__setitem__(0, "x"),
                   _node(m, "shape").input.__setitem__(0, "x"),
                   _node(m, "reshape").input.__setitem__(0, "x")),
        "a node writes the graph input 'x'")
    add("shapes_output_shadows_initializer", "shapes",
        lambda m: (_node(m, "add").output.__setitem__(0, "b"),
                   _node(m, "relu").input.__setitem__(0, "b")),
        "a node writes the initializer 'b'")
    add("shapes_output_not_produced", "shapes",
        lambda m: setattr(m.graph.output[0], "name", "ghost"), "graph output nobody produces")
    add("shapes_no_outputs", "shapes", lambda m: m.graph.ClearField("output"),
        "graph without outputs")
    add("shapes_no_graph", "shapes", lambda m: m.ClearField("graph"), "model without a graph")
    add("shapes_no_opset", "shapes", lambda m: m.ClearField("opset_import"),
        "model without opset_import")
    add("shapes_opset_6", "shapes",
        lambda m: (setattr(m.opset_import[0], "version", 6), setattr(m, "ir_version", 3)),
        "opset 6, where Unsqueeze takes no axes input")
    add("shapes_opset_18", "shapes", lambda m: setattr(m.opset_import[0], "version", 18),
        "default-domain opset 18 (OpenGE runs 1..17)")
    add("shapes_opset_huge", "shapes",
        lambda m: setattr(m.opset_import[0], "version", (1 << 62)), "opset 2^62")
    add("shapes_opset_negative", "shapes", lambda m: setattr(m.opset_import[0], "version", -13),
        "negative opset")
    add("shapes_relu_no_inputs", "shapes", lambda m: _node(m, "relu").ClearField("input"),
        "Relu with no inputs")
    add("shapes_relu_many_inputs", "shapes",
        lambda m: _node(m, "relu").input.extend(["a"] * 100), "Relu with 101 inputs")
    add("shapes_relu_no_outputs", "shapes", lambda m: _node(m, "relu").ClearField("output"),
        "Relu with no outputs (its consumers dangle)")

    # --- attributes: wrong type, hostile values
    add("conv_attr_strides_float", "conv",
        lambda m: _replace_attr(_node(m, "conv"), helper.make_attribute("strides", 1.0)),
        "Conv strides given as a float")
    add("conv_attr_kernel_string", "conv",
        lambda m: _replace_attr(_node(m, "conv"), helper.make_attribute("kernel_shape", "3x3")),
        "Conv kernel_shape given as a string")
    add("shapes_attr_perm_floats", "shapes",
        lambda m: _replace_attr(_node(m, "transpose"),
                                helper.make_attribute("perm", [0.0, 2.0, 1.0])),
        "Transpose perm given as floats")
    add("conv_attr_axis_graph", "conv",
        lambda m: _replace_attr(_node(m, "softmax"), helper.make_attribute(
            "axis", helper.make_graph([], "empty", [], []))),
        "Softmax axis given as a graph")

    def attr_type_lies(m):
        a = _attr(_node(m, "softmax"), "axis")
        a.type = onnx.AttributeProto.FLOAT  # says FLOAT, carries only i
    add("conv_attr_type_lies", "conv", attr_type_lies, "attribute type FLOAT with only an int set")
    add("conv_attr_group_zero", "conv",
        lambda m: _replace_attr(_node(m, "conv"), helper.make_attribute("group", 0)),
        "Conv group 0 (division by zero)")
    add("conv_attr_group_mismatch", "conv",
        lambda m: _replace_attr(_node(m, "conv"), helper.make_attribute("group", 2)),
        "Conv group 2 for 3 input channels")
    add("conv_attr_stride_zero", "conv",
        lambda m: _replace_attr(_node(m, "conv"), helper.make_attribute("strides", [0, 1])),
        "Conv stride 0")
    add("conv_attr_dilation_zero", "conv",
        lambda m: _replace_attr(_node(m, "conv"), helper.make_attribute("dilations", [1, 0])),
        "Conv dilation 0")
    add("conv_attr_pads_huge", "conv",
        lambda m: _replace_attr(_node(m, "conv"), helper.make_attribute(
            "pads", [1 << 62, 1 << 62, 1 << 62, 1 << 62])),
        "Conv pads 2^62 (output size overflows)")
    add("conv_attr_pads_negative", "conv",
        lambda m: _replace_attr(_node(m, "conv"), helper.make_attribute(
            "pads", [-20, -20, -20, -20])),
        "Conv negative pads larger than the input")
    add("conv_attr_kernel_mismatch", "conv",
        lambda m: _replace_attr(_node(m, "conv"), helper.make_attribute("kernel_shape", [5, 5])),
        "Conv kernel_shape [5,5] for a 3x3 weight")
    add("conv_attr_kernel_rank", "conv",
        lambda m: _replace_attr(_node(m, "conv"), helper.make_attribute("strides", [1, 1, 1])),
        "Conv strides of rank 3 for a 2-d conv")
    add("conv_softmax_axis_out_of_range", "conv",
        lambda m: _replace_attr(_node(m, "softmax"), helper.make_attribute("axis", 7)),
        "Softmax axis 7 of a rank-2 tensor")
    add("conv_softmax_axis_int64_min", "conv",
        lambda m: _replace_attr(_node(m, "softmax"), helper.make_attribute("axis", -(1 << 63))),
        "Softmax axis INT64_MIN")
    add("shapes_perm_repeated", "shapes",
        lambda m: _replace_attr(_node(m, "transpose"), helper.make_attribute("perm", [0, 0, 1])),
        "Transpose perm [0,0,1]")
    add("shapes_perm_out_of_range", "shapes",
        lambda m: _replace_attr(_node(m, "transpose"), helper.make_attribute("perm", [0, 9, 1])),
        "Transpose perm [0,9,1]")
    add("shapes_concat_axis_out_of_range", "shapes",
        lambda m: _replace_attr(_node(m, "concat"), helper.make_attribute("axis", 3)),
        "Concat axis 3 of rank-1 tensors")
    add("shapes_gather_index_out_of_range", "shapes",
        lambda m: _init(m, "idx0").int64_data.__setitem__(0, 1000), "Gather index 1000 of 2")
    add("shapes_gather_index_int64_min", "shapes",
        lambda m: _init(m, "idx0").int64_data.__setitem__(0, -(1 << 63)), "Gather index INT64_MIN")
    add("shapes_unsqueeze_axis_out_of_range", "shapes",
        lambda m: _init(m, "axes").int64_data.__setitem__(0, 5), "Unsqueeze axis 5 of a scalar")
    add("shapes_reshape_wrong_count", "shapes",
        lambda m: _init(m, "tail").int64_data.__setitem__(0, 5), "Reshape [2,5,2] of 12 elements")
    add("shapes_reshape_huge", "shapes",
        lambda m: (_init(m, "tail").int64_data.__setitem__(0, 1 << 31),
                   _init(m, "tail").int64_data.__setitem__(1, 1 << 31)),
        "Reshape to [2,2^31,2^31]")
    add("shapes_reshape_two_minus_one", "shapes",
        lambda m: (_init(m, "tail").int64_data.__setitem__(0, -1),
                   _init(m, "tail").int64_data.__setitem__(1, -1)),
        "Reshape with two -1 dims")
    add("shapes_reshape_negative", "shapes",
        lambda m: _init(m, "tail").int64_data.__setitem__(0, -3), "Reshape to a -3 dim")
    add("shapes_matmul_mismatch", "shapes",
        lambda m: (set_dims("w", [3, 8])(m)), "MatMul [2,4] x [3,8]")

    def constant_of_shape_bomb(m):
        # y = ConstantOfShape([2^50]): a valid-looking op that would need 4 PiB.
        m.graph.initializer.append(helper.make_tensor("bomb.shape", TensorProto.INT64, [1],
                                                      [1 << 50]))
        m.graph.node.append(helper.make_node("ConstantOfShape", ["bomb.shape"], ["bomb"],
                                             name="bomb"))
        m.graph.output.append(helper.make_tensor_value_info("bomb", TensorProto.FLOAT, None))
    add("shapes_constant_of_shape_bomb", "shapes", constant_of_shape_bomb,
        "ConstantOfShape of 2^50 floats (4 PiB)")

    # --- external data (a file outside the case folders exists for the "outside" cases)
    def ext(name, fn, why, files=None, links=None):
        add(name, "external", fn, why, files=files if files is not None else e_files, links=links)

    def ext_set(location=None, offset=16, length=24, raw_keys=None):
        return lambda m: _set_external(_init(m, "w"), location, offset, length, raw_keys)
    ext("ext_parent_dir", ext_set("../outside.bin", 0, 24),
        "external data '../outside.bin' outside the model's folder (the file exists)")
    ext("ext_nested_parent_dir", ext_set("sub/../../outside.bin", 0, 24),
        "external data 'sub/../../outside.bin' escapes the model's folder")
    ext("ext_absolute_path", ext_set("/etc/hostname", 0, 1), "external data at an absolute path")
    ext("ext_symlink_outside", ext_set("link.bin", 0, 24),
        "external data through a symlink to a file outside the folder",
        links={"link.bin": "../outside.bin"})
    ext("ext_missing_file", ext_set("nope.bin", 0, 24), "external data file does not exist")
    ext("ext_offset_past_end", ext_set("weights.bin", 1 << 20, 24),
        "external data offset past the end of the file")
    ext("ext_length_past_end", ext_set("weights.bin", 40, 24),
        "external data length runs past the end of the file")
    ext("ext_length_mismatch", ext_set("weights.bin", 16, 20),
        "external data length 20 for a [2,3] float tensor")
    ext("ext_offset_negative", ext_set("weights.bin", -8, 24), "negative external data offset")
    ext("ext_offset_garbage", ext_set(raw_keys=[("location", "weights.bin"), ("offset", "1e9x")]),
        "external data offset is not a number")
    ext("ext_offset_overflow", ext_set(raw_keys=[("location", "weights.bin"),
                                                 ("offset", "99999999999999999999999"),
                                                 ("length", "24")]),
        "external data offset overflows int64")
    ext("ext_no_location", ext_set(raw_keys=[("offset", "16"), ("length", "24")]),
        "external data without a location")
    ext("ext_empty_location", ext_set("", 16, 24), "external data with an empty location")
    ext("ext_location_is_dir", ext_set(".", 0, 24), "external data location is a directory")
    ext("ext_flag_without_entries", ext_set(raw_keys=[]),
        "data_location EXTERNAL with no external_data entries")
    return out


# ---------------------------------------------------------------------------------------------
# Raw protobuf garbage

def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num, payload):
    """Length-delimited field."""
    return _varint((num << 3) | 2) + _varint(len(payload)) + payload


def _int_field(num, value):
    return _varint(num << 3) + _varint(value)


def garbage_cases(rng):
    opset = _field(8, _int_field(2, OPSET))
    header = _int_field(1, IR_VERSION) + opset
    out = []

    def add(name, data, why):
        out.append(Case(name, "conv", data, "invalid", why))

    # Deeply nested subgraphs: Model.graph -> Graph.node -> Node.attribute -> Attribute.g -> ...
    for depth in (200, 5000):
        inner = b""
        for _ in range(depth):
            attr = _field(1, b"then_branch") + _int_field(20, onnx.AttributeProto.GRAPH) + \
                _field(6, inner)
            node = _field(4, b"If") + _field(1, b"x") + _field(2, b"y") + _field(5, attr)
            inner = _field(1, node)
        add(f"garbage_nested_{depth}", header + _field(7, inner),
            f"If subgraphs nested {depth} deep (and If has no cond input)")
    # Deeply nested unknown groups / messages.
    add("garbage_nested_unknown", header + (_varint((15 << 3) | 3) * 20000),
        "20000 nested start-group tags of an unknown field")
    add("garbage_empty", b"", "empty file (an empty ModelProto: no graph, no opset)")
    add("garbage_zeros", b"\0" * 64, "64 zero bytes (field number 0)")
    add("garbage_ff", b"\xff" * 1000, "1000 0xff bytes (endless varint)")
    add("garbage_huge_length", header + _varint((7 << 3) | 2) + _varint(0x7FFFFFF0) + b"\0" * 32,
        "graph field claiming 2 GiB, 32 bytes present")
    add("garbage_length_overflow", header + _varint((7 << 3) | 2) + _varint((1 << 64) - 1),
        "graph field length 2^64-1")
    add("garbage_bad_wire_type", header + bytes([(7 << 3) | 7]) + b"\x01\x02",
        "invalid wire type 7")
    add("garbage_text", b"ir_version: 7\ngraph { node { op_type: 'Relu' } }\n",
        "a text-format model, not binary protobuf")
    add("garbage_onnx_text", b"<\n ir_version: 7,\n opset_import: [\"\" : 13]\n>\n",
        "ONNX textual syntax, not binary protobuf")
    for n in (1, 7, 100, 4096, 100000):
        add(f"garbage_random_{n}", bytes(rng.getrandbits(8) for _ in range(n)),
            f"{n} random bytes")
    # A valid header followed by a graph made of random bytes.
    for k in range(4):
        body = bytes(rng.getrandbits(8) for _ in range(200 + 100 * k))
        add(f"garbage_random_graph_{k}", header + _field(7, body), "graph of random bytes")
    return out


# ---------------------------------------------------------------------------------------------
# Writing

def base_models():
    return [make() for make in BASES]


def write_base(out_dir, base):
    """Writes <out_dir>/base/<name>/<name>.onnx, its extra files and inputs/. Returns the dir."""
    name, model, inputs, files = base
    d = os.path.join(out_dir, "base", name)
    os.makedirs(os.path.join(d, "inputs"), exist_ok=True)
    with open(os.path.join(d, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for rel, blob in files.items():
        with open(os.path.join(d, rel), "wb") as f:
            f.write(blob)
    for i, arr in inputs.items():
        with open(os.path.join(d, "inputs", f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(arr, model.graph.input[i].name).SerializeToString())
    return d


def all_cases():
    rng = random.Random(20261130)
    bases = base_models()
    cases = []
    for name, model, _, files in bases:
        data = model.SerializeToString()
        cases += random_mutations(name, data, files, rng, n_trunc=40, n_flip=40)
    conv, shapes, external = bases
    cases += structured_mutations(conv, shapes, external)
    cases += garbage_cases(rng)
    return bases, cases


def write_all(out_dir):
    bases, cases = all_cases()
    manifest = {"bases": {}, "cases": []}
    for b in bases:
        d = write_base(out_dir, b)
        manifest["bases"][b[0]] = {"model": os.path.join(d, b[0] + ".onnx"),
                                   "inputs": os.path.join(d, "inputs")}
    # Each case in its own folder (external data resolves against it); a file next to the
    # folders is the target of the "outside the folder" cases.
    cases_dir = os.path.join(out_dir, "cases")
    os.makedirs(cases_dir, exist_ok=True)
    with open(os.path.join(cases_dir, "outside.bin"), "wb") as f:
        f.write(b"\x5a" * 64)
    for c in cases:
        d = os.path.join(cases_dir, c.name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, c.name + ".onnx")
        with open(path, "wb") as f:
            f.write(c.data)
        for rel, blob in c.files.items():
            with open(os.path.join(d, rel), "wb") as f:
                f.write(blob)
        for rel, target in c.links.items():
            link = os.path.join(d, rel)
            if os.path.lexists(link):
                os.remove(link)
            os.symlink(os.path.join(cases_dir, os.path.basename(target)), link)
        manifest["cases"].append({"name": c.name, "model": path, "base": c.base,
                                  "expect": c.expect, "why": c.why})
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def write_seeds(out_dir):
    """Fuzzer seeds: the valid base models plus the hand-made invalid ones (they reach the
    loader's error paths that random mutation rarely finds)."""
    os.makedirs(out_dir, exist_ok=True)
    bases = base_models()
    for name, model, _, _ in bases:
        with open(os.path.join(out_dir, name + ".onnx"), "wb") as f:
            f.write(model.SerializeToString())
    for c in structured_mutations(*bases) + garbage_cases(random.Random(1)):
        if len(c.data) <= 64 * 1024:
            with open(os.path.join(out_dir, c.name + ".onnx"), "wb") as f:
                f.write(c.data)


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--seeds":
        write_seeds(args[1])
        return 0
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    m = write_all(args[0])
    n_invalid = sum(c["expect"] == "invalid" for c in m["cases"])
    print(f"{len(m['cases'])} hostile models ({n_invalid} certainly invalid) in {args[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
