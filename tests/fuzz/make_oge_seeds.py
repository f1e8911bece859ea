#!/usr/bin/python3
"""Seed corpus for fuzz_oge_reader: compiled-model (.oge) payloads as openge compile lays them out
(an ONNX ModelProto with the .oge header in metadata_props, internal ops in domain ai.openge,
every value typed), without the digest trailer, which the target appends itself.

Usage: make_oge_seeds.py --seeds DIR
"""
import argparse
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HEADER = {"openge.format_version": "1", "openge.engine_version": "0.1.0", "openge.cpu_features": "avx2",
          "openge.fusion_passes": "on", "openge.source_model": "seed.onnx",
          "openge.option.precision_mode": "must_keep_origin_dtype"}


def oge(nodes, inputs, outputs, inits=(), value_info=()):
    graph = helper.make_graph(nodes, "seed", inputs, outputs, list(inits), value_info=list(value_info))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.openge", 1)],
                              producer_name="OpenGE", domain="ai.openge.compiled")
    for k, v in HEADER.items():
        model.metadata_props.add(key=k, value=v)
    return model.SerializeToString()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", required=True)
    seeds = ap.parse_args().seeds
    os.makedirs(seeds, exist_ok=True)
    f = TensorProto.FLOAT
    x = helper.make_tensor_value_info("x", f, [2, 3])
    y = helper.make_tensor_value_info("y", f, [2, 3])
    relu = helper.make_node("Relu", ["x"], ["y"], name="relu", _fused_from=["relu", "bias"])
    w = numpy_helper.from_array(np.arange(12, dtype=np.float16).reshape(3, 4), "w")
    xw = helper.make_tensor_value_info("xw", TensorProto.FLOAT16, [2, 4])
    cast = helper.make_node("Cast", ["x"], ["x16"], name="cast", to=TensorProto.FLOAT16)
    mm = helper.make_node("MatMul", ["x16", "w"], ["xw"], name="mm", _impl_mode="high_precision")
    back = helper.make_node("Cast", ["xw"], ["z"], name="back", to=f, _aicpu_only=1)
    z = helper.make_tensor_value_info("z", f, [2, 4])
    x16 = helper.make_tensor_value_info("x16", TensorProto.FLOAT16, [2, 3])
    cases = {
        "relu": oge([relu], [x], [y]),
        "cast_matmul": oge([cast, mm, back], [x], [z], [w], [x16, xw]),
        "no_header": oge([relu], [x], [y])[:-40],
    }
    for name, data in cases.items():
        with open(os.path.join(seeds, name + ".bin"), "wb") as out:
            out.write(data)


if __name__ == "__main__":
    main()
