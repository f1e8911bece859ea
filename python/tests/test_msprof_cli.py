"""openge msprof: CANN msprof's command line runs an application (an OpenGE process or a script)
with profiling on. ENV-10: --output > ASCEND_WORK_PATH/profiling_data > the model file's folder."""
import os
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import DEMO_MODEL, cli_path


def msprof(args, cwd, env_extra=None, drop=("ASCEND_WORK_PATH", "PROFILING_MODE", "PROFILING_OPTIONS")):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_extra or {})
    return subprocess.run([str(cli_path()), "msprof", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)


def collections(folder):
    return sorted(p for p in folder.iterdir() if p.name.startswith("PROF_")) if folder.is_dir() else []


@pytest.fixture
def model(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(DEMO_MODEL, folder / "demo.onnx")
    return folder / "demo.onnx"


def run_line(model):
    return f'--application={shlex.quote(str(cli_path()))} run --model {shlex.quote(str(model))} --loop 2'


@pytest.mark.parametrize("chosen_by", ["output", "ASCEND_WORK_PATH", "default"])
def test_ENV_10_profiling_data_follows_output_then_work_path_then_model_folder(tmp_path, model, chosen_by):
    out, work, cwd = tmp_path / "prof_out", tmp_path / "work", tmp_path / "cwd"
    cwd.mkdir()
    args = [run_line(model), "--task-time=on", "--aicpu=on"]
    if chosen_by == "output":
        args.append(f"--output={out}")
    env = {"ASCEND_WORK_PATH": str(work)} if chosen_by != "default" else {}
    done = msprof(args, cwd, env)
    assert done.returncode == 0, done.stderr
    expected = {"output": out, "ASCEND_WORK_PATH": work / "profiling_data", "default": model.parent}[chosen_by]
    found = {name: collections(folder) for name, folder in
             (("output", out), ("ASCEND_WORK_PATH", work / "profiling_data"), ("default", model.parent),
              ("cwd", cwd))}
    assert len(collections(expected)) == 1, (found, done.stderr)
    assert sum(len(v) for v in found.values()) == 1, found
    prof = collections(expected)[0]
    assert list(prof.rglob("op_summary*.csv")), list(prof.rglob("*"))


def test_a_script_is_profiled_and_its_exit_status_is_msprofs(tmp_path, model):
    script = tmp_path / "infer.py"
    script.write_text(
        "import sys, numpy, openge\n"
        f"s = openge.Session({str(model)!r})\n"
        "s.run(None, {'image': numpy.ones((1, 3, 32, 32), numpy.float32)})\n"
        "s.finish_profiling()\n"
        "sys.exit(3)\n")
    done = msprof([f"--application={sys.executable} {script}", f"--output={tmp_path / 'out'}"], tmp_path)
    assert done.returncode == 3, done.stderr
    assert len(collections(tmp_path / "out")) == 1, done.stderr


def test_unknown_switch_is_refused_with_did_you_mean_before_running(tmp_path, model):
    marker = tmp_path / "ran"
    done = msprof([f"--application=touch {marker}", "--task-tme=on", f"--output={tmp_path}"], tmp_path)
    assert done.returncode == 1
    assert "did you mean --task-time" in done.stderr and done.stderr.strip().count("\n") == 0, done.stderr
    assert not marker.exists()


def test_bad_switch_value_is_refused_before_running(tmp_path):
    marker = tmp_path / "ran"
    done = msprof([f"--application=touch {marker}", "--aic-metrics=Fastest", f"--output={tmp_path}"], tmp_path)
    assert done.returncode == 1 and "aic_metrics" in done.stderr, done.stderr
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert not marker.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith("PROF_")]


def test_output_that_cannot_be_made_is_refused_before_running(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    marker = tmp_path / "ran"
    done = msprof([f"--application=touch {marker}", f"--output={blocker}/prof"], tmp_path)
    assert done.returncode == 1 and str(blocker) in done.stderr, done.stderr
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert not marker.exists()


def test_switch_without_cpu_meaning_is_one_line(tmp_path, model):
    done = msprof([run_line(model), "--sys-pid-profiling=on", f"--output={tmp_path / 'o'}"], tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "sys-pid-profiling" in line]
    assert len(lines) == 1 and "does not apply on a CPU" in lines[0]


def test_export_rebuilds_the_report_of_a_collection(tmp_path, model):
    out = tmp_path / "out"
    assert msprof([run_line(model), f"--output={out}"], tmp_path).returncode == 0
    (prof,) = collections(out)
    reports = list(prof.rglob("report.html"))
    for r in reports:
        r.unlink()
    done = msprof(["--export=on", f"--output={out}"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert list(prof.rglob("report.html")), done.stdout
    assert "report:" in done.stdout


def test_export_of_a_folder_without_a_collection_is_one_error(tmp_path):
    done = msprof(["--export=on", f"--output={tmp_path}"], tmp_path)
    assert done.returncode == 1 and done.stderr.strip().count("\n") == 0, done.stderr
