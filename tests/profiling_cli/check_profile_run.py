#!/usr/bin/python3
"""End-to-end check of `openge run --profile` (PROF-6, PROF-12..17; issue acceptance):

Runs
  BIN run --model M --profile --iterations 10 --profile-options
      '{"output":"DIR/out","task_trace":"l1","training_trace":"on","aicpu":"on","runtime_api":"on"}'
and checks the collection it leaves:
  - the CLI exits 0 and prints the collection folder; DIR/out holds exactly that folder, named
    PROF_<6 digits>_<17 digits>_<word> (no temporary or partial folder beside it);
  - per iteration 1..10 (files {stem}_{device}_{model}_{iter}):
      op_summary rows == executed tasks == task_time rows == the task events of the msprof
      timeline (and == the CLI's "nodes: A AI Core, B AI CPU" count), with aicpu=on every task;
      op_summary and task_time describe the same tasks (name, start, duration);
      Task Wait Time == the gap to the previous task's end on the stream (from exact decimals);
      tasks lie inside the iteration and sum(Task Duration + Task Wait Time) is within 5 % of
      step_trace's Iteration Time (in the median iteration: a preemption after the last task
      stretches single iterations on a loaded machine); FP Start / BP End are the first task's start / last task's end;
      op_statistic Count / Total Time(us) == the op_summary sums per (OP Type, Task Type);
      aicpu rows == the AI_CPU tasks;
  - every CSV parses with Python's csv module, with one column count per file;
  - every JSON under mindstudio_profiler_output is a Chrome trace: an array (or an object with
    traceEvents) of events with ph/pid/tid, numeric ts (non-metadata), numeric dur >= 0 on X
    events, X events well nested per (pid, tid) (1e-3 us slack), B/E balanced per thread.

Prints a short summary; exits 1 with the list of problems on any failure.
Usage: check_profile_run.py --openge BIN --model M.onnx --work DIR [--iterations 10]
       check_profile_run.py --check-only OUT [--iterations N]   (check an existing collection in
       the output folder OUT without running openge; for debugging the checks)
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import statistics
import sys
from collections import defaultdict
from decimal import Decimal, InvalidOperation

FOLDER_RE = re.compile(r"^PROF_\d{6}_\d{17}_\w+$")
FILE_RE = re.compile(r"^(?P<stem>[a-z_]+?)_(?P<device>\d+)_(?P<model>\d+)_(?P<iter>\d+)\.(?P<ext>csv|json)$")
STEP_TOLERANCE = 0.05    # issue: durations + gaps add up to the step time within 5 %
ROUND_US = Decimal("0.002")  # two values rounded to 1 ns each
NEST_SLACK_US = 1e-3


class Checker:
    def __init__(self):
        self.problems = []

    def fail(self, what):
        if what not in self.problems:  # a file read twice reports its fault once
            self.problems.append(what)

    def expect(self, ok, what):
        if not ok:
            self.fail(what)
        return ok


def dec(text, where, chk):
    """A CSV number as an exact Decimal (CANN writes absolute times with a trailing TAB)."""
    try:
        return Decimal(text.rstrip("\t").strip())
    except InvalidOperation:
        chk.fail(f"{where}: '{text}' is not a number")
        return Decimal(0)


def read_csv(path, chk):
    """(header, rows as dicts) read with the standard csv module; checks one column count."""
    name = os.path.basename(path)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            records = list(csv.reader(f, strict=True))
    except (csv.Error, UnicodeDecodeError) as e:
        chk.fail(f"{name}: not a valid CSV: {e}")
        return [], []
    if not records or not records[0]:
        chk.fail(f"{name}: empty (no header)")
        return [], []
    header = records[0]
    chk.expect(len(set(header)) == len(header), f"{name}: duplicate column names in {header}")
    rows = []
    for n, rec in enumerate(records[1:], start=2):
        if not chk.expect(len(rec) == len(header),
                          f"{name}: line {n} has {len(rec)} cells, the header has {len(header)}"):
            continue
        rows.append(dict(zip(header, rec)))
    return header, rows


def need_columns(name, header, columns, chk):
    missing = [c for c in columns if c not in header]
    return chk.expect(not missing, f"{name}: missing columns {missing} (has {header})")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_trace(path, chk):
    """Chrome trace event format checks; returns the event list (or [])."""
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (ValueError, UnicodeDecodeError) as e:
        chk.fail(f"{name}: not valid JSON: {e}")
        return []
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not chk.expect(isinstance(events, list), f"{name}: neither a JSON array nor an object with traceEvents"):
        return []
    spans = defaultdict(list)   # (pid, tid) -> [(begin, end, name)]
    open_b = defaultdict(list)  # (pid, tid) -> names of open B events
    bad = 0
    for i, e in enumerate(events):
        if not isinstance(e, dict) or not all(k in e for k in ("ph", "pid", "tid")):
            bad += 1
            if bad <= 3:
                chk.fail(f"{name}: event {i} lacks ph/pid/tid: {json.dumps(e)[:200]}")
            continue
        ph = e["ph"]
        if ph == "M":
            continue
        if not is_num(e.get("ts")):
            bad += 1
            if bad <= 3:
                chk.fail(f"{name}: event {i} has no numeric ts: {json.dumps(e)[:200]}")
            continue
        key = (e["pid"], e["tid"])
        if ph == "X":
            if not is_num(e.get("dur")) or e["dur"] < 0:
                bad += 1
                if bad <= 3:
                    chk.fail(f"{name}: X event {i} needs a numeric dur >= 0: {json.dumps(e)[:200]}")
                continue
            spans[key].append((float(e["ts"]), float(e["ts"]) + float(e["dur"]), e.get("name", "?")))
        elif ph == "B":
            open_b[key].append(e.get("name"))
        elif ph == "E":
            if not chk.expect(open_b[key], f"{name}: E event {i} on {key} closes nothing"):
                continue
            open_b[key].pop()
    if bad > 3:
        chk.fail(f"{name}: {bad} malformed events in all")
    for key, names in open_b.items():
        chk.expect(not names, f"{name}: B events never closed on pid/tid {key}: {names[:3]}")
    # Nesting: sorted by start (longest first on ties), each event must end before the next
    # starts or contain it entirely.
    overlaps = 0
    for key, items in spans.items():
        items.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for b, e, n in items:
            while stack and stack[-1][1] <= b + NEST_SLACK_US:
                stack.pop()
            if stack and e > stack[-1][1] + NEST_SLACK_US:
                overlaps += 1
                if overlaps <= 3:
                    chk.fail(f"{name}: pid/tid {key}: '{n}' [{b:.3f}, {e:.3f}] overlaps '{stack[-1][2]}' "
                             f"[{stack[-1][0]:.3f}, {stack[-1][1]:.3f}] without nesting")
            stack.append((b, e, n))
    if overlaps > 3:
        chk.fail(f"{name}: {overlaps} badly nested X events in all")
    return events


def run_openge(args, out_dir):
    options = json.dumps({"output": out_dir, "task_trace": "l1", "training_trace": "on",
                          "aicpu": "on", "runtime_api": "on"})
    cmd = [args.openge, "run", "--model", args.model, "--profile", "--iterations", str(args.iterations),
           "--profile-options", options]
    env = dict(os.environ)
    for k in ("PROFILING_MODE", "PROFILING_OPTIONS", "ASCEND_WORK_PATH"):
        env.pop(k, None)
    print("running:", " ".join(cmd[:-1]), f"'{options}'", flush=True)
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=args.timeout,
                              cwd=args.work, env=env)
    except subprocess.TimeoutExpired:
        sys.exit(f"FAIL: openge run did not finish within {args.timeout} s")
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def check_iteration(out, it, files, traces, chk, cli_tasks):
    """All per-iteration checks; returns (task count, step mismatch fraction) or None."""
    def path(stem, ext):
        key = (stem, it, ext)
        if not chk.expect(key in files, f"iteration {it}: no {stem}_*_{it}.{ext}"):
            return None
        return os.path.join(out, files[key])

    p_sum, p_stat, p_step, p_task = (path("op_summary", "csv"), path("op_statistic", "csv"),
                                     path("step_trace", "csv"), path("task_time", "csv"))
    p_aicpu, p_msprof = path("aicpu", "csv"), path("msprof", "json")
    if not all((p_sum, p_stat, p_step, p_task)):
        return None
    h_sum, summary = read_csv(p_sum, chk)
    h_stat, stat = read_csv(p_stat, chk)
    h_step, step = read_csv(p_step, chk)
    h_task, tasks = read_csv(p_task, chk)
    ok = all([
        need_columns("op_summary", h_sum, ["Task ID", "Stream ID", "Op Name", "OP Type", "Task Type",
                                           "Task Start Time(us)", "Task Duration(us)", "Task Wait Time(us)"], chk),
        need_columns("op_statistic", h_stat, ["OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)",
                                              "Avg Time(us)", "Max Time(us)", "Ratio(%)"], chk),
        need_columns("step_trace", h_step, ["Iteration ID", "FP Start(us)", "BP End(us)", "Iteration End(us)",
                                            "Iteration Time(us)", "Model ID"], chk),
        need_columns("task_time", h_task, ["kernel_name", "kernel_type", "stream_id", "task_id", "task_time(us)",
                                           "task_start(us)", "task_stop(us)"], chk),
    ])
    if not ok:
        return None
    where = f"iteration {it}"
    n = len(summary)
    if not chk.expect(n > 0, f"{where}: op_summary has no rows"):
        return None

    # One row per executed task, whatever the engine (aicpu=on), in every view.
    chk.expect(len(tasks) == n, f"{where}: op_summary has {n} rows, task_time has {len(tasks)} (executed tasks)")
    if cli_tasks is not None:
        chk.expect(n == cli_tasks, f"{where}: op_summary has {n} rows, the CLI reported {cli_tasks} executed nodes")
    ids = [r["Task ID"] for r in summary]
    chk.expect(len(set(ids)) == n, f"{where}: op_summary repeats Task IDs")
    types = {r["Task Type"] for r in summary}
    chk.expect(types <= {"AI_CORE", "AI_CPU"}, f"{where}: unexpected Task Type values {sorted(types)}")
    by_id = {(r["Stream ID"], r["Task ID"]): r for r in summary}
    for t in tasks:
        s = by_id.get((t["stream_id"], t["task_id"]))
        if not chk.expect(s is not None, f"{where}: task_time task {t['task_id']} (stream {t['stream_id']}) "
                                         f"is not in op_summary"):
            continue
        same = (s["Op Name"] == t["kernel_name"] and s["Task Type"] == t["kernel_type"] and
                dec(s["Task Start Time(us)"], where, chk) == dec(t["task_start(us)"], where, chk) and
                dec(s["Task Duration(us)"], where, chk) == dec(t["task_time(us)"], where, chk))
        chk.expect(same, f"{where}: task {t['task_id']} differs: op_summary {s['Op Name']} "
                         f"{s['Task Start Time(us)'].strip()}+{s['Task Duration(us)']} vs task_time "
                         f"{t['kernel_name']} {t['task_start(us)'].strip()}+{t['task_time(us)']}")
        chk.expect(abs(dec(t["task_start(us)"], where, chk) + dec(t["task_time(us)"], where, chk)
                       - dec(t["task_stop(us)"], where, chk)) <= ROUND_US,
                   f"{where}: task_time task {t['task_id']}: start + time != stop")
    if p_msprof:
        events = traces.get(p_msprof, [])
        hw = [e for e in events if isinstance(e, dict) and e.get("ph") == "X"
              and isinstance(e.get("args"), dict) and "Task Type" in e["args"]]
        chk.expect(len(hw) == n, f"{where}: msprof timeline has {len(hw)} task events, op_summary {n} rows")
    n_cpu = sum(r["Task Type"] == "AI_CPU" for r in summary)
    if p_aicpu:
        _, aicpu = read_csv(p_aicpu, chk)
        chk.expect(len(aicpu) == n_cpu, f"{where}: aicpu csv has {len(aicpu)} rows, op_summary {n_cpu} AI_CPU tasks")
    else:
        chk.expect(n_cpu == 0, f"{where}: {n_cpu} AI_CPU tasks but no aicpu_*.csv (aicpu=on)")

    # Durations, waits and the step time.
    chk.expect(len(step) == 1, f"{where}: step_trace has {len(step)} rows, expected 1")
    if not step:
        return None
    st = step[0]
    chk.expect(st["Iteration ID"] == str(it), f"{where}: step_trace Iteration ID is {st['Iteration ID']}")
    iter_time = dec(st["Iteration Time(us)"], where, chk)
    iter_end = dec(st["Iteration End(us)"], where, chk)
    iter_start = iter_end - iter_time
    chk.expect(iter_time > 0, f"{where}: Iteration Time {iter_time} is not positive")
    busy = Decimal(0)
    per_stream = defaultdict(list)
    for r in summary:
        start = dec(r["Task Start Time(us)"], where, chk)
        dur = dec(r["Task Duration(us)"], where, chk)
        wait = dec(r["Task Wait Time(us)"], where, chk)
        chk.expect(dur >= 0 and wait >= 0, f"{where}: task {r['Task ID']} has a negative duration or wait")
        busy += dur + wait
        per_stream[r["Stream ID"]].append((start, dur, wait, r["Task ID"]))
    first_start, last_end = None, None
    for stream, items in per_stream.items():
        items.sort()
        prev_end = iter_start
        for start, dur, wait, tid in items:
            chk.expect(abs((start - prev_end) - wait) <= ROUND_US,
                       f"{where}: stream {stream} task {tid}: Task Wait Time {wait} but the gap to the previous "
                       f"task's end (or the run's start) is {start - prev_end}")
            prev_end = start + dur
        first_start = items[0][0] if first_start is None else min(first_start, items[0][0])
        last_end = prev_end if last_end is None else max(last_end, prev_end)
    chk.expect(first_start >= iter_start - ROUND_US and last_end <= iter_end + ROUND_US,
               f"{where}: tasks span [{first_start}, {last_end}], outside the iteration [{iter_start}, {iter_end}]")
    # Checked on the median iteration in main(): a preemption after the last task stretches one
    # iteration on a loaded machine, time the step trace counted outside every task would show in all.
    mismatch = abs(busy - iter_time) / iter_time if iter_time > 0 else Decimal(1)
    chk.expect(busy <= iter_time + ROUND_US * n,
               f"{where}: sum(Task Duration + Task Wait Time) = {busy} us exceeds Iteration Time {iter_time} us")
    # training_trace=on without fp/bp points: the first task's start and the last task's end.
    chk.expect(abs(dec(st["FP Start(us)"], where, chk) - first_start) <= ROUND_US,
               f"{where}: FP Start {st['FP Start(us)'].strip()} is not the first task's start {first_start}")
    chk.expect(abs(dec(st["BP End(us)"], where, chk) - last_end) <= ROUND_US,
               f"{where}: BP End {st['BP End(us)'].strip()} is not the last task's end {last_end}")

    # op_statistic = op_summary sums per (OP Type, Task Type).
    sums = defaultdict(lambda: [0, Decimal(0), None, None])
    for r in summary:
        d = dec(r["Task Duration(us)"], where, chk)
        s = sums[(r["OP Type"], r["Task Type"])]
        s[0] += 1
        s[1] += d
        s[2] = d if s[2] is None else min(s[2], d)
        s[3] = d if s[3] is None else max(s[3], d)
    stat_keys = [(r["OP Type"], r["Core Type"]) for r in stat]
    chk.expect(len(set(stat_keys)) == len(stat_keys), f"{where}: op_statistic repeats an (OP Type, Core Type)")
    chk.expect(set(stat_keys) == set(sums), f"{where}: op_statistic groups {sorted(set(stat_keys))} differ from "
                                            f"op_summary's {sorted(sums)}")
    total_all = sum(s[1] for s in sums.values())
    ratio_sum = Decimal(0)
    for r in stat:
        key = (r["OP Type"], r["Core Type"])
        if key not in sums:
            continue
        count, total, lo, hi = sums[key]
        chk.expect(r["Count"].strip() == str(count), f"{where}: op_statistic {key} Count {r['Count']}, "
                                                     f"op_summary has {count}")
        got = dec(r["Total Time(us)"], where, chk)
        chk.expect(abs(got - total) <= Decimal("0.001") * count + Decimal("0.001"),
                   f"{where}: op_statistic {key} Total Time {got}, op_summary sum {total}")
        chk.expect(abs(dec(r["Min Time(us)"], where, chk) - lo) <= Decimal("0.001") and
                   abs(dec(r["Max Time(us)"], where, chk) - hi) <= Decimal("0.001"),
                   f"{where}: op_statistic {key} Min/Max {r['Min Time(us)']}/{r['Max Time(us)']}, op_summary {lo}/{hi}")
        chk.expect(abs(dec(r["Avg Time(us)"], where, chk) - total / count) <= Decimal("0.001"),
                   f"{where}: op_statistic {key} Avg {r['Avg Time(us)']}, op_summary {total / count}")
        ratio = dec(r["Ratio(%)"], where, chk)
        ratio_sum += ratio
        if total_all > 0:
            chk.expect(abs(ratio - 100 * total / total_all) <= Decimal("0.01"),
                       f"{where}: op_statistic {key} Ratio {ratio} %, op_summary gives {100 * total / total_all:.3f} %")
    chk.expect(abs(ratio_sum - 100) <= Decimal("0.01") * max(1, len(stat)),
               f"{where}: op_statistic ratios add up to {ratio_sum} %")
    totals = [dec(r["Total Time(us)"], where, chk) for r in stat]
    chk.expect(totals == sorted(totals, reverse=True), f"{where}: op_statistic is not sorted by total time")
    return n, float(mismatch), float(iter_time)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openge")
    ap.add_argument("--model")
    ap.add_argument("--work")
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--timeout", type=int, default=1200)
    ap.add_argument("--check-only", metavar="OUT",
                    help="do not run openge: check the collection already in OUT (a profiling output folder)")
    args = ap.parse_args()
    if not args.check_only and not (args.openge and args.model and args.work):
        ap.error("--openge, --model and --work are required (or --check-only OUT)")
    chk = Checker()
    if args.check_only:
        out_root = os.path.abspath(args.check_only)
        rc, stdout, stderr = 0, os.path.join(out_root, "".join(os.listdir(out_root))), ""
    else:
        args.model = os.path.abspath(args.model)
        args.work = os.path.abspath(args.work)
        if not os.path.isfile(args.model):
            sys.exit(f"FAIL: model {args.model} does not exist (tools/make_resnet50_model.py writes it)")
        shutil.rmtree(args.work, ignore_errors=True)
        out_root = os.path.join(args.work, "out")
        os.makedirs(out_root)
        rc, stdout, stderr = run_openge(args, out_root)
    if rc != 0:
        how = f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}"
        sys.exit(f"FAIL: openge run --profile: {how}\n--- stdout ---\n{stdout[-3000:]}\n--- stderr ---\n{stderr[-3000:]}")
    if "terminate called" in stderr:
        chk.fail("stderr mentions 'terminate called'")

    entries = sorted(os.listdir(out_root))
    folders = [e for e in entries if FOLDER_RE.match(e) and os.path.isdir(os.path.join(out_root, e))]
    if len(folders) != 1 or len(entries) != 1:
        sys.exit(f"FAIL: {out_root} should hold exactly one PROF_<6 digits>_<17 digits>_<word> folder, holds {entries}")
    collection = os.path.join(out_root, folders[0])
    chk.expect(collection in stdout or os.path.realpath(collection) in stdout,
               f"the CLI did not print the collection folder {collection}; stdout:\n{stdout[-2000:]}")
    for sub in ("device_0", "host", "mindstudio_profiler_log"):
        chk.expect(os.path.isdir(os.path.join(collection, sub)), f"{folders[0]}/{sub} is missing")
    out = os.path.join(collection, "mindstudio_profiler_output")
    if not os.path.isdir(out):
        sys.exit(f"FAIL: {out} is missing")

    m = re.search(r"nodes: (\d+) AI Core, (\d+) AI CPU", stdout)
    cli_tasks = int(m.group(1)) + int(m.group(2)) if m else None

    # File inventory: one model, iterations 1..N.
    files, models, devices = {}, set(), set()
    for name in sorted(os.listdir(out)):
        fm = FILE_RE.match(name)
        if fm:
            files[(fm["stem"], int(fm["iter"]), fm["ext"])] = name
            models.add(fm["model"])
            devices.add(fm["device"])
    chk.expect(devices == {"0"}, f"device ids in file names: {sorted(devices)}, expected ['0']")
    chk.expect(len(models) == 1, f"model ids in file names: {sorted(models)}, expected one model")
    iters = sorted({it for (stem, it, ext) in files if stem == "op_summary"})
    chk.expect(iters == list(range(1, args.iterations + 1)),
               f"op_summary iterations {iters}, expected 1..{args.iterations}")
    for stem, ext in (("msprof", "json"), ("task_time", "json"), ("step_trace", "json"), ("step_trace", "csv"),
                      ("op_statistic", "csv"), ("task_time", "csv"), ("aicpu", "csv")):
        got = sorted(it for (s, it, e) in files if s == stem and e == ext)
        chk.expect(got == list(range(1, args.iterations + 1)) or (stem == "aicpu" and not got),
                   f"{stem}_*.{ext}: iterations {got}, expected 1..{args.iterations}")

    # Every CSV and every timeline under mindstudio_profiler_output.
    n_csv = n_json = n_events = 0
    traces = {}
    for root, _, names in os.walk(out):
        for name in sorted(names):
            p = os.path.join(root, name)
            if name.endswith(".csv"):
                n_csv += 1
                header, _ = read_csv(p, chk)
                chk.expect(bool(header), f"{name}: no header")
            elif name.endswith(".json"):
                n_json += 1
                traces[p] = check_trace(p, chk)
                n_events += len(traces[p])

    results = {}
    for it in range(1, args.iterations + 1):
        r = check_iteration(out, it, files, traces, chk, cli_tasks)
        if r:
            results[it] = r

    if results:
        counts = sorted({r[0] for r in results.values()})
        chk.expect(len(counts) == 1, f"the number of tasks changes between iterations: {counts}")
        worst_it = max(results, key=lambda i: results[i][1])
        median_mismatch = statistics.median(r[1] for r in results.values())
        chk.expect(median_mismatch <= STEP_TOLERANCE,
                   f"sum(Task Duration + Task Wait Time) vs Iteration Time: median {median_mismatch * 100:.2f} % apart "
                   f"over the iterations (limit {STEP_TOLERANCE * 100:.0f} %); per iteration: "
                   + ", ".join(f"{results[i][1] * 100:.2f} %" for i in sorted(results)))
        print(f"collection: {collection}")
        print(f"iterations: {len(results)}/{args.iterations}; tasks per iteration: "
              f"{', '.join(str(results[i][0]) for i in sorted(results))}"
              + (f" (CLI reports {cli_tasks} nodes)" if cli_tasks is not None else ""))
        print("step times (us): " + ", ".join(f"{results[i][2]:.0f}" for i in sorted(results)))
        print(f"step-time mismatch: median {median_mismatch * 100:.3f} % (limit {STEP_TOLERANCE * 100:.0f} %), "
              f"worst {results[worst_it][1] * 100:.3f} % (iteration {worst_it})")
    print(f"checked {n_csv} CSV files and {n_json} Chrome traces ({n_events} events)")
    if chk.problems:
        print(f"FAIL: {len(chk.problems)} problem(s):", file=sys.stderr)
        for p in chk.problems[:50]:
            print("  - " + p, file=sys.stderr)
        if len(chk.problems) > 50:
            print(f"  ... and {len(chk.problems) - 50} more", file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
