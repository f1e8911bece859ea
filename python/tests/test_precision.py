"""The precision pass's report from Python (`openge explain-precision`'s data): one row per
node after the first run, naming the rule that decided; fp16 compute under allow_fp32_to_fp16."""
import numpy

import openge
from conftest import DEMO_MODEL


def run_once(options):
    session = openge.Session(DEMO_MODEL, options=options, threads=1)
    assert session.precision_report() == []  # nothing compiled yet
    session.run(None, {t.name: numpy.zeros(t.shape, t.numpy_dtype) for t in session.inputs})
    return session


def test_report_has_a_row_per_node_with_its_rule():
    session = run_once({"precision_mode": "must_keep_origin_dtype"})
    rows = session.precision_report()
    assert rows and all(r["node"] and r["rule"] for r in rows)
    assert {r["engine"] for r in rows} <= {"AI_CORE", "AI_CPU"}
    assert all("precision_mode=must_keep_origin_dtype" in r["rule"] for r in rows if r["original_dtype"])
    assert all(r["input_dtype"] == r["original_dtype"] for r in rows if r["original_dtype"])
    assert isinstance(session.precision_warnings(), list)


def test_fp16_mode_moves_nodes_to_float16():
    rows = run_once({"precision_mode": "allow_fp32_to_fp16"}).precision_report()
    assert any(r["input_dtype"] == "float16" or r["output_dtype"] == "float16" for r in rows), rows
