"""openge.acl_init: CANN's acl.json for a Python application. ENV-11: the profiler's "output" >
ASCEND_WORK_PATH/profiling_data > the application's folder (the script's)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

import openge
from conftest import DEMO_MODEL

APP = """
import sys, numpy, openge
folder, notes = openge.acl_init(sys.argv[1])
s = openge.Session(sys.argv[2])
for _ in range(2):
    s.run(None, {"image": numpy.ones((1, 3, 32, 32), numpy.float32)})
s.finish_profiling()
print(s.profiling_dir)
"""


def collections(folder):
    return sorted(p for p in folder.iterdir() if p.name.startswith("PROF_")) if folder.is_dir() else []


@pytest.mark.parametrize("chosen_by", ["output", "ASCEND_WORK_PATH", "default"])
def test_ENV_11_profiling_data_follows_output_then_work_path_then_application_folder(tmp_path, chosen_by):
    app_dir, out, work, cwd = tmp_path / "app", tmp_path / "prof_out", tmp_path / "work", tmp_path / "cwd"
    for d in (app_dir, out, cwd):
        d.mkdir()
    (app_dir / "infer.py").write_text(APP)
    profiler = {"switch": "on", "task_time": "on", "aicpu": "on"}
    if chosen_by == "output":
        profiler["output"] = str(out)
    acl = tmp_path / "acl.json"
    acl.write_text(json.dumps({"profiler": profiler}))
    env = {k: v for k, v in os.environ.items() if k not in ("ASCEND_WORK_PATH", "PROFILING_MODE", "PROFILING_OPTIONS")}
    if chosen_by != "default":
        env["ASCEND_WORK_PATH"] = str(work)
    done = subprocess.run([sys.executable, str(app_dir / "infer.py"), str(acl), str(DEMO_MODEL)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    expected = {"output": out, "ASCEND_WORK_PATH": work / "profiling_data", "default": app_dir}[chosen_by]
    found = [p for folder in (out, work / "profiling_data", app_dir, cwd) for p in collections(folder)]
    assert found == collections(expected) and len(found) == 1, (found, done.stdout)
    assert done.stdout.strip() == str(found[0])


def test_dump_section_turns_data_dump_on_for_later_sessions(tmp_path):
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    acl = tmp_path / "acl.json"
    acl.write_text(json.dumps({"dump": {"dump_path": str(dumps), "dump_mode": "output",
                                        "dump_list": [{"model_name": "demo", "layer": ["conv1"]}]}}))
    folder, notes = openge.acl_init(acl)
    assert folder == ""
    assert openge.npu.global_options().dump_config.enable_dump is True
    s = openge.Session(DEMO_MODEL)
    import numpy
    s.run(None, {"image": numpy.ones((1, 3, 32, 32), numpy.float32)})
    del s  # the session waits for its dump writer when it closes
    files = [p for p in dumps.rglob("*") if p.is_file()]
    assert files and all("conv1" in p.name for p in files), files


def test_malformed_acl_json_raises_and_applies_nothing(tmp_path):
    acl = tmp_path / "acl.json"
    acl.write_text('{"dump": {"dump_path": "/tmp"}, "profiler": {"swich": "on"}}')
    with pytest.raises(openge.OptionError, match="did you mean 'switch'"):
        openge.acl_init(acl)
    assert openge.npu.global_options().dump_config.enable_dump is False


def test_keys_without_cpu_meaning_are_warned_once_each(tmp_path):
    acl = tmp_path / "acl.json"
    acl.write_text(json.dumps({"dump": {"dump_path": str(tmp_path), "dump_op_switch": "on"}}))
    with pytest.warns(openge.OptionWarning, match="dump_op_switch"):
        _folder, notes = openge.acl_init(acl)
    assert len(notes) == 1
