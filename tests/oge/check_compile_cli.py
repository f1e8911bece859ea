#!/usr/bin/python3
"""openge compile and openge run --model M.oge on the demo model, through the CLI."""
import argparse
import os
import shutil
import subprocess
import sys


def run(cmd, cwd, env=None):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120,
                          env=None if env is None else {**os.environ, **env})


def write_adagrad_model(path):
    """One Adagrad step (ai.onnx.preview.training, imported alone, as torch's exporter writes it)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    inits = [numpy_helper.from_array(np.array(0.1, dtype=np.float32), "R"),
             numpy_helper.from_array(np.array(3, dtype=np.int64), "T"),
             numpy_helper.from_array(np.array([0.5, 1.0, -2.0], dtype=np.float32), "H")]
    node = helper.make_node("Adagrad", ["R", "T", "X", "G", "H"], ["X_new", "H_new"], name="adagrad",
                            domain="ai.onnx.preview.training", decay_factor=0.1, epsilon=1e-5, norm_coefficient=0.01)
    vec = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [3])
    graph = helper.make_graph([node], "adagrad", [vec("X"), vec("G")], [vec("X_new"), vec("H_new")], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("ai.onnx.preview.training", 1)])
    onnx.save(model, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    a.openge, a.model, a.work = (os.path.abspath(x) for x in (a.openge, a.model, a.work))
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    failures = []

    def check(cond, what, proc=None):
        if not cond:
            failures.append(what + ("" if proc is None else f"\n  stdout: {proc.stdout}\n  stderr: {proc.stderr}"))

    oge = os.path.join(a.work, "demo.oge")
    p = run([a.openge, "compile", "--model", a.model, "--output", oge, "--threads", "1",
             "--option", "precision_mode=allow_fp32_to_fp16"], a.work)
    check(p.returncode == 0 and os.path.isfile(oge), "compile failed", p)
    check("option precision_mode = allow_fp32_to_fp16" in p.stdout, "compile does not list the recorded option", p)
    for kind, model in (("onnx", a.model), ("oge", oge)):
        extra = ["--option", "precision_mode=allow_fp32_to_fp16"] if kind == "onnx" else []
        p = run([a.openge, "run", "--model", model, "--threads", "1", "--outputs", os.path.join(a.work, kind)] + extra,
                a.work)
        check(p.returncode == 0, f"run of the {kind} failed", p)
    for name in sorted(os.listdir(os.path.join(a.work, "onnx"))):
        with open(os.path.join(a.work, "onnx", name), "rb") as x, open(os.path.join(a.work, "oge", name), "rb") as y:
            check(x.read() == y.read(), f"{name}: the .oge's output differs from the .onnx's")

    p = run([a.openge, "run", "--model", oge, "--option", "precision_mode=allow_mix_precision"], a.work)
    check(p.returncode != 0 and "compiled with 'allow_fp32_to_fp16'" in p.stderr and "openge compile" in p.stderr,
          "a conflicting option is not refused with what differs", p)
    with open(oge, "rb") as f:
        data = f.read()
    cut = os.path.join(a.work, "cut.oge")
    with open(cut, "wb") as f:
        f.write(data[: len(data) // 2])
    p = run([a.openge, "run", "--model", cut], a.work)
    check(p.returncode == 1 and "truncated" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          "a truncated .oge is not one error line", p)
    missing = os.path.join(a.work, "no", "such", "x.oge")
    p = run([a.openge, "compile", "--model", a.model, "--output", missing], a.work)
    check(p.returncode != 0 and not os.path.exists(missing), "a failed compile left a file or exited 0", p)
    p = run([a.openge, "compile", "--model", a.model, "--output", oge, "--input-shape", "image:1,3,x"], a.work)
    check(p.returncode != 0 and "--input-shape" in p.stderr, "a bad --input-shape is not refused", p)
    # NPU-8: compiled under NPU_COLLECT_PATH, the .oge is larger and --info lists its debug
    # sections; --section prints one (JSON); an unknown section is one error line.
    collected = os.path.join(a.work, "collected.oge")
    p = run([a.openge, "compile", "--model", a.model, "--output", collected, "--threads", "1",
             "--option", "precision_mode=allow_fp32_to_fp16"], a.work,
            {"NPU_COLLECT_PATH": os.path.join(a.work, "collect")})
    check(p.returncode == 0 and "debug section compile:" in p.stdout, "compile under NPU_COLLECT_PATH", p)
    if p.returncode == 0:
        check(os.path.getsize(collected) > os.path.getsize(oge), "NPU-8: the .oge is not larger under NPU_COLLECT_PATH")
    p = run([a.openge, "compile", "--info", collected], a.work)
    check(p.returncode == 0 and "debug section compile:" in p.stdout and "debug section kernels:" in p.stdout,
          "compile --info does not list the debug sections", p)
    p = run([a.openge, "compile", "--info", oge], a.work)
    check(p.returncode == 0 and "no debug sections" in p.stdout, "compile --info of a plain .oge", p)
    p = run([a.openge, "compile", "--info", collected, "--section", "compile"], a.work)
    try:
        import json
        nodes = json.loads(p.stdout)["nodes"]
        check(any("conv1" in n["from_model_nodes"] for n in nodes), "the compile record does not name conv1", p)
        model_nodes = {"conv1", "bn1", "relu1", "pool1", "conv2", "relu2", "conv3", "residual_add", "relu3", "gap",
                       "flatten", "fc", "softmax"}  # demo.onnx's nodes
        check(all(set(n["from_model_nodes"]) <= model_nodes for n in nodes),
              "the compile record names a model node the demo model does not have", p)
    except (ValueError, KeyError) as e:
        check(False, f"--section compile is not the compile record's JSON: {e}", p)
    p = run([a.openge, "compile", "--info", collected, "--section", "nope"], a.work)
    check(p.returncode == 1 and "nope" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          "an unknown --section is not one error line", p)
    # A model with a training optimizer (ai.onnx.preview.training, the only domain imported): its
    # .oge imports that domain too, loads, and gives the .onnx's bytes.
    adagrad = os.path.join(a.work, "adagrad.onnx")
    write_adagrad_model(adagrad)
    adagrad_oge = os.path.join(a.work, "adagrad.oge")
    p = run([a.openge, "compile", "--model", adagrad, "--output", adagrad_oge, "--threads", "1"], a.work)
    check(p.returncode == 0 and os.path.isfile(adagrad_oge), "compile of the Adagrad model failed", p)
    for kind, model in (("adagrad_onnx", adagrad), ("adagrad_oge", adagrad_oge)):
        p = run([a.openge, "run", "--model", model, "--threads", "1", "--outputs", os.path.join(a.work, kind)], a.work)
        check(p.returncode == 0, f"run of the Adagrad {kind} failed", p)
    if os.path.isdir(os.path.join(a.work, "adagrad_oge")):
        names = sorted(os.listdir(os.path.join(a.work, "adagrad_onnx")))
        check(sum(n.endswith(".npy") for n in names) == 2, f"the Adagrad model has two outputs, got {names}")
        for name in names:
            with open(os.path.join(a.work, "adagrad_onnx", name), "rb") as x, \
                 open(os.path.join(a.work, "adagrad_oge", name), "rb") as y:
                check(x.read() == y.read(), f"Adagrad {name}: the .oge's output differs from the .onnx's")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
