#!/usr/bin/python3
"""Runs ONNX 1.12's backend node test cases for every op OpenGE registers, through the CLI.

The scope is the op table itself: `openge ops --list` prints every registered op type, so a
new op's ONNX cases run as soon as its schema row exists, and no list of ops is kept here.

For every in-scope case (model.onnx + test_data_set_*/) it runs
    openge run --model model.onnx --inputs DIR --outputs DIR
and compares each output_<i>.pb with ONNX's expectation: same dtype, same shape, values within
rtol/atol for floating types (NaN == NaN), exact for integers, bools and strings.

A case is in scope when every op in its graph is registered (Constant may appear as a helper in
the expanded, multi-op cases; an op of another domain, such as ai.onnx.preview.training's
optimizers, is registered when the list names it "domain::OpType"). The op a case belongs to is read from the model's
nodes, never guessed from the case name; multi-op graphs (ONNX's "_expanded" function bodies)
are reported as one group. Cases that use an unregistered op are counted per missing op.

Cases that cannot pass for a stated reason are listed in expected_failures.txt, each with its
reason. The suite fails when a case fails that is not listed, when a listed case passes (the
list must stay honest), when a listed case does not exist or is not in scope (stale entry), and
when a reason is missing or says "by design": ONNX Runtime runs every default-domain op of the
suite, so an op OpenGE does not run yet is "not implemented yet: ...", not a design choice.

Usage: run_conformance.py --openge BUILD/openge --data CACHE_DIR [--expected FILE] [--jobs N]
                          [--filter REGEX] [--show-failures]
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))

# Ops allowed next to in-scope ops in multi-op graphs without making the case out of scope.
HELPER_OPS = frozenset({"Constant"})
MULTI_OP_GROUP = "(multi-op graphs)"

# Tolerances per element type: (rtol, atol). fp16/bf16 results are rounded once from float, so a
# one-ulp difference is legitimate: rtol must cover one ulp of the type (2^-10 and 2^-7).
FLOAT_TOLERANCES = {
    TensorProto.FLOAT: (1e-3, 1e-5),
    TensorProto.DOUBLE: (1e-3, 1e-5),
    TensorProto.FLOAT16: (1e-3, 1e-5),
    TensorProto.BFLOAT16: (1e-2, 1e-5),
}
CASE_TIMEOUT_S = 60


# ---------------------------------------------------------------------------------------------
# Test data generation (cached per build dir)

def ensure_generated(data_dir):
    if os.path.exists(os.path.join(data_dir, ".complete")):
        return
    print(f"generating ONNX backend node cases into {data_dir} (once per build dir)", flush=True)
    subprocess.run([sys.executable, os.path.join(HERE, "generate_backend_data.py"), data_dir],
                   check=True)


# ---------------------------------------------------------------------------------------------
# Scope: the op table

def registered_ops(openge):
    """The op types the engine registers, from `openge ops --list`."""
    proc = subprocess.run([openge, "ops", "--list"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=CASE_TIMEOUT_S)
    text = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise RuntimeError(f"'{openge} ops --list' failed (exit {proc.returncode}): {text.strip()}")
    ops = frozenset(line.strip() for line in text.splitlines() if line.strip())
    if not ops:
        raise RuntimeError(f"'{openge} ops --list' printed no op types")
    return ops


# ---------------------------------------------------------------------------------------------
# Case discovery

class Case:
    def __init__(self, name, path, ops, group, data_sets, model):
        self.name = name
        self.path = path
        self.ops = ops
        self.group = group
        self.data_sets = data_sets
        self.input_types = [vi.type for vi in model.graph.input]
        self.output_types = [vi.type for vi in model.graph.output]


def discover_cases(data_dir, scope):
    """(in-scope cases, total number of cases, {unregistered op: number of cases using it})."""
    node_dir = os.path.join(data_dir, "node")
    cases = []
    total = 0
    missing = collections.Counter()
    for name in sorted(os.listdir(node_dir)):
        path = os.path.join(node_dir, name)
        model_path = os.path.join(path, "model.onnx")
        if not os.path.isfile(model_path):
            continue
        total += 1
        model = onnx.load(model_path, load_external_data=False)
        # Ops of other domains are "domain::OpType", as `openge ops --list` prints them.
        ops = sorted({n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}::{n.op_type}"
                      for n in model.graph.node})
        unregistered = [op for op in ops if op not in scope | HELPER_OPS]
        if unregistered or not any(op in scope for op in ops):
            missing.update(unregistered or ["(no op)"])
            continue
        group = model.graph.node[0].op_type if len(model.graph.node) == 1 else MULTI_OP_GROUP
        data_sets = sorted(os.path.join(path, d) for d in os.listdir(path)
                           if d.startswith("test_data_set_"))
        cases.append(Case(name, path, ops, group, data_sets, model))
    return cases, total, missing


# ---------------------------------------------------------------------------------------------
# Tensors

def declared_elem_type(type_proto):
    if type_proto.HasField("tensor_type"):
        return type_proto.tensor_type.elem_type
    return None


def relabel_bfloat16(tensor, declared):
    """ONNX 1.12 stores bf16 test tensors as UINT16 holding the raw bf16 bits although the model
    declares BFLOAT16; give them their real type."""
    if declared == TensorProto.BFLOAT16 and tensor.data_type == TensorProto.UINT16:
        tensor.data_type = TensorProto.BFLOAT16
    return tensor


def to_array(tensor):
    """Tensor to numpy; bf16 widened to float32 bit-exactly (the bf16 bits are the upper half)."""
    if tensor.data_type == TensorProto.BFLOAT16:
        if tensor.raw_data:
            bits = np.frombuffer(tensor.raw_data, dtype=np.uint16)
        else:
            bits = np.array(tensor.int32_data, dtype=np.uint32).astype(np.uint16)
        wide = (bits.astype(np.uint32) << 16).view(np.float32)
        return wide.reshape(tuple(tensor.dims))
    return numpy_helper.to_array(tensor)


def load_tensor(path):
    tensor = TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return tensor


def load_value(path, type_proto):
    """The file as the proto its declared type says: TensorProto, SequenceProto or OptionalProto."""
    kind = type_proto.WhichOneof("value")
    proto = {"sequence_type": onnx.SequenceProto, "optional_type": onnx.OptionalProto}.get(kind, TensorProto)()
    with open(path, "rb") as f:
        proto.ParseFromString(f.read())
    return proto


def compare_sequences(expected, actual):
    if len(expected.tensor_values) != len(actual.tensor_values):
        return f"sequence of {len(actual.tensor_values)} tensors, expected {len(expected.tensor_values)}"
    for k, (want, got) in enumerate(zip(expected.tensor_values, actual.tensor_values)):
        diff = compare(want, got)
        if diff:
            return f"sequence element {k}: {diff}"
    return None


def compare_values(expected, actual):
    """compare() for any value: tensors, sequences of tensors, optionals of either."""
    if isinstance(expected, TensorProto):
        return compare(expected, actual)
    if isinstance(expected, onnx.SequenceProto):
        return compare_sequences(expected, actual)
    # An optional: its value (tensor_value or sequence_value), or none.
    fields = ("tensor_value", "sequence_value", "optional_value", "map_value", "sparse_tensor_value")
    field = next((f for f in fields if expected.HasField(f)), None)
    got_field = next((f for f in fields if actual.HasField(f)), None)
    if field != got_field:
        return f"optional holds {got_field or 'nothing'}, expected {field or 'nothing'}"
    if field is None:
        return None
    return compare_values(getattr(expected, field), getattr(actual, field))


def compare(expected, actual):
    """None if `actual` matches `expected`, else a one-line description of the difference."""
    if expected.data_type != actual.data_type:
        return (f"dtype {TensorProto.DataType.Name(actual.data_type)}, expected "
                f"{TensorProto.DataType.Name(expected.data_type)}")
    if list(expected.dims) != list(actual.dims):
        return f"shape {list(actual.dims)}, expected {list(expected.dims)}"
    want = to_array(expected)
    got = to_array(actual)
    if want.shape != got.shape:
        return f"shape {list(got.shape)} (data), expected {list(want.shape)}"
    if expected.data_type in FLOAT_TOLERANCES:
        rtol, atol = FLOAT_TOLERANCES[expected.data_type]
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        bad = ~np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    else:
        bad = want != got
    bad = np.asarray(bad)
    if not bad.any():
        return None
    idx = np.argwhere(bad)[0] if bad.ndim else ()
    idx_t = tuple(int(i) for i in idx)
    return (f"{int(bad.sum())}/{bad.size} elements differ; first at {list(idx_t)}: "
            f"got {got[idx_t]!r}, expected {want[idx_t]!r}")


# ---------------------------------------------------------------------------------------------
# Running one case

def run_case(case, openge, scratch_root):
    """(passed, message) for one case over all of its data sets."""
    if not case.data_sets:
        return False, "case has no test_data_set"
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")  # cases run in parallel; one thread each
    for ds in case.data_sets:
        work = tempfile.mkdtemp(prefix=case.name + "_", dir=scratch_root)
        try:
            in_dir = os.path.join(work, "inputs")
            out_dir = os.path.join(work, "outputs")
            os.makedirs(in_dir)
            os.makedirs(out_dir)
            for i, type_proto in enumerate(case.input_types):
                src = os.path.join(ds, f"input_{i}.pb")
                if not os.path.exists(src):
                    continue
                if not type_proto.HasField("tensor_type"):  # SequenceProto / OptionalProto as they are
                    shutil.copyfile(src, os.path.join(in_dir, f"input_{i}.pb"))
                    continue
                tensor = relabel_bfloat16(load_tensor(src), declared_elem_type(type_proto))
                with open(os.path.join(in_dir, f"input_{i}.pb"), "wb") as f:
                    f.write(tensor.SerializeToString())
            cmd = [openge, "run", "--model", os.path.join(case.path, "model.onnx"),
                   "--inputs", in_dir, "--outputs", out_dir]
            try:
                proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      timeout=CASE_TIMEOUT_S, env=env)
            except subprocess.TimeoutExpired:
                return False, f"timed out after {CASE_TIMEOUT_S} s"
            text = proc.stdout.decode("utf-8", "replace").strip()
            if proc.returncode != 0:
                last = text.splitlines()[-1] if text else ""
                how = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
                       else f"exit {proc.returncode}")
                return False, f"{how}: {last}"
            for j, type_proto in enumerate(case.output_types):
                want_path = os.path.join(ds, f"output_{j}.pb")
                if not os.path.exists(want_path):
                    continue
                got_path = os.path.join(out_dir, f"output_{j}.pb")
                if not os.path.exists(got_path):
                    return False, f"output_{j}.pb was not written"
                try:
                    if type_proto.HasField("tensor_type"):
                        want = relabel_bfloat16(load_tensor(want_path), declared_elem_type(type_proto))
                        diff = compare(want, load_tensor(got_path))
                    else:
                        diff = compare_values(load_value(want_path, type_proto), load_value(got_path, type_proto))
                except Exception as e:  # unreadable output is a failure, not a harness crash
                    diff = f"cannot compare: {e}"
                if diff:
                    return False, f"output {j}: {diff}"
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return True, ""


# ---------------------------------------------------------------------------------------------
# Expected failures

# A reason may not claim a design choice: ONNX Runtime runs every default-domain op of the suite.
BANNED_REASON = re.compile(r"^\s*by design\b", re.IGNORECASE)


def load_expected_failures(path):
    """{case: reason}. Format: one case per line, '<case> <reason>'; '#' starts a comment line."""
    expected = {}
    problems = []
    if not path or not os.path.exists(path):
        return expected, problems
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            if len(parts) < 2 or not parts[1].strip():
                problems.append(f"{path}:{lineno}: '{parts[0]}' has no reason")
                continue
            if BANNED_REASON.match(parts[1]):
                problems.append(f"{path}:{lineno}: '{parts[0]}': \"by design\" is not a reason for "
                                f"an op ONNX Runtime runs; say what is not implemented yet")
            if parts[0] in expected:
                problems.append(f"{path}:{lineno}: '{parts[0]}' is listed twice")
            expected[parts[0]] = parts[1].strip()
    return expected, problems


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openge", required=True, help="path to the openge CLI")
    ap.add_argument("--data", required=True, help="where the generated cases are cached")
    ap.add_argument("--expected", default=os.path.join(HERE, "expected_failures.txt"))
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("--filter", default=None, help="only cases whose name matches this regex")
    ap.add_argument("--show-failures", action="store_true",
                    help="print every failing case with its reason, listed or not")
    args = ap.parse_args()

    openge = os.path.abspath(args.openge)
    if not os.access(openge, os.X_OK):
        print(f"conformance: openge CLI not found or not executable: {openge}")
        return 1
    ensure_generated(args.data)
    try:
        scope = registered_ops(openge)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        print(f"conformance: cannot read the op table: {e}")
        return 1
    cases, n_total, missing = discover_cases(args.data, scope)
    n_in_scope = len(cases)
    expected, problems = load_expected_failures(args.expected)
    if args.filter:
        rx = re.compile(args.filter)
        cases = [c for c in cases if rx.search(c.name)]

    scratch = tempfile.mkdtemp(prefix="openge_conformance_")
    results = {}
    start = time.time()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(run_case, c, openge, scratch): c for c in cases}
            for fut in concurrent.futures.as_completed(futures):
                c = futures[fut]
                try:
                    results[c.name] = fut.result()
                except Exception as e:
                    results[c.name] = (False, f"harness error: {e!r}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    elapsed = time.time() - start

    # Per-op table.
    per_group = collections.OrderedDict()
    for c in sorted(cases, key=lambda c: (c.group == MULTI_OP_GROUP, c.group, c.name)):
        per_group.setdefault(c.group, []).append(c)
    print(f"{'op':<24}{'pass':>6}{'fail':>6}{'total':>7}   expected-fail  unexpected")
    for group, group_cases in per_group.items():
        n_pass = sum(results[c.name][0] for c in group_cases)
        n_xfail = sum(c.name in expected and not results[c.name][0] for c in group_cases)
        n_bad = sum((c.name in expected) == results[c.name][0] for c in group_cases)
        print(f"{group:<24}{n_pass:>6}{len(group_cases) - n_pass:>6}{len(group_cases):>7}   "
              f"{n_xfail:>13}  {n_bad:>10}")
    if missing and not args.filter:
        print(f"\nnot in scope: {n_total - n_in_scope} of {n_total} cases use an op the engine does "
              f"not register:")
        print("  " + ", ".join(f"{op} ({n})" for op, n in sorted(missing.items(),
                                                                  key=lambda kv: (-kv[1], kv[0]))))

    unexpected_fail = [c for c in cases if not results[c.name][0] and c.name not in expected]
    unexpected_pass = [c for c in cases if results[c.name][0] and c.name in expected]
    known_names = {c.name for c in cases}
    if not args.filter:
        for name in sorted(expected):
            if name not in known_names:
                problems.append(f"expected_failures.txt lists '{name}', which is not an "
                                f"in-scope case (remove it)")

    if args.show_failures:
        print("\nall failing cases:")
        for c in sorted(cases, key=lambda c: c.name):
            ok, msg = results[c.name]
            if not ok:
                tag = "listed" if c.name in expected else "NEW"
                print(f"  [{tag}] {c.name} ({c.group}): {msg}")
    if unexpected_fail:
        print(f"\nunexpected failures ({len(unexpected_fail)}):")
        for c in sorted(unexpected_fail, key=lambda c: c.name):
            print(f"  {c.name} ({c.group}): {results[c.name][1]}")
    if unexpected_pass:
        print(f"\nunexpected passes ({len(unexpected_pass)}) - remove them from "
              f"expected_failures.txt:")
        for c in sorted(unexpected_pass, key=lambda c: c.name):
            print(f"  {c.name}: was listed as '{expected[c.name]}'")
    for p in problems:
        print(p)

    n_pass = sum(ok for ok, _ in results.values())
    n_xfail = sum(1 for c in cases if not results[c.name][0] and c.name in expected)
    ok = not unexpected_fail and not unexpected_pass and not problems
    scope_note = f" (filtered)" if args.filter else f" in scope of {n_total} cases"
    print(f"\nconformance: {n_pass}/{len(cases)} passed{scope_note}, {n_xfail} expected failures, "
          f"{len(unexpected_fail)} unexpected failures, {len(unexpected_pass)} unexpected passes "
          f"({len(per_group)} groups, {elapsed:.0f} s) - {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
