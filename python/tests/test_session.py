"""openge.Session: the demo model against the CLI byte for byte, models as path and bytes,
every dtype in and out, the onnxruntime run() signature, zero-copy and copied inputs, and
each kind of bad feed raising the right exception."""
import subprocess

import numpy
import pytest
from onnx import TensorProto

import openge
from conftest import DEMO_MODEL, add_model, cli_path, identity_model, mlp_model, mlp_reference

DTYPES = [  # ONNX type, NumPy dtype of the arrays
    (TensorProto.FLOAT, numpy.float32), (TensorProto.DOUBLE, numpy.float64), (TensorProto.FLOAT16, numpy.float16),
    (TensorProto.INT8, numpy.int8), (TensorProto.INT16, numpy.int16), (TensorProto.INT32, numpy.int32),
    (TensorProto.INT64, numpy.int64), (TensorProto.UINT8, numpy.uint8), (TensorProto.UINT16, numpy.uint16),
    (TensorProto.UINT32, numpy.uint32), (TensorProto.UINT64, numpy.uint64), (TensorProto.BOOL, numpy.bool_),
    (TensorProto.BFLOAT16, numpy.uint16),  # bfloat16 travels as its bits
]


def demo_feed(session, seed=0):
    rng = numpy.random.default_rng(seed)
    feed = {}
    for t in session.inputs:
        assert all(d is not None for d in t.shape), t
        feed[t.name] = rng.uniform(-1, 1, t.shape).astype(t.numpy_dtype)
    return feed


def test_demo_model_matches_cli_bytes(tmp_path):
    session = openge.Session(str(DEMO_MODEL))
    feed = demo_feed(session)
    args = [str(cli_path()), "run", "--model", str(DEMO_MODEL), "--outputs", str(tmp_path / "out")]
    for i, (name, array) in enumerate(feed.items()):
        numpy.save(tmp_path / f"in{i}.npy", array)
        args += ["--input", f"{name}={tmp_path / f'in{i}.npy'}"]
    subprocess.run(args, check=True, capture_output=True)
    outputs = session.run(None, feed)
    assert len(outputs) == len(session.outputs)
    for i, (info, got) in enumerate(zip(session.outputs, outputs)):
        expected = numpy.load(tmp_path / "out" / f"output_{i}.npy")
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert got.tobytes() == expected.tobytes(), info.name


def test_model_from_bytes_equals_model_from_path():
    by_path = openge.Session(DEMO_MODEL)  # os.PathLike
    by_bytes = openge.Session(DEMO_MODEL.read_bytes())
    by_view = openge.Session(memoryview(bytearray(DEMO_MODEL.read_bytes())))
    feed = demo_feed(by_path)
    a, b, c = (s.run(None, feed) for s in (by_path, by_bytes, by_view))
    for x, y, z in zip(a, b, c):
        assert x.tobytes() == y.tobytes() == z.tobytes()


def test_mlp_matches_numpy():
    data, weights = mlp_model(batch=4)
    session = openge.Session(data, threads=1)
    x = numpy.random.default_rng(1).standard_normal((4, 64)).astype(numpy.float32)
    (y,) = session.run(["y"], {"x": x})
    numpy.testing.assert_allclose(y, mlp_reference(x, weights), rtol=1e-4, atol=1e-4)


def test_inputs_outputs_describe_the_model():
    session = openge.Session(add_model(TensorProto.FLOAT16, (2, 5)))
    assert [tuple(t) for t in session.inputs] == [("a", "float16", numpy.dtype("float16"), (2, 5)),
                                                  ("b", "float16", numpy.dtype("float16"), (2, 5))]
    assert [t.name for t in session.outputs] == ["c"]  # output types and shapes are known after a run
    assert session.get_inputs() == session.inputs
    bf16 = openge.Session(identity_model(TensorProto.BFLOAT16))
    assert bf16.inputs[0].dtype == "bfloat16" and bf16.inputs[0].numpy_dtype == numpy.dtype("uint16")


@pytest.mark.parametrize("onnx_type,np_type", DTYPES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_every_dtype_round_trips(onnx_type, np_type):
    session = openge.Session(identity_model(onnx_type))
    rng = numpy.random.default_rng(onnx_type)
    if np_type is numpy.bool_:
        x = rng.integers(0, 2, (2, 3)).astype(bool)
    elif numpy.issubdtype(np_type, numpy.floating):
        x = rng.uniform(-100, 100, (2, 3)).astype(np_type)
    else:
        info = numpy.iinfo(np_type)
        x = rng.integers(info.min, info.max, (2, 3), dtype=np_type, endpoint=True)
    (y,) = session.run(None, {"x": x})
    assert y.dtype == numpy.dtype(np_type) and y.shape == (2, 3)
    assert y.tobytes() == x.tobytes()


@pytest.mark.parametrize("onnx_type,np_type", [(TensorProto.FLOAT, numpy.float32), (TensorProto.FLOAT16, numpy.float16),
                                               (TensorProto.INT32, numpy.int32), (TensorProto.INT64, numpy.int64),
                                               (TensorProto.DOUBLE, numpy.float64)])
def test_add_matches_numpy(onnx_type, np_type):
    session = openge.Session(add_model(onnx_type))
    rng = numpy.random.default_rng(3)
    a = rng.uniform(-50, 50, (2, 3)).astype(np_type)
    b = rng.uniform(-50, 50, (2, 3)).astype(np_type)
    (c,) = session.run(None, {"a": a, "b": b})
    assert c.tobytes() == (a + b).astype(np_type).tobytes()


def test_bfloat16_add_rounds_to_nearest_even():
    session = openge.Session(add_model(TensorProto.BFLOAT16, (4,)))
    # bf16 bits of 1.0, 2.0, -3.0, 0.5 and 1.0 for every b: sums 2, 3, -2, 1.5 are exact in bf16.
    f32 = lambda bits: (numpy.asarray(bits, numpy.uint32) << 16).view(numpy.float32)
    a = numpy.array([0x3F80, 0x4000, 0xC040, 0x3F00], numpy.uint16)
    b = numpy.full(4, 0x3F80, numpy.uint16)
    (c,) = session.run(None, {"a": a, "b": b})
    assert c.dtype == numpy.uint16
    numpy.testing.assert_array_equal(f32(c), f32(a) + f32(b))


def test_output_names_select_and_order():
    session = openge.Session(DEMO_MODEL.read_bytes())
    feed = demo_feed(session)
    names = [o.name for o in session.outputs]
    everything = session.run(None, feed)
    assert len(session.run([], feed)) == len(names)
    picked = session.run(list(reversed(names)), feed)
    for got, want in zip(picked, reversed(everything)):
        assert got.tobytes() == want.tobytes()


def test_outputs_are_independent_writable_arrays():
    session = openge.Session(add_model(TensorProto.FLOAT))
    a = numpy.ones((2, 3), numpy.float32)
    (c1,) = session.run(None, {"a": a, "b": a})
    (c2,) = session.run(None, {"a": a, "b": a})
    c1[...] = 7
    assert (c2 == 2).all() and c1.flags.writeable


# ---- inputs read in place or copied -------------------------------------------------------------


def test_non_contiguous_input_is_copied_correctly():
    session = openge.Session(add_model(TensorProto.FLOAT, (3, 2)))
    base = numpy.arange(12, dtype=numpy.float32).reshape(2, 6)
    a = base.T[::2]                                  # (3, 2), strided
    assert not a.flags.c_contiguous
    b = numpy.asfortranarray(numpy.ones((3, 2), numpy.float32))
    (c,) = session.run(None, {"a": a, "b": b})
    numpy.testing.assert_array_equal(c, numpy.ascontiguousarray(a) + 1)


def test_big_endian_and_unaligned_inputs_are_copied_correctly():
    session = openge.Session(add_model(TensorProto.FLOAT, (2, 3)))
    a = numpy.arange(6, dtype=">f4").reshape(2, 3)
    raw = numpy.zeros(6 * 4 + 1, numpy.uint8)
    b = raw[1:].view(numpy.float32).reshape(2, 3)   # misaligned by one byte
    assert not b.flags.aligned
    b[...] = 10
    (c,) = session.run(None, {"a": a, "b": b})
    numpy.testing.assert_array_equal(c, numpy.arange(6, dtype=numpy.float32).reshape(2, 3) + 10)


def test_read_only_input_accepted():
    session = openge.Session(add_model(TensorProto.FLOAT))
    a = numpy.ones((2, 3), numpy.float32)
    a.flags.writeable = False
    (c,) = session.run(None, {"a": a, "b": a})
    assert (c == 2).all()


# ---- errors ---------------------------------------------------------------------------------


def test_wrong_dtype_raises_input_error():
    session = openge.Session(add_model(TensorProto.FLOAT))
    ok = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(openge.InputError, match=r"float32.*float64"):
        session.run(None, {"a": ok, "b": ok.astype(numpy.float64)})
    with pytest.raises(openge.InputError, match="not supported"):
        session.run(None, {"a": ok, "b": ok.astype(numpy.complex64)})
    with pytest.raises(openge.InputError, match="not supported"):
        session.run(None, {"a": ok, "b": numpy.array([["x"]])})


def test_wrong_shape_raises_input_error():
    session = openge.Session(add_model(TensorProto.FLOAT))
    ok = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(openge.InputError, match=r"'b'.*\[2,4\]|\[2,4\].*'b'"):
        session.run(None, {"a": ok, "b": numpy.ones((2, 4), numpy.float32)})


def test_wrong_names_raise_input_error():
    session = openge.Session(add_model(TensorProto.FLOAT))
    ok = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(openge.InputError, match="unknown input 'z'"):
        session.run(None, {"a": ok, "b": ok, "z": ok})
    with pytest.raises(openge.InputError, match="missing input 'b'"):
        session.run(None, {"a": ok})
    with pytest.raises(openge.InputError, match="unknown output 'nope'"):
        session.run(["nope"], {"a": ok, "b": ok})
    # InputError is also a ValueError and a RunError.
    assert issubclass(openge.InputError, ValueError) and issubclass(openge.InputError, openge.RunError)


def test_lists_are_converted_like_numpy_asarray():
    session = openge.Session(add_model(TensorProto.FLOAT))
    ok = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(openge.InputError):  # a list becomes float64: refused as onnxruntime does
        session.run(None, {"a": ok, "b": [[1.0, 2, 3], [4, 5, 6]]})


def test_bad_models_raise_model_error(tmp_path):
    with pytest.raises(openge.ModelError):
        openge.Session(str(tmp_path / "missing.onnx"))
    with pytest.raises(openge.ModelError):
        openge.Session(b"this is not a model")
    with pytest.raises(openge.ModelError):
        openge.Session(b"")
    truncated = DEMO_MODEL.read_bytes()
    with pytest.raises(openge.ModelError):
        openge.Session(truncated[: len(truncated) // 2])
    with pytest.raises(TypeError):
        openge.Session(12345)
    with pytest.raises(ValueError):
        openge.Session(DEMO_MODEL, threads=-1)


def test_failed_run_raises_and_session_still_works():
    from onnx import helper
    from conftest import model_bytes
    # Gather with an index out of range: a kernel refuses the data at run time.
    data = model_bytes([helper.make_node("Gather", ["x", "i"], ["y"])],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
                        helper.make_tensor_value_info("i", TensorProto.INT64, [1])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    session = openge.Session(data)
    x = numpy.array([1, 2, 3], numpy.float32)
    with pytest.raises(openge.RunError, match="Gather"):
        session.run(None, {"x": x, "i": numpy.array([7], numpy.int64)})
    (y,) = session.run(None, {"x": x, "i": numpy.array([2], numpy.int64)})
    assert y.tolist() == [3.0]


def test_contiguous_input_read_in_place_others_copied():
    """NumPy reports its allocations to tracemalloc: feeding an 8 MiB C-contiguous array must
    allocate no array of that size (read in place), a Fortran-ordered one must (the copy)."""
    import tracemalloc
    from onnx import helper
    from conftest import model_bytes
    data = model_bytes([helper.make_node("ReduceSum", ["x"], ["y"], keepdims=0)],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024, 2048])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    session = openge.Session(data, threads=1)
    x = numpy.ones((1024, 2048), numpy.float32)
    fortran = numpy.asfortranarray(x)
    session.run(None, {"x": x})  # compile outside the measurement

    def peak_bytes(array):
        tracemalloc.start()
        (y,) = session.run(None, {"x": array})
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert y == 1024 * 2048
        return peak

    assert peak_bytes(x) < x.nbytes // 8
    assert peak_bytes(fortran) >= x.nbytes
