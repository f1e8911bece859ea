"""Shared fixtures of the openge Python package tests (run by ctest with PYTHONPATH=<build>/python)."""
import os
import pathlib
import sys

import numpy
import onnx
import pytest
from onnx import TensorProto, helper

SOURCE_DIR = pathlib.Path(os.environ.get("OPENGE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DEMO_MODEL = SOURCE_DIR / "models" / "demo.onnx"
# The spec lives beside the checkout (../shared/spec/seeds), as on CI; a clone may lack it.
SEEDS_DIR = SOURCE_DIR.parent / "shared" / "spec" / "seeds"
# The exit status of a test file whose every test was skipped: ctest reports it as not run
# (SKIP_RETURN_CODE in suite.cmake), so a suite that could not run is never counted as passed.
NOT_RUN_EXIT_STATUS = 77


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = reporter.stats if reporter else {}
    ran = any(stats.get(kind) for kind in ("passed", "failed", "error", "xfailed", "xpassed"))
    if exitstatus == 0 and stats.get("skipped") and not ran:
        session.exitstatus = NOT_RUN_EXIT_STATUS


def cli_path() -> pathlib.Path:
    cli = os.environ.get("OPENGE_CLI")
    assert cli, "OPENGE_CLI must name the openge CLI (ctest sets it)"
    return pathlib.Path(cli)


@pytest.fixture(autouse=True)
def clean_global_options():
    """Every test starts and ends with npu.global_options() at its defaults."""
    from openge import npu
    npu.global_options().reset()
    yield
    npu.global_options().reset()


def model_bytes(nodes, inputs, outputs, initializers=(), opset=13) -> bytes:
    graph = helper.make_graph(list(nodes), "g", list(inputs), list(outputs), initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def identity_model(elem_type: int, shape=(2, 3)) -> bytes:
    return model_bytes([helper.make_node("Identity", ["x"], ["y"])],
                       [helper.make_tensor_value_info("x", elem_type, list(shape))],
                       [helper.make_tensor_value_info("y", elem_type, list(shape))])


def add_model(elem_type: int, shape=(2, 3)) -> bytes:
    return model_bytes([helper.make_node("Add", ["a", "b"], ["c"])],
                       [helper.make_tensor_value_info("a", elem_type, list(shape)),
                        helper.make_tensor_value_info("b", elem_type, list(shape))],
                       [helper.make_tensor_value_info("c", elem_type, list(shape))])


def mlp_model(batch=1, sizes=(64, 128, 128, 10), seed=0) -> tuple:
    """Gemm+Relu layers with fixed random weights; returns (model bytes, weights) so tests can
    compute the expected output with NumPy."""
    rng = numpy.random.default_rng(seed)
    nodes, inits, weights = [], [], []
    prev = "x"
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = rng.standard_normal((n_in, n_out)).astype(numpy.float32) / numpy.sqrt(n_in)
        b = rng.standard_normal(n_out).astype(numpy.float32) * 0.1
        weights.append((w, b))
        inits += [helper.make_tensor(f"w{i}", TensorProto.FLOAT, w.shape, w.ravel()),
                  helper.make_tensor(f"b{i}", TensorProto.FLOAT, b.shape, b)]
        out = "y" if i == len(sizes) - 2 else f"h{i}"
        gemm_out = out if out == "y" else f"g{i}"
        nodes.append(helper.make_node("Gemm", [prev, f"w{i}", f"b{i}"], [gemm_out]))
        if out != "y":
            nodes.append(helper.make_node("Relu", [gemm_out], [out]))
        prev = out
    data = model_bytes(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, sizes[0]])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, sizes[-1]])], inits)
    return data, weights


def mlp_reference(x, weights):
    h = x.astype(numpy.float64)
    for i, (w, b) in enumerate(weights):
        h = h @ w.astype(numpy.float64) + b
        if i < len(weights) - 1:
            h = numpy.maximum(h, 0)
    return h


sys.path.insert(0, str(pathlib.Path(__file__).parent))
