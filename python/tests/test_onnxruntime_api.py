"""onnxruntime's Python API on OpenGE: a script written for onnxruntime runs with only its import
line changed to ``import openge as ort``."""
import re
import subprocess
import sys
import textwrap

import numpy
import pytest
from onnx import TensorProto, helper

import openge
from conftest import DEMO_MODEL, model_bytes

# A script as onnxruntime's documentation and most projects write it, kept as onnxruntime runs it.
ORT_SCRIPT = textwrap.dedent('''\
    import sys
    import numpy as np
    import onnxruntime as ort

    model_path = sys.argv[1]
    sess_options = ort.SessionOptions()
    sess_options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess_options.intra_op_num_threads = 2
    session = ort.InferenceSession(model_path, sess_options=sess_options,
                                   providers=["CPUExecutionProvider"])
    print("providers", session.get_providers(), ort.get_available_providers(), ort.get_device())
    input_meta = session.get_inputs()[0]
    shape = [d if isinstance(d, int) else 1 for d in input_meta.shape]
    x = np.random.default_rng(0).random(shape, dtype=np.float32)
    outputs = session.run(None, {input_meta.name: x})
    for meta, value in zip(session.get_outputs(), outputs):
        print("output", meta.name, list(meta.shape), meta.type, list(value.shape), value.dtype)
    print("input", input_meta.name, list(input_meta.shape), input_meta.type)
''')


def test_onnxruntime_script_runs_unchanged_after_import_openge_as_ort(tmp_path):
    script = tmp_path / "ort_script.py"
    script.write_text(ORT_SCRIPT.replace("import onnxruntime as ort", "import openge as ort"))
    done = subprocess.run([sys.executable, str(script), str(DEMO_MODEL)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "providers ['CPUExecutionProvider'] ['CPUExecutionProvider'] CPU" in lines
    assert "input image [1, 3, 32, 32] tensor(float)" in lines
    outputs = [re.fullmatch(r"output (\S+) (\[.*?\]) (\S+) (\[.*?\]) (\S+)", line) for line in lines
               if line.startswith("output ")]
    assert len(outputs) == 1 and outputs[0], done.stdout
    name, declared_shape, type_string, returned_shape, dtype = outputs[0].groups()
    assert name == "probabilities"
    # The declared shape and type (known before the run) agree with the array the run returned.
    assert (declared_shape, type_string, dtype) == (returned_shape, "tensor(float)", "float32")


def _add_model(tmp_path):
    path = tmp_path / "add.onnx"
    path.write_bytes(model_bytes([helper.make_node("Add", ["a", "b"], ["c"])],
                                 [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
                                  helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])],
                                 [helper.make_tensor_value_info("c", TensorProto.FLOAT, [2, 3])]))
    return path


def test_inference_session_runs_a_feed_and_declares_types(tmp_path):
    session = openge.InferenceSession(str(_add_model(tmp_path)), providers=["CPUExecutionProvider"])
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    (c,) = session.run(None, {"a": a, "b": a * 2})
    numpy.testing.assert_array_equal(c, a * 3)
    assert [(m.name, list(m.shape), m.type) for m in session.get_outputs()] == [("c", [2, 3], "tensor(float)")]
    assert [m.type for m in session.get_inputs()] == ["tensor(float)", "tensor(float)"]


def test_output_type_is_declared_before_the_first_run():
    session = openge.Session(str(DEMO_MODEL))
    (out,) = session.get_outputs()
    assert out.dtype == "float32" and out.type == "tensor(float)"
    assert len(out.shape) == 2 and out.shape[0] == 1


def test_unavailable_provider_warns_and_runs_on_the_cpu():
    with pytest.warns(UserWarning, match="CUDAExecutionProvider"):
        session = openge.InferenceSession(str(DEMO_MODEL), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert session.get_providers() == ["CPUExecutionProvider"]
