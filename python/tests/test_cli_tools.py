"""The CLI's dump convert / compare and explain-precision from Python: the same
engine functions give the same values the CLI prints or writes, the comparison's numbers agree
with NumPy on the converted tensors, and bad input raises the package's exceptions with the
CLI's message. Every public name has a docstring and an entry in the typed stub."""
import ast
import glob
import json
import os
import pathlib
import re
import subprocess

import numpy
import pytest

import openge
from conftest import DEMO_MODEL, cli_path


def cli(*args):
    r = subprocess.run([str(cli_path()), *map(str, args)], capture_output=True, text=True, timeout=300)
    return r


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    """The demo model dumped (all ops, outputs) by the CLI in float32 and under allow_mix_precision."""
    root = tmp_path_factory.mktemp("dumps")
    out = {}
    for name, extra in (("fp32", []), ("mixed", ["--option", "precision_mode=allow_mix_precision"])):
        folder = root / name
        folder.mkdir()
        r = cli("run", "--threads", "1", "--option", "dump_config.enable_dump=True",
                "--option", f"dump_config.dump_path={folder}", *extra)
        assert r.returncode == 0, r.stderr
        out[name] = folder
    return out


def npy_outputs(folder):
    """{op name: [output arrays by slot]} of a dump converted by the CLI."""
    ops = {}
    for path in sorted(glob.glob(os.path.join(folder, "**", "*.output.*.npy"), recursive=True)):
        f = os.path.basename(path).split(".")
        ops.setdefault(f[1], {})[int(f[6])] = numpy.load(path)
    return ops


def test_dump_convert_writes_what_the_cli_writes(dumps, tmp_path):
    summary = openge.dump_convert(dumps["fp32"], output=tmp_path / "py")
    r = cli("dump", "convert", dumps["fp32"], "--to", "npy", "--output", tmp_path / "cli")
    assert r.returncode == 0, r.stderr
    assert f"{summary.dump_files} dump files converted into {summary.npy_files} .npy files" in r.stdout
    py = {p.relative_to(tmp_path / "py"): p.read_bytes() for p in (tmp_path / "py").rglob("*.npy")}
    ref = {p.relative_to(tmp_path / "cli"): p.read_bytes() for p in (tmp_path / "cli").rglob("*.npy")}
    assert len(py) == summary.npy_files and summary.dump_files >= 10
    assert py == ref


def test_compare_matches_numpy_and_the_cli(dumps, tmp_path):
    result = openge.compare(dumps["fp32"], dumps["mixed"], threshold=1e-4, output=tmp_path / "py.csv")
    # The CLI's files are the same bytes.
    r = cli("compare", dumps["fp32"], dumps["mixed"], "--threshold", "1e-4", "--output", tmp_path / "cli.csv")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "py.csv").read_text() == (tmp_path / "cli.csv").read_text() == result.csv
    assert result.html_path == str(tmp_path / "py.html")
    assert (tmp_path / "py.html").read_text() == result.html
    assert result.html.startswith("<!DOCTYPE html>") and 'id=error-plot' in result.html
    # Every row against NumPy on the converted tensors (float64, as documented).
    openge.dump_convert(dumps["fp32"], output=tmp_path / "a")
    openge.dump_convert(dumps["mixed"], output=tmp_path / "b")
    a, b = npy_outputs(tmp_path / "a"), npy_outputs(tmp_path / "b")
    assert len(result.rows) == sum(len(v) for k, v in a.items() if k in b) >= 10
    for row in result.rows:
        x = a[row.op_name][row.output].astype(numpy.float64).ravel()
        y = b[row.op_name][row.output].astype(numpy.float64).ravel()
        assert row.shape == ",".join(map(str, a[row.op_name][row.output].shape))
        assert row.max_abs_error == pytest.approx(numpy.abs(x - y).max(), rel=1e-12, abs=0)
        assert row.max_rel_error == pytest.approx(numpy.abs(x - y).max() / numpy.abs(x).max(), rel=1e-12, abs=0)
        assert row.cosine == pytest.approx(x @ y / numpy.sqrt((x @ x) * (y @ y)), rel=1e-12)
        assert row.exceeds == (row.max_rel_error > 1e-4)
    # The first row over the threshold, and none before it.
    over = [i for i, row in enumerate(result.rows) if row.max_rel_error > 1e-4]
    assert over and result.first_exceeding == over[0]
    first = result.first_exceeding_op
    # The CLI names it on its last line by model node, with the dumped op's name and type.
    line = next(l for l in r.stdout.splitlines() if l.startswith("first op over the threshold"))
    assert f"'{first.op_name}'" in line and f"{first.op_type} output {first.output}" in line
    # The ops one side only dumped (the Casts mixed precision inserts), each by name, CLI and Python alike.
    only_b = sorted(set(b) - set(a))
    assert only_b and sorted(re.search(r"'(.*)'", n).group(1) for n in result.ops_only_in_b) == only_b
    assert len(result.ops_only_in_b) == result.only_in_b and result.ops_only_in_a == () and result.warning == ""
    for name in result.ops_only_in_b:
        assert f"only in B: {name}\n" in r.stdout


def test_compare_without_output_writes_nothing_and_html_alone_when_asked(dumps, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = openge.compare(dumps["fp32"], dumps["fp32"], threshold=0.0)
    assert result.first_exceeding is None and result.first_exceeding_op is None
    assert all(row.max_abs_error == 0 and row.cosine == 1 for row in result.rows)
    assert result.html_path is None and list(tmp_path.iterdir()) == []
    page = openge.compare(dumps["fp32"], dumps["fp32"], html=tmp_path / "only.html")
    assert page.html_path == str(tmp_path / "only.html") and [p.name for p in tmp_path.iterdir()] == ["only.html"]


def test_bad_dump_folders_raise_dump_error_with_the_cli_message(dumps, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    r = cli("compare", empty, dumps["fp32"])
    with pytest.raises(openge.DumpError) as e:
        openge.compare(empty, dumps["fp32"])
    assert isinstance(e.value, ValueError)
    assert r.returncode == 1 and r.stderr.strip() == f"openge compare: error: {e.value}"
    with pytest.raises(openge.DumpError, match="is not a folder"):
        openge.compare(tmp_path / "missing", dumps["fp32"])
    with pytest.raises(openge.DumpError, match="no dump files"):
        openge.dump_convert(empty)
    (empty / "Conv.c.0.0.1").write_bytes(b"\x05\x00\x00\x00")
    with pytest.raises(openge.DumpError, match=r"Conv\.c\.0\.0\.1"):
        openge.dump_convert(empty)
    with pytest.raises(ValueError, match="npy"):
        openge.dump_convert(dumps["fp32"], to="csv")
    # An output that cannot be written: nothing left behind.
    with pytest.raises(openge.DumpError, match="cannot create"):
        openge.compare(dumps["fp32"], dumps["mixed"], output=tmp_path / "no" / "c.csv")
    with pytest.raises(openge.DumpError, match="cannot create"):
        openge.compare(dumps["fp32"], dumps["mixed"], output=tmp_path / "c.csv", html=tmp_path / "no" / "c.html")
    assert not (tmp_path / "c.csv").exists() and not (tmp_path / "no").exists()


def test_explain_precision_is_the_cli_json(tmp_path):
    options = {"precision_mode": "allow_mix_precision"}
    explained = openge.explain_precision(str(DEMO_MODEL), options=options, threads=1)
    r = cli("explain-precision", "--model", DEMO_MODEL, "--json", "--threads", "1",
            "--option", "precision_mode=allow_mix_precision")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert explained.nodes == report["nodes"] and explained.warnings == report["warnings"]
    # The demo's one input got the CLI's random data; the model's 13 nodes are all reported.
    assert explained.input_notes == ["input 'image': random float32 [1,3,32,32] (seed 0)"]
    names = [n["node"] for n in explained.nodes]
    for node in ("conv1", "conv2", "conv3", "fc", "softmax"):
        assert any(node in n for n in names), (node, names)
    # allow_mix_precision: convolutions are on CANN's float16 white list; must_keep_origin_dtype
    # keeps every node in the model's float32.
    assert all(n["input_dtype"] == "float16" for n in explained.nodes if n["op_type"] in ("Conv", "FusedConv"))
    kept = openge.explain_precision(DEMO_MODEL, options={"precision_mode": "must_keep_origin_dtype"}, threads=1)
    assert {n["input_dtype"] for n in kept.nodes if n["original_dtype"]} == {"float32"}


def test_explain_precision_takes_inputs_and_raises_on_bad_ones():
    x = numpy.zeros((1, 3, 32, 32), numpy.float32)
    explained = openge.explain_precision(DEMO_MODEL, inputs={"image": x})
    assert explained.input_notes == [] and explained.nodes
    with pytest.raises(openge.InputError, match="unknown input 'img'"):
        openge.explain_precision(DEMO_MODEL, inputs={"img": x})
    with pytest.raises(openge.InputError):
        openge.explain_precision(DEMO_MODEL, inputs={"image": numpy.zeros((1, 3, 8, 8), numpy.float32)})
    with pytest.raises(openge.OptionError, match="precision_mode"):
        openge.explain_precision(DEMO_MODEL, options={"precision_mode": "fast"})
    with pytest.raises(openge.ModelError):
        openge.explain_precision(b"not a model")


def cli_blocks(text, first_width=17):
    """`openge paths` output: {kind: {"path": ..., "rule": ..., "chain": ..., "written": ...}}."""
    blocks, current = {}, None
    for line in text.splitlines():
        if not line.startswith(" "):
            kind, _, path = line.partition(" ")
            current = blocks.setdefault(kind, {"path": path.strip()})
        elif current is not None:
            key, _, value = line.strip().partition(": ")
            current[key] = value
    return blocks


# The chains of the other entry points that `openge paths` lists after the artifacts.
ENTRY_CHAINS = ("msprof_profiling", "acl_json_profiling", "torch_profiling", "graph_build_kernel_meta")


def test_paths_lists_the_msprof_acl_json_torch_and_graph_build_chains_in_plain_words(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_WORK_PATH"}
    unset = subprocess.run([str(cli_path()), "paths"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    work = tmp_path / "work"
    set_ = subprocess.run([str(cli_path()), "paths"], capture_output=True, text=True,
                          env={**env, "ASCEND_WORK_PATH": str(work)}, cwd=tmp_path, timeout=300)
    assert unset.returncode == 0 and set_.returncode == 0, unset.stderr + set_.stderr
    without, with_work = cli_blocks(unset.stdout), cli_blocks(set_.stdout)
    for kind in ENTRY_CHAINS:
        assert "ASCEND_WORK_PATH" in without[kind]["chain"], kind
        assert with_work[kind]["rule"].startswith("ASCEND_WORK_PATH"), (kind, with_work[kind])
    assert without["msprof_profiling"]["path"] == "(set by each run)"
    assert "model file" in without["msprof_profiling"]["rule"]
    assert "executable" in without["acl_json_profiling"]["rule"]
    assert without["torch_profiling"]["path"] == str(tmp_path)
    assert without["graph_build_kernel_meta"]["path"] == str(tmp_path / "kernel_meta")
    for kind in ("msprof_profiling", "acl_json_profiling", "torch_profiling"):
        assert with_work[kind]["path"] == str(work / "profiling_data"), kind
    # Plain words: no requirement IDs (those are for `options --explain`).
    assert not re.search(r"\b(ENV|OPT|PROF|MISC|NPU|DISC|AMB)-[0-9A-Za-z]", unset.stdout + set_.stdout), unset.stdout


def digits_as_n(text):
    return re.sub(r"[0-9]+", "N", text)


def test_paths_and_explain_are_the_cli_reports(tmp_path):
    settings = {"dump_config.enable_dump": True, "dump_config.dump_path": str(tmp_path)}
    py = openge.paths(settings)
    r = cli("paths", "--option", "dump_config.enable_dump=True", "--option", f"dump_config.dump_path={tmp_path}")
    assert r.returncode == 0, r.stderr
    blocks = cli_blocks(r.stdout)
    kinds = [k for k in py if k != "compile_cache_size"]
    assert kinds and sorted(kinds) == sorted(k for k in blocks if k != "compile_cache_size" and k not in ENTRY_CHAINS)
    for kind in kinds:
        row, block = py[kind], blocks[kind]
        # Paths that hold the process id (tmp_weight_<pid>_<session>) differ only there.
        assert digits_as_n(row["path"] or "(none)") == digits_as_n(block["path"]) and row["rule"] == block["rule"], kind
        written = ("no, nothing writes it yet" if row["written_by"] is None else
                   f"yes, by {row['written_by']}" + (f", only {row['written_only']}" if row["written_only"] else ""))
        assert written == block["written"], kind
    assert py["data_dump"]["written_by"] and py["data_dump"]["path"].startswith(str(tmp_path))
    # A default that depends on the scenario is printed per scenario by both.
    scenario = [row["name"] for row in openge.option_table() if row["default_depends_on_scenario"]]
    for name in scenario[:3] + ["precision_mode"]:
        row = openge.explain(name)
        r = cli("options", "--explain", name)
        lines = {l.strip().split(":", 1)[0]: l.strip().split(":", 1)[1].strip() for l in r.stdout.splitlines()[2:] if ":" in l}
        assert lines["default"] == row["default_text"] and lines["effect"] == f"{row['status']}: {row['effect']}", name


def test_every_public_name_has_a_docstring_and_a_stub_entry():
    stub = pathlib.Path(openge.__file__).with_name("__init__.pyi")
    tree = ast.parse(stub.read_text())
    declared = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    declared |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    declared |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    missing_stub = [name for name in openge.__all__ if name not in declared]
    assert missing_stub == []
    undocumented = [name for name in openge.__all__
                    if not name.startswith("__") and not (getattr(openge, name).__doc__ or "").strip()]
    assert undocumented == []


@pytest.mark.parametrize("command", ["compare", "dump", "profile-report", "run", "compile", "paths", "options"])
def test_help_lists_each_flag_once(command):
    r = cli(command, "--help")
    assert r.returncode == 0, r.stderr
    flags = re.findall(r"^  (--[a-z0-9_-]+)", r.stdout, re.M)
    assert flags and len(flags) == len(set(flags)), r.stdout
