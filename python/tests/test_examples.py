"""The examples run as the README says (that their option lines are page 002's: test_spec_page_002.py)."""
import os
import subprocess
import sys


from conftest import SOURCE_DIR

EXAMPLES = SOURCE_DIR / "examples"


def run_example(name, *args, tmp_path):
    return subprocess.run([sys.executable, str(EXAMPLES / name), *map(str, args)], capture_output=True, text=True,
                          cwd=tmp_path, env=dict(os.environ), timeout=300)


def test_tf_style_example_runs(tmp_path):
    r = run_example("tf_style_options.py", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "precision_mode = allow_mix_precision" in r.stdout


def test_mixed_precision_example_runs(tmp_path):
    r = run_example("mixed_precision.py", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = {l.split()[0]: float(l.split()[1]) for l in r.stdout.splitlines()[1:]}
    assert rows["must_keep_origin_dtype"] == 0.0  # the float32 reference
    assert rows["force_fp32"] > 0.0  # Cube ops on float16 inputs, as CANN does
    assert rows["allow_fp32_to_fp16"] > 0.0  # fp16 compute moves the outputs


def test_profiling_example_runs(tmp_path):
    r = run_example("profiling.py", SOURCE_DIR / "models" / "demo.onnx", tmp_path, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "report: " + str(tmp_path) in r.stdout
    assert list(tmp_path.rglob("report.html"))
