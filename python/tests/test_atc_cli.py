"""openge atc: command lines in the form of CANN's ATC documentation run with `atc` replaced by
`openge atc` (compile, --mode=1, --mode=3, debug_dir, a flag with no CPU meaning, a typo)."""
import json
import os
import shlex
import subprocess

import numpy
import onnx
import onnx.utils
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import DEMO_MODEL, cli_path, model_bytes


def atc(line: str, cwd, env=None):
    """Runs a documented ATC line with its leading `atc` replaced by `openge atc`."""
    words = shlex.split(line)
    assert words[0] == "atc"
    return subprocess.run([str(cli_path()), "atc", *words[1:]], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env=env)


@pytest.fixture
def eltwise_model(tmp_path):
    """A static model whose vector ops are fused into one group and compiled online (kernel_meta)."""
    c = numpy_helper.from_array(numpy.full((1, 256), 0.5, numpy.float32), "c")
    path = tmp_path / "eltwise.onnx"
    path.write_bytes(model_bytes(
        [helper.make_node("Add", ["x", "c"], ["a"]), helper.make_node("Relu", ["a"], ["r"]),
         helper.make_node("Mul", ["r", "c"], ["m"]), helper.make_node("Sigmoid", ["m"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 256])], [c]))
    return path


def test_compile_with_input_shape_and_precision_options_appends_the_extension(tmp_path):
    done = atc(f'atc --framework=5 --model={DEMO_MODEL} --output=out/demo_bs1 --input_format=NCHW '
               f'--input_shape="image:1,3,32,32" --log=error --soc_version=Ascend310P3 '
               f'--precision_mode=allow_mix_precision --op_select_implmode=high_precision', tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "demo_bs1.oge").is_file()
    assert not (tmp_path / "out" / "demo_bs1").exists()
    assert "option precision_mode = allow_mix_precision" in done.stdout
    assert "option soc_version = Ascend310P" in done.stdout
    assert "using the Ascend310P profile" in done.stderr


def test_mode_1_writes_the_compiled_model_as_json(tmp_path):
    assert atc(f"atc --model={DEMO_MODEL} --framework=5 --output=demo --soc_version=Ascend910B", tmp_path).returncode == 0
    done = atc("atc --mode=1 --om=demo.om --json=demo.json", tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "demo.json").read_text())
    assert doc["header"]["options"]["soc_version"] == "Ascend910B"
    assert [i["name"] for i in doc["graph"]["input"]] == ["image"]
    assert doc["graph"]["input"][0]["shape"] == [1, 3, 32, 32]
    nodes = {n["name"]: n["type"] for n in doc["graph"]["node"]}
    # The compiled graph: the model's conv1 is there, fused with what followed it.
    assert nodes.get("conv1") == "FusedConv", nodes


def test_mode_3_prechecks_into_the_check_report(tmp_path):
    done = atc(f"atc --mode=3 --framework=5 --model={DEMO_MODEL} --soc_version=Ascend910B1 "
               f"--check_report={tmp_path}/report.json", tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report  # the precheck's own format; its content is tested with openge check


# ENV-19: kernel_meta of an ATC compile: --debug_dir > ASCEND_WORK_PATH > the working folder.
# openge compile builds the generated kernels into the .oge, under op_debug_level into kernel_meta
# with their debug files.
@pytest.mark.parametrize("chosen_by", ["debug_dir", "ASCEND_WORK_PATH", "default"])
def test_ENV_19_kernel_meta_follows_debug_dir_then_work_path(tmp_path, eltwise_model, chosen_by):
    debug, work, cwd = tmp_path / "debug_info", tmp_path / "work", tmp_path / "cwd"
    cwd.mkdir()
    env = dict(os.environ)
    env.pop("ASCEND_WORK_PATH", None)
    if chosen_by != "default":
        env["ASCEND_WORK_PATH"] = str(work)
    line = (f"atc --model={eltwise_model} --framework=5 --output={tmp_path}/elt --soc_version=Ascend910B "
            f"--op_debug_level=1" + (f" --debug_dir={debug}" if chosen_by == "debug_dir" else ""))
    done = atc(line, cwd, env)
    assert done.returncode == 0, done.stderr
    roots = {"debug_dir": debug, "ASCEND_WORK_PATH": work, "default": cwd}
    metas = [p for root in (debug, work, cwd) if root.exists() for p in root.rglob("kernel_meta")]
    assert metas, done.stdout + done.stderr
    assert all(roots[chosen_by] in m.parents for m in metas), metas
    assert any(p.suffix == ".so" for m in metas for p in m.iterdir())


def test_mode_1_lists_the_kernels_built_into_the_model(tmp_path, eltwise_model):
    done = atc(f"atc --model={eltwise_model} --framework=5 --output=elt --soc_version=Ascend910B", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "built in for x86-64-v" in done.stdout, done.stdout
    done = atc("atc --mode=1 --om=elt.om --json=elt.json", tmp_path)
    assert done.returncode == 0, done.stderr
    kernels = json.loads((tmp_path / "elt.json").read_text())["header"]["kernels"]
    assert kernels["isa"].startswith("x86-64-v"), kernels
    assert len(kernels["binaries"]) == 1 and kernels["binaries"][0]["bytes"] > 1000, kernels


def test_flag_without_cpu_meaning_is_accepted_with_one_line(tmp_path):
    done = atc(f"atc --model={DEMO_MODEL} --framework=5 --output=demo --soc_version=Ascend910B "
               f"--insert_op_conf=insert_op.cfg", tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "insert_op_conf" in line]
    assert len(lines) == 1 and "does not apply on a CPU" in lines[0]
    assert (tmp_path / "demo.oge").is_file()


def test_typo_is_refused_with_did_you_mean_before_compiling(tmp_path):
    done = atc(f"atc --model={DEMO_MODEL} --framework=5 --output=demo --soc_verison=Ascend910B", tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0
    assert "did you mean --soc_version?" in done.stderr
    assert not (tmp_path / "demo.oge").exists()


def test_other_frameworks_are_refused_naming_onnx(tmp_path):
    done = atc("atc --model=resnet50.pb --framework=3 --output=out --soc_version=Ascend910B", tmp_path)
    assert done.returncode == 1
    assert "--framework=5" in done.stderr


def test_out_nodes_compiles_those_nodes_outputs(tmp_path):
    """--out_nodes gives the same outputs as the model cut there by onnx.utils.extract_model."""
    done = atc(f'atc --model={DEMO_MODEL} --framework=5 --output=cut --soc_version=Ascend910B '
               f'--out_nodes="pool1:0;conv3:0"', tmp_path)
    assert done.returncode == 0, done.stderr
    assert not [p for p in DEMO_MODEL.parent.iterdir() if p.name.startswith(".")], "the edited copy is removed"
    onnx.utils.extract_model(str(DEMO_MODEL), str(tmp_path / "extracted.onnx"), ["image"], ["p1", "c3"])
    x = numpy.random.default_rng(1).random((1, 3, 32, 32), dtype=numpy.float32)
    numpy.save(tmp_path / "x.npy", x)
    for model, out in (("cut.oge", "a"), ("extracted.onnx", "b")):
        ran = subprocess.run([str(cli_path()), "run", "--model", model, "--input", "x.npy", "--output", out,
                              "--outfmt", "NPY", "--option", "soc_version=Ascend910B"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0, ran.stderr
    for i in (0, 1):
        a, b = numpy.load(tmp_path / "a" / f"output_{i}.npy"), numpy.load(tmp_path / "b" / f"output_{i}.npy")
        assert a.shape == b.shape == (1, 16, 16, 16)
        numpy.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    bad = atc(f'atc --model={DEMO_MODEL} --framework=5 --output=bad --soc_version=Ascend910B --out_nodes="pool9:0"', tmp_path)
    assert bad.returncode == 1 and "no node 'pool9'" in bad.stderr
