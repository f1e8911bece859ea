"""The wheel scripts/build_wheel.py makes from this build installs offline into a new virtual
environment (pip install --no-index; numpy from the system, as Debian's python3-numpy) and runs the
demo model there, with the SoC profiles the wheel carries."""
import os
import pathlib
import subprocess
import sys

from conftest import DEMO_MODEL, SOURCE_DIR


def test_wheel_installs_offline_into_a_new_venv_and_runs_the_demo(tmp_path):
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
    code = ("import numpy, openge as ort\n"
            "from openge import npu\n"
            "npu.global_options().soc_version = 'Ascend310P'\n"
            f"s = ort.InferenceSession({str(DEMO_MODEL)!r}, providers=['CPUExecutionProvider'])\n"
            "i = s.get_inputs()[0]\n"
            "(y,) = s.run(None, {i.name: numpy.ones(i.shape, numpy.float32)})\n"
            "print(ort.__file__)\n"
            "print(y.shape, round(float(y.sum()), 4))\n")
    ran = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert ran.returncode == 0, ran.stderr
    where, result = ran.stdout.splitlines()
    assert where.startswith(str(venv)), where           # the installed copy, not the build tree
    assert result == "(1, 10) 1.0", result               # softmax probabilities of one image
    installed = pathlib.Path(where).parent
    assert list((installed / "opp").rglob("*.ini")), "the wheel carries the SoC profiles"
