"""Corrupted models from Python: every one either runs or raises an openge exception (never
another exception, never a crash of the interpreter), including messages that quote bytes
which are not UTF-8."""
import random

import numpy
import pytest

import openge
from conftest import DEMO_MODEL


def test_mutated_demo_models_raise_openge_errors_only():
    data = DEMO_MODEL.read_bytes()
    rng = random.Random(1)
    outcomes = {}
    for _ in range(150):
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        if rng.random() < 0.2:
            b = b[:rng.randrange(len(b))]
        try:
            s = openge.Session(bytes(b), threads=1)
            feed = {t.name: numpy.zeros([d or 1 for d in t.shape], t.numpy_dtype or numpy.float32) for t in s.inputs}
            s.run(None, feed)
            kind = "ran"
        except openge.Error as e:
            assert str(e)
            kind = type(e).__name__
        outcomes[kind] = outcomes.get(kind, 0) + 1
    print(outcomes)
    assert outcomes.get("ModelError", 0) > 0 and outcomes.get("ran", 0) > 0


def test_non_utf8_bytes_in_names_and_messages_are_replaced():
    data = bytearray(DEMO_MODEL.read_bytes())
    assert data.count(b"image") == 2  # the graph input and the first node's input
    at = data.find(b"image")
    data[at:at + 5] = b"im\xa5ge"      # one of them, no longer UTF-8
    with pytest.raises(openge.ModelError, match="im\ufffdge"):
        openge.Session(bytes(data))
    data[:] = DEMO_MODEL.read_bytes().replace(b"image", b"im\xa5ge")  # both: a valid model
    session = openge.Session(bytes(data))
    assert session.inputs[0].name == "im\ufffdge"
