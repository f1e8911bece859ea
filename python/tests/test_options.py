"""npu.global_options(): every field of the option table checked (valid value read back, wrong type, out-of-range value), repr/reset, the environment, the
cross-field rules at Session creation, and the CLI's reports as Python values."""
import re

import pytest

import openge
from openge import npu
from conftest import DEMO_MODEL

# ---- every field of the option table --------------------------------------------------------

FIELDS = npu.fields()
ROWS = {row["name"]: row for row in openge.option_table()}

# One valid value per kind of option (a new kind fails here until it has one).
VALID_BY_KIND = {
    "bool": True,
    "string": "any text",
    "file path": "/no/such/dir/config.cfg",  # existence is checked when a Session is created
    "directory path": "/no/such/dir",
    "engine list": "DNN_VM_AICPU:10,AIcoreEngine:1",
    "step list": "0|5|10-20",
    "JSON string": '{"output":"/tmp/profiling","training_trace":"on"}',
    "int (ms)": 600000,
    "name list": "ScopeLayerNormPass,ScopeClipBoxesPass",
}
# A value of the right type outside what the field allows, per kind.
INVALID_BY_KIND = {
    "file path": "bad\0path",
    "directory path": "bad\0path",
    "engine list": "DNN_VM_AICPU:99",
    "step list": "20-10",
    "JSON string": "{not json",
    "int (ms)": 0,
    "name list": "a,,b",
}
# Kinds where every value of the right type is valid.
NO_INVALID_VALUE = {"bool", "string"}


def valid_value(row):
    if row["kind"] == "int":
        return row["range"][0] if row["range"][1] - row["range"][0] > 1000 else row["range"][1]
    if row["choices"]:
        return row["allowed"].split("|")[-1]
    assert row["kind"] in VALID_BY_KIND, f"no sample value for kind {row['kind']!r} ({row['name']})"
    return VALID_BY_KIND[row["kind"]]


def invalid_value(row):
    if row["kind"] == "int":
        lo, hi = row["range"]
        return hi + 1 if hi < 2**63 - 1 else lo - 1
    if row["choices"]:
        return "Pooling,not_a_value" if row["kind"] == "type list" else "not_a_value"
    return INVALID_BY_KIND[row["kind"]]


def wrong_type_value(row):
    if "str" not in row["types"]:
        return "1"
    if "int" not in row["types"]:
        return 1
    return 1.5


def field_node(name):
    obj = npu.global_options()
    *groups, leaf = name.split(".")
    for g in groups:
        obj = getattr(obj, g)
    return obj, leaf


def test_attribute_tree_is_the_option_table():
    expected = [r["name"] for r in openge.option_table() if r["env_var"] != r["name"]]
    assert FIELDS == expected
    groups = {n.split(".")[0] for n in FIELDS if "." in n}
    assert groups == {"memory_config", "dump_config", "profiling_config", "aoe_config"}
    assert "precision_mode" in dir(npu.global_options())
    assert "enable_dump" in dir(npu.global_options().dump_config)


@pytest.mark.parametrize("name", FIELDS)
def test_field_valid_value_read_back(name):
    row = ROWS[name]
    value = valid_value(row)
    obj, leaf = field_node(name)
    setattr(obj, leaf, value)
    got = getattr(obj, leaf)
    assert got == value and type(got) is type(value)
    assert npu.global_options().effective()[name][1] == "flag"
    delattr(obj, leaf)
    assert npu.global_options().effective()[name][1] != "flag"


@pytest.mark.parametrize("name", FIELDS)
def test_field_wrong_type_raises_option_error(name):
    row = ROWS[name]
    obj, leaf = field_node(name)
    before = getattr(obj, leaf)
    with pytest.raises(openge.OptionError) as e:
        setattr(obj, leaf, wrong_type_value(row))
    assert isinstance(e.value, ValueError)
    assert str(e.value).startswith("E10001: Value [")
    assert f"for parameter [{name}] is invalid" in str(e.value)
    assert getattr(obj, leaf) == before  # a refused value changes nothing


@pytest.mark.parametrize("name", [n for n in FIELDS if ROWS[n]["kind"] not in NO_INVALID_VALUE])
def test_field_out_of_range_raises_option_error(name):
    row = ROWS[name]
    obj, leaf = field_node(name)
    with pytest.raises(openge.OptionError) as e:
        setattr(obj, leaf, invalid_value(row))
    assert f"for parameter [{name}] is invalid" in str(e.value)


def test_only_bool_and_free_text_fields_have_no_invalid_value():
    assert {ROWS[n]["kind"] for n in FIELDS} - set(VALID_BY_KIND) - {"int", "enum", "type list"} == set()
    assert NO_INVALID_VALUE == {"bool", "string"}


def test_error_text_is_the_clis(tmp_path):
    import subprocess
    from conftest import cli_path
    with pytest.raises(openge.OptionError) as e:
        npu.global_options().precision_mode = "allow_mix_precison"
    cli = subprocess.run([str(cli_path()), "check-options", "--option", "precision_mode=allow_mix_precison"],
                         capture_output=True, text=True)
    assert cli.returncode == 1
    # Same E10001 text; only the origin in the last parenthesis differs.
    python_text = str(e.value).rsplit(" (from ", 1)[0]
    cli_line = next(l for l in cli.stderr.splitlines() if "E10001" in l)
    assert cli_line.split("error: ", 1)[1].rsplit(" (from ", 1)[0] == python_text
    assert "did you mean 'allow_mix_precision'" in python_text


def test_unknown_field_says_did_you_mean():
    with pytest.raises(openge.OptionError, match=r"unknown option.*precision_mode"):
        npu.global_options().precison_mode = "force_fp32"
    with pytest.raises(openge.OptionError, match=r"unknown option.*dump_mode"):
        npu.global_options().dump_config.dump_mod = "all"
    with pytest.raises(AttributeError):
        npu.global_options().precison_mode


def test_group_cannot_be_replaced():
    with pytest.raises(openge.OptionError):
        npu.global_options().dump_config = {}


# ---- repr, reset, environment -------------------------------------------------------------


def test_repr_shows_effective_values_and_sources(monkeypatch):
    monkeypatch.setenv("ASCEND_DEVICE_ID", "3")
    npu.global_options().precision_mode = "force_fp32"
    text = repr(npu.global_options())
    assert re.search(r"^  precision_mode +\= force_fp32  \[flag: npu.global_options\(\)\]$", text, re.M)
    assert re.search(r"^  device_id +\= 3  \[env: ASCEND_DEVICE_ID\]$", text, re.M)
    assert re.search(r"^  dump_config.dump_mode +\= output  \[default\]$", text, re.M)
    assert len([l for l in text.splitlines() if l.startswith("  ")]) == len(openge.option_table())


def test_reset_restores_defaults():
    opts = npu.global_options()
    default = opts.precision_mode
    opts.precision_mode = "force_fp32"
    opts.dump_config.dump_mode = "all"
    opts.reset()
    assert opts.precision_mode == default == "must_keep_origin_dtype"
    assert opts.dump_config.dump_mode == "output"
    assert opts.assignments() == []


def test_none_unsets_a_field():
    npu.global_options().dump_config.dump_step = "0|5"
    npu.global_options().dump_config.dump_step = None
    assert npu.global_options().dump_config.dump_step is None


def test_environment_applies_below_assignments(monkeypatch):
    monkeypatch.setenv("PROFILING_MODE", "true")
    opts = npu.global_options()
    assert opts.profiling_config.enable_profiling is True
    assert opts.effective()["profiling_config.enable_profiling"][1:] == ("env", "PROFILING_MODE")
    opts.profiling_config.enable_profiling = False
    assert opts.profiling_config.enable_profiling is False


def test_scenario_default_follows_graph_run_mode():
    opts = npu.global_options()
    opts.soc_version = "Ascend310P"
    assert opts.precision_mode == "allow_fp32_to_fp16"
    opts.graph_run_mode = 0
    assert opts.precision_mode == "force_fp16"


# ---- rules between options: at Session creation, all problems together -----------------------


def test_cross_field_rules_checked_at_session_creation_all_together():
    opts = npu.global_options()
    opts.precision_mode = "allow_mix_precision"      # both precision modes: refused together
    opts.precision_mode_v2 = "fp16"
    opts.modify_mixlist = "/no/such/mixlist.json"      # a missing file
    with pytest.raises(openge.OptionError) as e:
        openge.Session(str(DEMO_MODEL))
    lines = str(e.value).splitlines()
    assert len(lines) >= 2, lines
    assert all(l.startswith("E10001: ") for l in lines)
    assert any("[precision_mode_v2]" in l for l in lines)
    assert any("[modify_mixlist]" in l for l in lines)


def test_session_options_dict_problems_reported_together():
    with pytest.raises(openge.OptionError) as e:
        openge.Session(str(DEMO_MODEL), options={"deterministic": 7, "dump_config.dump_mode": "everything"})
    assert "[deterministic]" in str(e.value) and "[dump_config.dump_mode]" in str(e.value)


def test_deprecated_option_warns_at_session_creation():
    npu.global_options().op_select_implmode = "high_precision"
    with pytest.warns(openge.OptionWarning, match="op_select_implmode"):
        openge.Session(str(DEMO_MODEL))


# ---- reports ---------------------------------------------------------------------------------


def test_check_options_report():
    assert openge.check_options().valid
    r = openge.check_options({"precision_mode": "allow_mix_precision", "precision_mode_v2": "fp16"})
    assert not r.valid and any("[precision_mode_v2]" in e for e in r.errors)


def test_explain_report():
    info = openge.explain("enable_dump")  # leaf names resolve as in the CLI
    assert info["name"] == "dump_config.enable_dump"
    assert info["ge_key"] == "ge.exec.enableDump"
    assert info["effective"] == ("False", "default", "")
    assert info["status"] in ("implemented", "accepted, not implemented yet", "no effect on CPU") and info["effect"]
    assert openge.explain("hcom_parallel")["status"] == "implemented"
    assert openge.explain("hcom_parallel")["consumer"] == "src/session/data_parallel.cpp"
    assert openge.explain("stream_max_parallel_num")["consumer"] == "src/compiler/memory_layout.cpp"
    assert openge.explain("atomic_clean_policy")["status"] == "implemented"
    assert openge.explain("atomic_clean_policy")["consumer"] == "src/runtime/executable_run.cpp"
    assert openge.explain("static_memory_policy")["status"] == "no effect on CPU"
    with pytest.raises(openge.OptionError, match="unknown option"):
        openge.explain("enable_dum_x")


def test_paths_report(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_WORK_PATH", str(tmp_path))
    p = openge.paths()
    assert p["log"]["path"].startswith(str(tmp_path))
    assert "ASCEND_WORK_PATH" in p["log"]["rule"]
    assert p["compile_cache_size"]["max_size_mb"] > 0


def test_paths_compile_cache_names_mode_and_soc_folder(tmp_path):
    cache = tmp_path / "cache"
    p = openge.paths({"op_compiler_cache_dir": str(cache), "op_compiler_cache_mode": "force",
                      "soc_version": "Ascend910B"})["compile_cache_size"]
    assert p["mode"] == "force"
    assert p["folder"] == str(cache / "kernel_cache" / "Ascend910B")
    assert openge.paths({"op_compiler_cache_dir": str(cache)})["compile_cache_size"]["mode"] == "enable"


def test_independent_options_object_with_keywords():
    opts = npu.NpuOptions(precision_mode="force_fp32", dump_config__dump_mode="all")
    assert opts.precision_mode == "force_fp32" and opts.dump_config.dump_mode == "all"
    assert npu.global_options().precision_mode == "must_keep_origin_dtype"  # untouched
    copy = opts.copy()
    copy.precision_mode = None
    assert opts.precision_mode == "force_fp32" and copy.precision_mode == "must_keep_origin_dtype"
    with pytest.raises(openge.OptionError, match=r"\[deterministic\]"):
        npu.NpuOptions(deterministic=5)
