#!/usr/bin/python3
"""Seeded SIGKILLs of one artifact writer (docs/RELIABILITY.md, "Seeded kills"). The writer runs
once to completion (its time T), then --seeds times with SIGKILL at a moment drawn from
random.Random(seed) in [0, T] (nothing runs in the process after SIGKILL), all in the same
folders. After every kill no file under a final name may be damaged (each writer's own check
reads everything there). After the last kill, one more run must succeed, and then no temporary
(`*.tmp.<pid>`, a `.PROF_*.tmp.<pid>` folder) of a dead process may be left.

Writers: oge (openge compile), profile (openge run --profile), dump (Data Dump), checkpoint
(openge train --checkpoint-dir), knowledge_base (aoe_mode 2), cache (operator compile cache,
jit_compile with op_compiler_cache_mode=force so that every run compiles).

Usage: check_seeded_kills.py --openge BIN --demo M.onnx --writer W --work DIR [--seeds N]
"""
import argparse
import csv
import glob
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TEMPORARY = re.compile(r"\.tmp\.\d+$")


def make_models(work):
    """An MLP to train (x [N,4] -> 3 classes, 256 samples) and a vector-op model whose fused
    kernel the online compiler builds."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3)).astype(np.float32), "W")
    b = numpy_helper.from_array(np.zeros(3, np.float32), "b")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"])],
                          "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])], [w, b])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), os.path.join(work, "mlp.onnx"))
    data = os.path.join(work, "data")
    os.makedirs(data, exist_ok=True)
    np.save(os.path.join(data, "x.npy"), rng.standard_normal((256, 4)).astype(np.float32))
    np.save(os.path.join(data, "labels.npy"), rng.integers(0, 3, 256).astype(np.int64))
    one = numpy_helper.from_array(np.array(1, np.float32), "one")
    half = numpy_helper.from_array(np.array(0.5, np.float32), "half")
    g = helper.make_graph([helper.make_node("Add", ["x", "one"], ["x1"]), helper.make_node("Mul", ["x1", "half"], ["xh"]),
                           helper.make_node("Relu", ["xh"], ["y"])], "eltwise",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])], [one, half])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(work, "eltwise.onnx"))


class Writer:
    """command(): the writing run; folder: where its artifacts go; damaged(): what is wrong
    with the files under final names (empty: nothing)."""

    def __init__(self, openge, demo, work):
        self.openge, self.demo, self.work = openge, demo, work
        self.folder = os.path.join(work, "artifacts")
        os.makedirs(self.folder, exist_ok=True)

    def quiet(self, args):
        return subprocess.run([self.openge] + args, capture_output=True, text=True, timeout=300, cwd=self.work)


class Oge(Writer):
    def command(self):
        return ["compile", "--model", self.demo, "--output", os.path.join(self.folder, "demo.oge")]

    def damaged(self):
        path = os.path.join(self.folder, "demo.oge")
        if not os.path.exists(path):
            return []
        r = self.quiet(["run", "--model", path, "--threads", "1"])
        return [] if r.returncode == 0 else ["demo.oge does not run: " + r.stderr.strip()]


class Profile(Writer):
    def command(self):
        return ["run", "--model", self.demo, "--threads", "1", "--iterations", "40", "--profile", "--profile-options",
                '{"output":"%s","task_trace":"on","training_trace":"on"}' % self.folder]

    def damaged(self):
        problems = []
        for path in glob.glob(os.path.join(self.folder, "PROF_*", "**", "*"), recursive=True):
            if not os.path.isfile(path) or TEMPORARY.search(path):
                continue
            with open(path, "rb") as f:
                data = f.read()
            if path.endswith(".json"):
                try:
                    json.loads(data)
                except ValueError:
                    problems.append(path + " is not whole JSON")
            elif path.endswith(".csv"):
                rows = list(csv.reader(data.decode("utf-8", "replace").splitlines()))
                if not data.endswith(b"\n") or any(len(r) != len(rows[0]) for r in rows):
                    problems.append(path + " is not a whole CSV")
        return problems


class Dump(Writer):
    def __init__(self, *args):
        super().__init__(*args)
        self.checked = set()

    def command(self):
        return ["run", "--model", self.demo, "--threads", "1", "--iterations", "30", "--option",
                "dump_config.enable_dump=True", "--option", "dump_config.dump_path=" + self.folder]

    def damaged(self):
        # Each run writes a session folder of its own: the folders not read yet are read, once.
        problems = []
        for session in sorted(set(os.listdir(self.folder)) - self.checked):
            path = os.path.join(self.folder, session)
            files = [f for f in glob.glob(os.path.join(path, "**", "*"), recursive=True)
                     if os.path.isfile(f) and not TEMPORARY.search(f) and not f.endswith(".json")]
            if not os.path.isdir(path) or not files:
                continue
            self.checked.add(session)
            out = tempfile.mkdtemp(prefix="converted_")  # off the folder (a small disk in check_disk_full.py)
            r = self.quiet(["dump", "convert", path, "--to", "npy", "--output", out])
            shutil.rmtree(out, ignore_errors=True)
            if r.returncode != 0:
                problems.append("a dump file does not read: " + r.stderr.strip())
        return problems


class Checkpoint(Writer):
    def train(self, *extra):
        return ["train", "--model", os.path.join(self.work, "mlp.onnx"), "--data", os.path.join(self.work, "data"),
                "--batch", "8", "--threads", "1", "--no-shuffle"] + list(extra)

    def command(self):
        return self.train("--epochs", "80", "--checkpoint-dir", os.path.join(self.folder, "ckpt"))

    def damaged(self):
        ckpt = os.path.join(self.folder, "ckpt")
        if not os.path.exists(ckpt):
            # Only before the first save: a save replaces the checkpoint, never leaves none.
            aside = [n for n in os.listdir(self.folder) if n.startswith("ckpt.old")]
            return ["no checkpoint, but %s was left" % aside] if aside else []
        r = self.quiet(self.train("--epochs", "1", "--resume", ckpt))
        return [] if r.returncode == 0 else ["the checkpoint does not resume: " + r.stderr.strip()]


class KnowledgeBase(Writer):
    def command(self):
        return ["run", "--model", self.demo, "--threads", "1", "--option", "aoe_config.aoe_mode=2", "--option",
                "aoe_config.work_path=" + self.folder]

    def damaged(self):
        problems = []
        for path in glob.glob(os.path.join(self.folder, "*.json")):
            try:
                with open(path) as f:
                    json.load(f)
            except ValueError:
                problems.append(path + " is not whole JSON")
        return problems


class Cache(Writer):
    def command(self):
        return ["run", "--model", os.path.join(self.work, "eltwise.onnx"), "--threads", "1", "--option",
                "op_compiler_cache_mode=force", "--option", "op_compiler_cache_dir=" + self.folder, "--option",
                "jit_compile=true"]

    def damaged(self):
        problems = []
        for manifest in glob.glob(os.path.join(self.folder, "kernel_cache", "*", "*.json")):
            try:
                with open(manifest) as f:
                    m = json.load(f)
            except ValueError:
                problems.append(manifest + " is not whole JSON")
                continue
            so = manifest[:-5] + ".so"
            if not os.path.exists(so):
                problems.append(manifest + " has no .so")
                continue
            with open(so, "rb") as f:
                data = f.read()
            if len(data) != m["so_size"] or hashlib.sha256(data).hexdigest() != m["so_sha256"]:
                problems.append(so + " does not match its manifest")
        return problems


WRITERS = {"oge": Oge, "profile": Profile, "dump": Dump, "checkpoint": Checkpoint, "knowledge_base": KnowledgeBase,
           "cache": Cache}


def temporaries(root):
    return [os.path.join(d, n) for d, dirs, files in os.walk(root) for n in dirs + files if TEMPORARY.search(n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--writer", required=True, choices=sorted(WRITERS))
    ap.add_argument("--work", required=True)
    ap.add_argument("--seeds", type=int, default=50)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    make_models(args.work)
    writer = WRITERS[args.writer](os.path.abspath(args.openge), os.path.abspath(args.demo), args.work)
    start = time.time()
    first = writer.quiet(writer.command())
    full = time.time() - start
    if first.returncode != 0:
        sys.exit("the writer fails without a kill: " + first.stderr)
    failures = []
    killed_mid_write = 0
    for seed in range(args.seeds):
        delay = random.Random(seed).uniform(0, full)
        child = subprocess.Popen([writer.openge] + writer.command(), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, cwd=args.work)
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        killed_mid_write += child.returncode == -signal.SIGKILL
        for problem in writer.damaged():
            failures.append("seed %d (killed after %.3f s): %s" % (seed, delay, problem))
    left_by_kills = len(temporaries(args.work))
    last = writer.quiet(writer.command())
    if last.returncode != 0:
        failures.append("the run after the kills fails: " + last.stderr.strip())
    failures += ["after the kills: " + p for p in writer.damaged()]
    left = temporaries(args.work)
    if left:
        failures.append("%d temporaries left after the next run, e.g. %s" % (len(left), left[:3]))
    print("%s: %d seeded kills (%d landed before the writer ended) over a %.2f s run; %d temporaries left by them, "
          "%d after the next run; %d damaged artifacts" % (args.writer, args.seeds, killed_mid_write, full,
                                                           left_by_kills, len(left), len(failures)))
    for f in failures:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
