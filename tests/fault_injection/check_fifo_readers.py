#!/usr/bin/python3
"""Every reader given a FIFO, through the CLI (docs/RELIABILITY.md, "Readers take regular files
only"): nothing ever writes into the FIFO, so a reader that opens it blocks forever. Each
command must end within 5 s: with exit 1 and an error naming the FIFO, or, for the readers whose
file is optional (the AOE knowledge base, a compile cache manifest), with the run going on
without it (exit 0).

Usage: check_fifo_readers.py --openge BIN --demo M.onnx --work DIR
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_seeded_kills  # noqa: E402  (its MLP and training data)

LIMIT_S = 5.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    w = args.work

    def fifo(*parts):
        path = os.path.join(w, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.mkfifo(path, 0o600)
        return path

    def folder(*parts):
        path = os.path.join(w, *parts)
        os.makedirs(path, exist_ok=True)
        os.chmod(path, 0o750)
        return path

    # A model whose initializer lives in external data that is a FIFO.
    init = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[2])
    init.data_location = TensorProto.EXTERNAL
    init.external_data.add(key="location", value="weights.bin")
    graph = helper.make_graph([helper.make_node("Add", ["x", "W"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [init])
    ext_dir = folder("external")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(ext_dir, "m.onnx"))
    fifo("external", "weights.bin")
    folder("dump_dir")
    fifo("dump_dir", "0", "Relu.relu.0.0.1700000000000000")
    folder("prof", "mindstudio_profiler_output")
    fifo("prof", "mindstudio_profiler_output", "op_summary_0_1_1.csv")
    fifo("inputs_dir", "input_0.pb")
    fifo("ckpt", "checkpoint.json")
    kb_dir = folder("aoe")
    fifo("aoe", "aoe_knowledge_base.json")
    np.save(os.path.join(w, "x.npy"), np.zeros(2, np.float32))
    check_seeded_kills.make_models(w)
    cases = [
        ("--model", ["run", "--model", fifo("model.onnx")], 1),
        ("--input .npy", ["run", "--model", args.demo, "--input", "image=" + fifo("image.npy")], 1),
        ("--input .pb", ["run", "--model", args.demo, "--input", "image=" + fifo("image.pb")], 1),
        ("--inputs DIR/input_0.pb", ["run", "--model", args.demo, "--inputs", os.path.join(w, "inputs_dir")], 1),
        ("--options-file", ["run", "--model", args.demo, "--options-file", fifo("options.json")], 1),
        ("external data", ["run", "--model", os.path.join(ext_dir, "m.onnx"), "--input", "x=" + os.path.join(w, "x.npy")], 1),
        ("compiled model .oge", ["run", "--model", fifo("model.oge")], 1),
        ("checkpoint.json (--resume)", ["train", "--model", os.path.join(w, "mlp.onnx"), "--data", os.path.join(w, "data"),
                                        "--resume", os.path.join(w, "ckpt")], 1),
        ("dump file (dump convert)", ["dump", "convert", os.path.join(w, "dump_dir"), "--to", "npy"], 1),
        ("dump file (compare)", ["compare", os.path.join(w, "dump_dir"), os.path.join(w, "dump_dir")], 1),
        ("profiling CSV (profile-report)", ["profile-report", os.path.join(w, "prof")], 1),
        ("AOE knowledge base", ["run", "--model", args.demo, "--option", "aoe_config.aoe_mode=2", "--option",
                                "aoe_config.work_path=" + kb_dir], 0),
    ]
    failures = []
    for label, cmd, want in cases:
        start = time.time()
        try:
            r = subprocess.run([args.openge] + cmd, capture_output=True, text=True, timeout=LIMIT_S * 4, cwd=w)
            code, err = r.returncode, r.stderr
        except subprocess.TimeoutExpired:
            code, err = None, "still blocked after %.0f s" % (LIMIT_S * 4)
        took = time.time() - start
        ok = code == want and took < LIMIT_S
        print("%-4s %-32s exit %s in %.2f s: %s" % ("ok" if ok else "FAIL", label, code, took,
                                                     err.strip().splitlines()[-1][:160] if err.strip() else ""))
        if not ok:
            failures.append(label)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
