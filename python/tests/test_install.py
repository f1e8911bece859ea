"""`cmake --install` puts the package into the interpreter's site-packages: installed under a
scratch DESTDIR, it imports and runs the demo model with only that folder on PYTHONPATH."""
import os
import pathlib
import subprocess
import sys

from conftest import DEMO_MODEL


def test_installed_package_imports_and_runs(tmp_path):
    build, site = os.environ.get("OPENGE_BUILD_DIR"), os.environ.get("OPENGE_PYTHON_SITEARCH")
    assert build and site, "ctest sets OPENGE_BUILD_DIR and OPENGE_PYTHON_SITEARCH"
    subprocess.run(["cmake", "--install", build], check=True, capture_output=True, timeout=300,
                   env=dict(os.environ, DESTDIR=str(tmp_path)))
    installed = pathlib.Path(str(tmp_path) + site)
    assert (installed / "openge" / "__init__.pyi").is_file()
    assert list((installed / "openge").glob("_openge*.so"))
    code = ("import numpy, openge; s = openge.Session(%r); "
            "(y,) = s.run(None, {s.inputs[0].name: numpy.zeros(s.inputs[0].shape, numpy.float32)}); "
            "print(openge.__file__, y.shape)" % str(DEMO_MODEL))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(installed)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(str(installed)) and "(1, 10)" in r.stdout
