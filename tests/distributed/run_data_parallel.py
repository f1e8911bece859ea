#!/usr/bin/env python3
"""Data-parallel training over Open MPI, checked end to end with `mpirun -np N openge train`.

Cases (--case):
  weights_match    1, 2 and 4 ranks (hcom_parallel on and off, is_tailing_optimization on, several
                   gradient splits) train the digits MLP to the weights one process reaches on the
                   combined batch, within 1e-5.
  deterministic    two 2-rank runs with deterministic=1 give the same bytes; the CNN (convolutions,
                   BatchNormalization) trains to >= 95 % test accuracy on 2 ranks.
  resume           a 2-rank run resumed from its epoch-1 checkpoint ends with the uninterrupted
                   run's weights, bit for bit.
  stopped_rank     a rank stopped with SIGSTOP at a random moment (alive but silent): every other
                   rank ends the job within HCCL_EXEC_TIMEOUT + 5 s, naming the operation and the
                   missing rank; no half-written checkpoint.
  killed_rank      a rank killed with SIGKILL at a random moment: the job ends within
                   HCCL_EXEC_TIMEOUT + 5 s; no half-written checkpoint.
  event_timeout    as stopped_rank with event_sync_timeout=500 and HCCL_EXEC_TIMEOUT=60: the
                   training step's wait for the communication thread fails first, naming
                   event_sync_timeout, and the job ends.
  namespaces       2 ranks in two network namespaces joined by a veth pair (made here; needs root
                   and iproute2) train over TCP to the bytes of 2 ranks over TCP on loopback.
                   Exits 77 (ctest: skipped, not passed) where namespaces cannot be made.
  split_tuning     aoe_mode 4 on 2 ranks: the record aoe_result_gdat_*.json lists every candidate split
                   with its step time and the fastest, the knowledge base holds it, the run uses
                   it, and a later job without aoe_mode takes it from the knowledge base; the
                   weights still match one process.
  profiling        a profiled 2-rank run with hccl=on: each rank writes its own collection folder
                   (device_0, device_1) with hccl_*.json per step holding every gradient bucket's
                   all-reduce, a communication lane in msprof_*.json and one Reduce column pair per
                   bucket in step_trace_*.csv.
mpirun runs as root only with OMPI_ALLOW_RUN_AS_ROOT (CI runs as root); --oversubscribe lets 4
ranks share 2 cores.
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = 1e-5


def mpi_env():
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                # Containers often forbid the cross-process memory attach of the shared-memory transport.
                "OMPI_MCA_btl_vader_single_copy_mechanism": "none"})
    return env


def train_command(args, ranks, out, extra=(), model="mlp", epochs=2):
    data = "train_cnn" if model == "cnn" else "train"
    cmd = [args.openge, "train", "--model", os.path.join(args.work, "digits", model + ".onnx"),
           "--data", os.path.join(args.work, "digits", data), "--batch", "64", "--epochs", str(epochs),
           "--optimizer", "adam", "--lr", "0.002", "--threads", "1", "--save", out] + list(extra)
    if ranks > 0:
        cmd = ["mpirun", "--oversubscribe", "-np", str(ranks)] + cmd
    return cmd


def run(cmd, **kw):
    r = subprocess.run(cmd, env=mpi_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        sys.exit("FAILED (exit %d): %s\n%s" % (r.returncode, " ".join(cmd), r.stdout[-3000:]))
    return r.stdout


def weights(path):
    return {i.name: numpy_helper.to_array(i) for i in onnx.load(path).graph.initializer}


def max_diff(a, b):
    return max(float(np.abs(a[k].astype(np.float64) - b[k]).max()) for k in a)


def same_bytes(a, b):
    return all(a[k].tobytes() == b[k].tobytes() for k in a)


def case_weights_match(args):
    ref = os.path.join(args.work, "one.onnx")
    run(train_command(args, 0, ref))
    base = weights(ref)
    variants = [
        (2, []), (4, []),
        (2, ["--option", "hcom_parallel=False"]),
        (2, ["--option", "is_tailing_optimization=True", "--split-by-index", "0,1,2,3"]),
        (4, ["--split-by-size", "50,25,25"]),
        (1, []),  # mpirun with one rank: a world of one
    ]
    for i, (ranks, extra) in enumerate(variants):
        out = os.path.join(args.work, "dp%d.onnx" % i)
        run(train_command(args, ranks, out, extra))
        d = max_diff(base, weights(out))
        print("%d ranks %s: max |w - w_one_process| = %.3g" % (ranks, " ".join(extra) or "(defaults)", d))
        if not d <= TOLERANCE:
            sys.exit("FAILED: %d ranks %s end %.3g from one process (tolerance %g)" % (ranks, extra, d, TOLERANCE))
    # Training-mode Dropout: each rank draws the masks of its shard's samples in the global batch,
    # so the ranks together draw what one process draws.
    ref = os.path.join(args.work, "one_dropout.onnx")
    run(train_command(args, 0, ref, model="mlp_dropout"))
    for ranks in (2, 4):
        out = os.path.join(args.work, "dp_dropout%d.onnx" % ranks)
        run(train_command(args, ranks, out, model="mlp_dropout"))
        d = max_diff(weights(ref), weights(out))
        print("%d ranks, Dropout 0.2: max |w - w_one_process| = %.3g" % (ranks, d))
        if not d <= TOLERANCE:
            sys.exit("FAILED: %d ranks with Dropout end %.3g from one process (tolerance %g)" % (ranks, d, TOLERANCE))


def case_deterministic(args):
    outs = []
    for i in range(2):
        out = os.path.join(args.work, "det%d.onnx" % i)
        run(train_command(args, 2, out, ["--option", "deterministic=1"]))
        outs.append(weights(out))
    if not same_bytes(*outs):
        sys.exit("FAILED: two deterministic 2-rank runs differ by %.3g" % max_diff(*outs))
    print("two deterministic 2-rank runs: identical bytes")
    log = run(train_command(args, 2, os.path.join(args.work, "cnn.onnx"), ["--eval-data",
              os.path.join(args.work, "digits", "test_cnn")], model="cnn", epochs=8))
    acc = [float(line.split("eval accuracy")[1].split("%")[0]) for line in log.splitlines() if "eval accuracy" in line]
    print("CNN on 2 ranks: test accuracy per epoch", acc)
    if not acc or acc[-1] < 95.0:
        sys.exit("FAILED: the CNN reached %s %% on 2 ranks (expected >= 95)\n%s" % (acc[-1:] or "no", log[-2000:]))


def case_resume(args):
    whole = os.path.join(args.work, "whole.onnx")
    ckpt = os.path.join(args.work, "ckpt")
    run(train_command(args, 2, os.path.join(args.work, "first.onnx"), ["--checkpoint-dir", ckpt], epochs=1))
    run(train_command(args, 2, whole, epochs=2))
    resumed = os.path.join(args.work, "resumed.onnx")
    run(train_command(args, 2, resumed, ["--resume", ckpt], epochs=2))
    if not same_bytes(weights(whole), weights(resumed)):
        sys.exit("FAILED: the resumed 2-rank run differs from the uninterrupted one by %.3g"
                 % max_diff(weights(whole), weights(resumed)))
    print("2 ranks resumed from the epoch-1 checkpoint: the uninterrupted run's weights, bit for bit")


def rank_pids(mpirun_pid, openge):
    """The openge processes mpirun started (its children, or their children)."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,args="], stdout=subprocess.PIPE, text=True).stdout
    procs = [line.split(None, 2) for line in out.splitlines() if line.strip()]
    children = {}
    for pid, ppid, cmd in procs:
        children.setdefault(int(ppid), []).append((int(pid), cmd))
    ranks, to_visit = [], [mpirun_pid]
    while to_visit:
        parent = to_visit.pop()
        for child, cmd in children.get(parent, []):
            if cmd.startswith(openge + " train"):
                ranks.append(child)
            to_visit.append(child)
    return sorted(ranks)


def checkpoint_consistent(ckpt):
    """A checkpoint folder is absent or whole: checkpoint.json names files that exist."""
    if not os.path.exists(ckpt):
        return True
    manifest = os.path.join(ckpt, "checkpoint.json")
    if not os.path.isfile(manifest):
        return False
    import json
    m = json.load(open(manifest))
    for key in ("param_files", "state_files", "optimizer_files"):
        for f in m.get(key, []):
            if not os.path.isfile(os.path.join(ckpt, f)):
                return False
    return True


def case_failed_rank(args, sig, event_timeout_ms=None):
    timeout_s = 3 if event_timeout_ms is None else 60
    limit_s = timeout_s + 5 if event_timeout_ms is None else event_timeout_ms / 1000.0 + 5
    rng = random.Random(args.seed)
    for round_ in range(args.rounds):
        ckpt = os.path.join(args.work, "fault_ckpt_%d" % round_)
        if os.path.isdir(ckpt):  # an earlier run's: its presence is the signal that training runs
            import shutil
            shutil.rmtree(ckpt)
        extra = ["--checkpoint-dir", ckpt]
        if event_timeout_ms is not None:
            extra += ["--option", "event_sync_timeout=%d" % event_timeout_ms]
        cmd = train_command(args, 2, os.path.join(args.work, "fault.onnx"), extra, epochs=100000)
        env = mpi_env()
        env["HCCL_EXEC_TIMEOUT"] = str(timeout_s)
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        pids = []
        deadline = time.time() + 30
        while len(pids) < 2 and time.time() < deadline:
            time.sleep(0.05)
            pids = rank_pids(proc.pid, args.openge)
        if len(pids) < 2:
            proc.kill()
            sys.exit("FAILED: mpirun did not start 2 ranks\n" + proc.communicate()[0][-2000:])
        # A moment while training runs (the first epoch's checkpoint is there), not during the
        # set-up, which HCCL_CONNECT_TIMEOUT (120 s at least) bounds instead.
        while not os.path.isdir(ckpt) and time.time() < deadline and proc.poll() is None:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 1.5))
        victim = pids[1]
        os.kill(victim, sig)
        hit = time.time()
        try:
            out, _ = proc.communicate(timeout=limit_s + 10)
        except subprocess.TimeoutExpired:
            proc.kill()
            os.kill(victim, signal.SIGKILL)
            sys.exit("FAILED: round %d: the job still runs %d s after a rank got %s" % (round_, limit_s + 10, sig.name))
        took = time.time() - hit
        try:
            os.kill(victim, signal.SIGKILL)  # a stopped rank the launcher did not take down
        except ProcessLookupError:
            pass
        print("round %d: %s after %.1f s of training; job ended %.1f s later, exit %d"
              % (round_, sig.name, hit - (deadline - 30), took, proc.returncode))
        if proc.returncode == 0:
            sys.exit("FAILED: round %d: the job exited 0 after a rank got %s\n%s" % (round_, sig.name, out[-2000:]))
        if took > limit_s:
            sys.exit("FAILED: round %d: the job took %.1f s to end (limit %.1f s)\n%s" % (round_, took, limit_s, out[-2000:]))
        if event_timeout_ms is not None:
            if "event_sync_timeout" not in out:
                sys.exit("FAILED: round %d: no event_sync_timeout message:\n%s" % (round_, out[-3000:]))
        elif sig == signal.SIGSTOP:
            if "HCCL_EXEC_TIMEOUT" not in out or ("rank(s) 1 never arrived" not in out and "every rank arrived" not in out):
                sys.exit("FAILED: round %d: no message naming the timed-out operation and the missing rank:\n%s"
                         % (round_, out[-3000:]))
        if not checkpoint_consistent(ckpt):
            sys.exit("FAILED: round %d: a half-written checkpoint in %s" % (round_, ckpt))
    print("%d rounds: every job ended within %s + 5 s, no half-written checkpoint"
          % (args.rounds, "HCCL_EXEC_TIMEOUT" if event_timeout_ms is None else "event_sync_timeout"))


def case_profiling(args):
    import csv
    import glob
    import json
    out_dir = os.path.join(args.work, "prof")
    if os.path.isdir(out_dir):
        import shutil
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    options = json.dumps({"output": out_dir, "training_trace": "on", "task_trace": "on", "hccl": "on"})
    run(train_command(args, 2, os.path.join(args.work, "prof.onnx"),
                      ["--profile", "--profile-options", options, "--split-by-index", "1,3"], epochs=1))
    folders = sorted(glob.glob(os.path.join(out_dir, "PROF_*")))
    devices = sorted(os.path.basename(d) for f in folders for d in glob.glob(os.path.join(f, "device_*")))
    if len(folders) != 2 or devices != ["device_0", "device_1"]:
        sys.exit("FAILED: expected one collection folder per rank with device_0 and device_1, got %s / %s" % (folders, devices))
    for folder in folders:
        output = os.path.join(folder, "mindstudio_profiler_output")
        steps = sorted(glob.glob(os.path.join(output, "hccl_*_1_*.json")))
        if len(steps) < 3:
            sys.exit("FAILED: %s has %d hccl_*.json files for the training graph" % (output, len(steps)))
        for path in steps:
            events = [e for e in json.load(open(path)) if e.get("ph") == "X"]
            buckets = sorted(e["args"]["bucket"] for e in events if e["args"]["bucket"] >= 0)
            if buckets != [0, 1] or any(e["args"]["size(Byte)"] <= 0 or e["dur"] < 0 for e in events):
                sys.exit("FAILED: %s: expected the all-reduces of buckets 0 and 1 with sizes, got %s" % (path, events))
            suffix = os.path.basename(path)[len("hccl"):-len(".json")]
            timeline = json.load(open(os.path.join(output, "msprof%s.json" % suffix)))
            lanes = [e["args"]["name"] for e in timeline if e.get("name") == "thread_name"]
            if not any(l.startswith("Communication (rank") for l in lanes):
                sys.exit("FAILED: msprof%s.json has no communication lane: %s" % (suffix, lanes))
            header = next(csv.reader(open(os.path.join(output, "step_trace%s.csv" % suffix))))
            if header.count("Reduce Start(us)") != 2 or header.count("Reduce Duration(us)") != 2:
                sys.exit("FAILED: step_trace%s.csv: expected 2 reduce spans, header %s" % (suffix, header))
    # sys_io_sampling_freq: the interfaces' counters; over TCP on one host the ranks' traffic crosses lo.
    nic_dir = os.path.join(args.work, "prof_nic")
    if os.path.isdir(nic_dir):
        import shutil
        shutil.rmtree(nic_dir)
    os.makedirs(nic_dir)
    options = json.dumps({"output": nic_dir, "task_trace": "off", "sys_io_sampling_freq": "100"})
    cmd = train_command(args, 2, os.path.join(args.work, "prof_nic.onnx"), ["--profile", "--profile-options", options],
                        epochs=3)
    run(cmd[:1] + ["--mca", "btl", "tcp,self"] + cmd[1:])
    for path in glob.glob(os.path.join(nic_dir, "PROF_*", "mindstudio_profiler_output", "nic.csv")):
        rows = list(csv.DictReader(open(path)))
        lo = [float(r["Rx Bandwidth(MB/s)"]) for r in rows if r["Interface"] == "lo"]
        if not lo or max(lo) <= 0:
            sys.exit("FAILED: %s shows no traffic on lo during a 2-rank TCP run (%d rows)" % (path, len(rows)))
    print("2 ranks profiled: hccl_*.json, communication lanes and reduce spans in both collection folders; "
          "nic.csv shows the ranks' TCP traffic on lo")


def case_namespaces(args):
    tag = "oge%d" % (os.getpid() % 100000)
    ns = [tag + "a", tag + "b"]
    veth = [tag + "v0", tag + "v1"]
    net = "10.%d.%d" % (77 + os.getpid() % 50, os.getpid() % 200)
    setup = [["ip", "netns", "add", ns[0]], ["ip", "netns", "add", ns[1]],
             ["ip", "link", "add", veth[0], "type", "veth", "peer", "name", veth[1]]]
    for i in range(2):
        setup += [["ip", "link", "set", veth[i], "netns", ns[i]],
                  ["ip", "-n", ns[i], "addr", "add", "%s.%d/24" % (net, i + 1), "dev", veth[i]],
                  ["ip", "-n", ns[i], "link", "set", veth[i], "up"],
                  ["ip", "-n", ns[i], "link", "set", "lo", "up"]]
    try:
        for cmd in setup:
            try:
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            except FileNotFoundError:
                print("NOT RUN: the ip command (iproute2) is not installed; scripts/setup.sh installs it")
                sys.exit(77)
            if r.returncode != 0:
                print("NOT RUN: cannot make network namespaces here (%s: %s); run as root with iproute2"
                      % (" ".join(cmd), r.stdout.strip()))
                sys.exit(77)
        # mpirun runs in the first namespace and starts each rank's daemon in its namespace through
        # an rsh agent that enters it (as ssh would reach another host).
        agent = os.path.join(args.work, "netns_agent.sh")
        with open(agent, "w") as f:
            f.write('#!/bin/sh\nhost=$1; shift\nexec ip netns exec "$host" /bin/sh -c "$*"\n')
        os.chmod(agent, 0o755)
        hosts = os.path.join(args.work, "netns_hosts")
        with open(hosts, "w") as f:
            f.write("%s slots=1\n%s slots=1\n" % (ns[0], ns[1]))
        tcp = ["--mca", "btl", "tcp,self"]
        over_veth = os.path.join(args.work, "veth.onnx")
        cmd = train_command(args, 0, over_veth)
        cmd = ["ip", "netns", "exec", ns[0], "mpirun", "--hostfile", hosts, "--mca", "plm_rsh_agent", agent] + tcp + \
              ["--mca", "btl_tcp_if_include", net + ".0/24", "--mca", "oob_tcp_if_include", net + ".0/24",
               "-x", "OMPI_ALLOW_RUN_AS_ROOT", "-x", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "-np", "2"] + cmd
        run(cmd, timeout=300)
        sent = subprocess.run(["ip", "-n", ns[1], "-s", "link", "show", veth[1]], stdout=subprocess.PIPE,
                              text=True).stdout
        loopback = os.path.join(args.work, "loopback.onnx")
        cmd = train_command(args, 2, loopback)
        run(cmd[:1] + tcp + cmd[1:], timeout=300)
        if not same_bytes(weights(over_veth), weights(loopback)):
            sys.exit("FAILED: 2 ranks over the veth pair end %.3g from 2 ranks on loopback"
                     % max_diff(weights(over_veth), weights(loopback)))
        lines = sent.splitlines()
        received = int(lines[lines.index(next(l for l in lines if l.strip().startswith("RX:"))) + 1].split()[0])
        # The gradients of 46 steps (about 34 kB each) crossed the pair.
        if received < 46 * 34000:
            sys.exit("FAILED: only %d bytes crossed the veth pair; the ranks did not talk through it\n%s" % (received, sent))
        print("2 ranks in two network namespaces over a veth pair (%d bytes received by the second): the loopback "
              "run's weights, bit for bit" % received)
    finally:
        for n in ns:
            try:
                subprocess.run(["ip", "netns", "del", n], stderr=subprocess.DEVNULL)
            except FileNotFoundError:
                pass


def case_split_tuning(args):
    import glob
    import json
    import re
    aoe = os.path.join(args.work, "aoe")
    if os.path.isdir(aoe):
        import shutil
        shutil.rmtree(aoe)
    os.makedirs(aoe)
    tuned = os.path.join(args.work, "tuned.onnx")
    log = run(train_command(args, 2, tuned, ["--option", "aoe_config.aoe_mode=4", "--option",
                                              "aoe_config.work_path=" + aoe], epochs=2))
    records = glob.glob(os.path.join(aoe, "aoe_result_gdat_*.json"))
    if len(records) != 1:
        sys.exit("FAILED: expected one aoe_result_gdat_*.json in %s, found %s\n%s" % (aoe, records, log[-2000:]))
    report = next(iter(json.load(open(records[0])).values()))
    gdat = report[1]["GDAT"]
    times = {tuple(c["split_by_idx"]): c["step_performance(ms)"] for c in gdat["candidates"]}
    if len(times) < 3 or any(t <= 0 for t in times.values()):
        sys.exit("FAILED: the record measured %s" % times)
    best = tuple(gdat["split_by_idx"])
    if times[best] != min(times.values()):
        sys.exit("FAILED: the record keeps %s (%.3f ms) though %s" % (best, times[best], times))
    used = re.search(r"gradient split by index ([0-9,]+)", log)
    if not used or tuple(int(i) for i in used.group(1).split(",")) != best:
        sys.exit("FAILED: the run ended on split %s, the record chose %s\n%s" % (used and used.group(1), best, log[-1500:]))
    kb = json.load(open(os.path.join(aoe, "aoe_knowledge_base.json")))
    entries = [e for e in kb["entries"].values() if e["op_type"] == "GradientSplit"]
    if len(entries) != 1 or tuple(entries[0]["split_by_idx"]) != best:
        sys.exit("FAILED: the knowledge base holds %s, expected the split %s" % (entries, best))
    later = run(train_command(args, 2, os.path.join(args.work, "later.onnx"),
                              ["--option", "aoe_config.work_path=" + aoe], epochs=1))
    again = re.search(r"gradient split by index ([0-9,]+)", later)
    if not again or tuple(int(i) for i in again.group(1).split(",")) != best:
        sys.exit("FAILED: a later job used split %s, not the stored %s" % (again and again.group(1), best))
    ref = os.path.join(args.work, "tuning_ref.onnx")
    run(train_command(args, 0, ref, epochs=2))
    d = max_diff(weights(ref), weights(tuned))
    if not d <= TOLERANCE:
        sys.exit("FAILED: the tuned 2-rank run ends %.3g from one process" % d)
    print("aoe_mode 4: %d splits measured %s, kept %s; stored and reused; weights within %.3g of one process"
          % (len(times), times, best, d))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openge", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--case", required=True,
                    choices=["weights_match", "deterministic", "resume", "stopped_rank", "killed_rank", "event_timeout",
                             "namespaces", "split_tuning", "profiling"])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    args.openge = os.path.abspath(args.openge)
    os.makedirs(args.work, exist_ok=True)
    digits = os.path.join(args.work, "digits")
    if not os.path.isfile(os.path.join(digits, "mlp_dropout.onnx")):
        subprocess.run([sys.executable, os.path.join(HERE, "..", "training", "make_digits.py"), digits], check=True)
    if args.case == "weights_match":
        case_weights_match(args)
    elif args.case == "deterministic":
        case_deterministic(args)
    elif args.case == "resume":
        case_resume(args)
    elif args.case == "stopped_rank":
        case_failed_rank(args, signal.SIGSTOP)
    elif args.case == "killed_rank":
        case_failed_rank(args, signal.SIGKILL)
    elif args.case == "split_tuning":
        case_split_tuning(args)
    elif args.case == "namespaces":
        case_namespaces(args)
    elif args.case == "event_timeout":
        case_failed_rank(args, signal.SIGSTOP, event_timeout_ms=500)
    else:
        case_profiling(args)
    print("PASSED")


if __name__ == "__main__":
    main()
