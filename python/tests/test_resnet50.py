"""ResNet-50 (tools/make_resnet50_model.py: seeded weights, torchvision layout) from Python gives
outputs byte-identical to the CLI's `openge run --outputs`, from a path and from bytes."""
import os
import pathlib
import subprocess
import sys

import numpy

import openge
from conftest import SOURCE_DIR, cli_path


def resnet50_model() -> pathlib.Path:
    cache = pathlib.Path(os.environ.get("OPENGE_PYTHON_TEST_DATA", pathlib.Path.cwd() / "python_test_data"))
    model = cache / "resnet50.onnx"
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(SOURCE_DIR / "tools" / "make_resnet50_model.py"), "--if-missing", str(model)],
                   check=True, capture_output=True, timeout=600)
    return model


def test_resnet50_matches_cli_bytes(tmp_path):
    model = resnet50_model()
    session = openge.Session(model, threads=1)
    (info,) = session.inputs
    assert info.shape == (1, 3, 224, 224)
    x = numpy.random.default_rng(7).standard_normal(info.shape).astype(numpy.float32)
    numpy.save(tmp_path / "x.npy", x)
    subprocess.run([str(cli_path()), "run", "--model", str(model), "--threads", "1", "--input", f"{info.name}={tmp_path / 'x.npy'}",
                    "--outputs", str(tmp_path / "out")], check=True, capture_output=True, timeout=600)
    expected = numpy.load(tmp_path / "out" / "output_0.npy")
    (got,) = session.run(None, {info.name: x})
    assert got.shape == expected.shape == (1, 1000) and got.dtype == expected.dtype
    assert got.tobytes() == expected.tobytes()
    assert numpy.isfinite(got).all() and got.std() > 0  # a real output, not zeros
    (from_bytes,) = openge.Session(model.read_bytes(), threads=1).run(["output"], {info.name: x})
    assert from_bytes.tobytes() == expected.tobytes()
