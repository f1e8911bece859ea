"""Profiling from Python: page 002's profiling fields switch it on, the PROF_ folder is known,
msproftx ranges (a context manager) and markers land on the timeline, finish_profiling writes
the report."""
import json

import numpy
import pytest

import openge
from openge import npu
from conftest import DEMO_MODEL


def profiled_session(tmp_path, msproftx="on"):
    opts = npu.global_options()
    opts.profiling_config.enable_profiling = True
    opts.profiling_config.profiling_options = json.dumps(
        {"output": str(tmp_path), "task_trace": "on", "training_trace": "on", "runtime_api": "on", "msproftx": msproftx})
    return openge.Session(str(DEMO_MODEL))


def feed(session):
    return {t.name: numpy.zeros(t.shape, t.numpy_dtype) for t in session.inputs}


def timeline_names(prof_dir):
    names = set()
    for f in prof_dir.rglob("msprof_*.json"):
        names |= {e.get("name") for e in json.loads(f.read_text())}
    return names


def test_profiling_collects_into_prof_folder_with_markers(tmp_path):
    import pathlib
    session = profiled_session(tmp_path)
    prof = pathlib.Path(session.profiling_dir)
    assert prof.name.startswith("PROF_") and prof.parent == tmp_path
    with session.range("outer step"):
        session.mark("before run")
        session.run(None, feed(session))
    session.run(None, feed(session))
    session.finish_profiling()
    assert list(prof.rglob("report.html")), sorted(str(p) for p in prof.rglob("*"))
    names = timeline_names(prof)
    assert {"outer step", "before run", "ModelExecute"} <= names, names
    assert len(list(prof.rglob("op_summary_*.csv"))) == 2  # one per run
    report = openge.profile_report(prof)
    assert [i for i, _ in report["step_times_ns"]] == [1, 2]
    assert all(ns > 0 for _, ns in report["step_times_ns"])
    assert sum(op["count"] for op in report["ops"]) == 2 * len(report["timeline"]) > 0
    assert report["html"].lstrip().lower().startswith("<!doctype html")


def test_profile_report_of_a_folder_without_collection(tmp_path):
    with pytest.raises(openge.RunError):
        openge.profile_report(tmp_path)


def test_range_closes_when_the_block_raises(tmp_path):
    session = profiled_session(tmp_path)
    with pytest.raises(KeyError):
        with session.range("failing"):
            raise KeyError("x")
    with pytest.raises(openge.RunError, match="range_pop"):
        session.range_pop()  # nothing left open
    session.finish_profiling()


def test_profiling_off_means_no_folder_and_no_op_calls():
    session = openge.Session(str(DEMO_MODEL))
    assert session.profiling_dir == ""
    with session.range("ignored"):
        session.mark("ignored")
    session.finish_profiling()


def test_profiling_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PROFILING_MODE", "true")
    monkeypatch.setenv("PROFILING_OPTIONS", json.dumps({"output": str(tmp_path), "task_trace": "on", "training_trace": "on"}))
    session = openge.Session(str(DEMO_MODEL))
    assert session.profiling_dir.startswith(str(tmp_path))


def test_bad_profiling_options_refused_at_session_creation(tmp_path):
    opts = npu.global_options()
    opts.profiling_config.enable_profiling = True
    opts.profiling_config.profiling_options = json.dumps({"output": str(tmp_path), "task_trace": "maybe"})
    with pytest.raises(openge.OptionError, match="task_trace"):
        openge.Session(str(DEMO_MODEL))
    assert not list(tmp_path.iterdir())  # nothing created
