"""The wheel scripts/build_wheel.py makes from this build installs offline into a new virtual
environment (pip install --no-index; numpy from the system, as Debian's python3-numpy) and runs a
ResNet-18 there (tools/make_resnet18_model.py: seeded weights, built with the onnx helper API, so
no PyTorch or download is needed) through the onnxruntime-style API, with the SoC profiles the
wheel carries; its output equals the build tree's binding byte for byte. The examples run from
the installed package too."""
import os
import pathlib
import subprocess
import sys

import numpy

import openge
from conftest import DEMO_MODEL, SOURCE_DIR
from openge import npu

RUN_RESNET18 = """
import sys, numpy, openge as ort
from openge import npu
model, x_file, y_file = sys.argv[1:4]
npu.global_options().soc_version = 'Ascend310P'
options = ort.SessionOptions()
options.intra_op_num_threads = 1
s = ort.InferenceSession(model, sess_options=options, providers=['CPUExecutionProvider'])
(i,) = s.get_inputs()
(o,) = s.get_outputs()
print(ort.__file__)
print(i.name, i.type, list(i.shape), o.name, list(o.shape))
(y,) = s.run(None, {i.name: numpy.load(x_file)})
numpy.save(y_file, y)
"""


def resnet18_model(folder: pathlib.Path) -> pathlib.Path:
    model = folder / "resnet18.onnx"
    subprocess.run([sys.executable, str(SOURCE_DIR / "tools" / "make_resnet18_model.py"), str(model)],
                   check=True, capture_output=True, timeout=300)
    return model


def test_wheel_installs_offline_into_a_new_venv_and_runs_resnet18(tmp_path):
    build = os.environ.get("OPENGE_BUILD_DIR")
    assert build, "ctest sets OPENGE_BUILD_DIR"
    made = subprocess.run([sys.executable, str(SOURCE_DIR / "scripts" / "build_wheel.py"), build, str(tmp_path / "dist")],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    wheel = pathlib.Path(made.stdout.strip())
    assert wheel.is_file() and wheel.name.startswith("openge-")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    pip = subprocess.run([str(python), "-m", "pip", "install", "--no-index", str(wheel)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert pip.returncode == 0, pip.stdout + pip.stderr

    model = resnet18_model(tmp_path)
    x = numpy.random.default_rng(18).standard_normal((1, 3, 224, 224)).astype(numpy.float32)
    numpy.save(tmp_path / "x.npy", x)
    ran = subprocess.run([str(python), "-c", RUN_RESNET18, str(model), str(tmp_path / "x.npy"), str(tmp_path / "y.npy")],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert ran.returncode == 0, ran.stderr
    where, signature = ran.stdout.splitlines()[:2]
    assert where.startswith(str(venv)), where           # the installed copy, not the build tree
    assert signature == "input tensor(float) [1, 3, 224, 224] output [1, 1000]", signature
    installed = pathlib.Path(where).parent
    assert list((installed / "opp").rglob("*.ini")), "the wheel carries the SoC profiles"
    # The examples run from the installed package as the README shows them.
    for example, *args in (("tf_style_options.py",), ("mixed_precision.py",),
                           ("profiling.py", DEMO_MODEL, tmp_path)):
        done = subprocess.run([str(python), str(SOURCE_DIR / "examples" / example), *map(str, args)],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
        assert done.returncode == 0, example + ": " + done.stderr

    from_wheel = numpy.load(tmp_path / "y.npy")
    assert from_wheel.shape == (1, 1000) and from_wheel.dtype == numpy.float32
    assert numpy.isfinite(from_wheel).all() and from_wheel.std() > 0  # a real output, not zeros
    npu.global_options().soc_version = "Ascend310P"  # the fixture resets it after the test
    options = openge.SessionOptions()
    options.intra_op_num_threads = 1
    (from_build,) = openge.InferenceSession(str(model), sess_options=options).run(None, {"input": x})
    assert pathlib.Path(openge.__file__).resolve().is_relative_to(pathlib.Path(build).resolve())
    assert from_wheel.tobytes() == from_build.tobytes()
