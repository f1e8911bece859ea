#!/usr/bin/python3
"""The online compiler's progress bar: drawn on stderr when stderr is a terminal
(here a pseudo-terminal, as `script` gives one), counting kernels compiled and cached of the total;
never written when stderr is a pipe or a file, so logs and CI output stay clean.

A model with one fusable chain (Add -> Mul -> Relu: one FusedElementwise kernel) is run three times
with jit_compile=true and one compile cache folder: on a pty with the cache cold (compiled 1), on a
pty with it warm (cached 1), and with stderr a pipe (no bar, though the compile ran: the cache's
entry is read, as the log says).
"""
import argparse
import glob
import os
import pty
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def write_model(path):
    one = numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one")
    half = numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half")
    nodes = [helper.make_node("Add", ["x", "one"], ["a"], name="add"),
             helper.make_node("Mul", ["a", "half"], ["m"], name="mul"),
             helper.make_node("Relu", ["m"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 64])], [one, half])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def run_on_pty(cmd, env):
    """stdout (a pipe) and everything written to stderr (a pseudo-terminal) of one process."""
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = p.stdout.read()
    p.wait(timeout=120)
    os.close(master)
    return p.returncode, out.decode(errors="replace"), b"".join(chunks).decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model = os.path.join(work, "chain.onnx")
    write_model(model)
    env = dict(os.environ, ASCEND_PROCESS_LOG_PATH=os.path.join(work, "log"), ASCEND_GLOBAL_LOG_LEVEL="1")
    env.pop("ASCEND_SLOG_PRINT_TO_STDOUT", None)
    cmd = [os.path.abspath(a.openge), "run", "--model", model, "--threads", "1", "--option", "jit_compile=true",
           "--option", "op_compiler_cache_dir=" + os.path.join(work, "cache")]
    failures = []

    def check(cond, what, detail=""):
        if not cond:
            failures.append(what + ("\n  " + detail if detail else ""))

    rc, out, err = run_on_pty(cmd, env)
    check(rc == 0, "cold run failed", out + err)
    check("\rcompiling kernels [" in err, "no progress bar on a terminal", repr(err))
    check("1/1 (compiled 1, cached 0)" in err, "the cold bar does not count one compiled kernel", repr(err))
    check(err.endswith("\r\n") or err.endswith("\n"), "the finished bar is not ended by a newline", repr(err))

    rc, out, err = run_on_pty(cmd, env)
    check(rc == 0, "warm run failed", out + err)
    check("1/1 (compiled 0, cached 1)" in err, "the warm bar does not count one cached kernel", repr(err))

    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    check(p.returncode == 0, "run with stderr a pipe failed", p.stdout + p.stderr)
    check("compiling kernels" not in p.stderr and "compiling kernels" not in p.stdout and "\r" not in p.stderr,
          "a progress bar was written to a pipe", repr(p.stderr))
    # The third run did compile online (from the cache): the bar's absence is not a skipped compile.
    logs = "".join(open(f, errors="replace").read()
                   for f in glob.glob(os.path.join(work, "log", "**", "*.log"), recursive=True))
    check(logs.count("online compile: 1 fused kernels (0 compiled, 1 cached)") == 2,
          "the log does not show two warm online compiles", logs[-2000:])
    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
