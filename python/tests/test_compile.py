"""openge.compile: the demo model compiled into a .oge gives the bits of the .onnx through
openge.Session (path and bytes), records the options that shaped it, and a conflicting option
or a truncated file raises the right exception."""
import numpy
import pytest

import openge
from conftest import DEMO_MODEL


def feed_of(session):
    rng = numpy.random.default_rng(0)
    return {t.name: rng.uniform(-1, 1, t.shape).astype(t.numpy_dtype) for t in session.inputs}


def test_compiled_demo_gives_the_bits_of_the_onnx(tmp_path):
    oge = tmp_path / "demo.oge"
    recorded = openge.compile(DEMO_MODEL, oge, options={"precision_mode": "allow_fp32_to_fp16"}, threads=1)
    assert recorded["precision_mode"] == "allow_fp32_to_fp16"
    original = openge.Session(DEMO_MODEL, options={"precision_mode": "allow_fp32_to_fp16"}, threads=1)
    feed = feed_of(original)
    expected = original.run(None, feed)
    for model in (oge, oge.read_bytes()):
        compiled = openge.Session(model, threads=1)
        got = compiled.run(None, feed)
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert a.tobytes() == b.tobytes()


def test_conflicting_option_and_truncated_file_raise(tmp_path):
    oge = tmp_path / "demo.oge"
    openge.compile(DEMO_MODEL, oge, options={"precision_mode": "allow_fp32_to_fp16"})
    with pytest.raises(openge.OptionError, match="precision_mode is 'force_fp32' here"):
        openge.Session(oge, options={"precision_mode": "force_fp32"})
    cut = tmp_path / "cut.oge"
    cut.write_bytes(oge.read_bytes()[:-10])
    with pytest.raises(openge.ModelError, match="truncated"):
        openge.Session(cut)
    with pytest.raises(openge.OptionError, match="input 'nope'|'nope', which is not an input"):
        openge.compile(DEMO_MODEL, tmp_path / "x.oge", input_shapes={"nope": [1]})
