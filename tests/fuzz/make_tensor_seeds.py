#!/usr/bin/python3
"""Seed corpus for fuzz_tensor_readers: valid .npy and TensorProto files made with NumPy and
ONNX, plus hand-made hostile ones (negative, huge and overflowing dims, truncated data). The
first byte of each seed selects the reader (odd: .npy, even: TensorProto), as the target expects.

Usage: make_tensor_seeds.py --seeds DIR
"""
import argparse
import io
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def npy_bytes(arr):
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def npy_with_header(dict_text, data=b""):
    header = dict_text.encode()
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", required=True)
    args = ap.parse_args()
    os.makedirs(args.seeds, exist_ok=True)
    seeds = {}
    # Valid .npy files of each dtype the reader knows.
    for dt in ["float32", "float16", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "bool"]:
        seeds[f"npy_{dt}"] = b"\x01" + npy_bytes(np.arange(6).reshape(2, 3).astype(dt))
    seeds["npy_scalar"] = b"\x01" + npy_bytes(np.array(3.5, dtype=np.float32))
    seeds["npy_empty"] = b"\x01" + npy_bytes(np.zeros((0, 4), dtype=np.float32))
    # Hostile .npy headers.
    for i, shape in enumerate(["(-2, 3)", "(100000, 100000)", "(4294967296, 4294967296)", "(9223372036854775807,)",
                               "(99999999999999999999,)", "(2, x)", "(", "()"]):
        seeds[f"npy_hostile_{i}"] = b"\x01" + npy_with_header(
            "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }", b"\0" * 24)
    # Valid TensorProtos.
    for name, arr in [("f32", np.arange(6, dtype=np.float32).reshape(2, 3)), ("i64", np.array([-1, 5], np.int64)),
                      ("f16", np.ones(3, np.float16)), ("u8", np.arange(4, dtype=np.uint8))]:
        seeds[f"pb_{name}"] = b"\x00" + numpy_helper.from_array(arr, name).SerializeToString()
    typed = helper.make_tensor("t", TensorProto.FLOAT, [2], [1.0, 2.0])
    seeds["pb_typed"] = b"\x00" + typed.SerializeToString()
    # Hostile TensorProtos: dims without the data.
    for i, dims in enumerate([[-1, 4], [100000, 100000], [2**32, 2**32], [2**62, 2**62, 0]]):
        t = TensorProto()
        t.name = "h"
        t.data_type = TensorProto.FLOAT
        t.dims.extend(dims)
        seeds[f"pb_hostile_{i}"] = b"\x00" + t.SerializeToString()
    ext = TensorProto()
    ext.name = "e"
    ext.data_type = TensorProto.FLOAT
    ext.dims.extend([4])
    ext.data_location = TensorProto.EXTERNAL
    entry = ext.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    seeds["pb_external"] = b"\x00" + ext.SerializeToString()
    for name, data in seeds.items():
        with open(os.path.join(args.seeds, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
