#!/usr/bin/python3
"""The cost of a Data Dump: `openge bench` of a model undumped and with every op's
outputs dumped for the timed iterations (dump_step=1-N, the warm-up run is iteration 0), in
interleaved pairs, at each thread count. Per pair: the ratio of the per-run medians (latency) and
the ratio of the totals, where the dumped total is the timed runs plus the final flush of what is
still queued (everything the dump costs). The medians of those ratios over the pairs are printed
with each pair's numbers, its processes' CPU time (user + sys) and the load average around it.

Several binaries (--openge A --openge B) are measured in the same rounds, pair after pair, for an
A/B comparison under the same load.

Usage: dump_overhead.py --openge build/openge [--openge other/openge] --model resnet50.onnx
       --work DIR [--threads 1,2] [--rounds 5] [--runs 10]
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys

TOTAL = re.compile(r"timed runs total ([0-9.]+) ms(?: \+ final flush of the dump ([0-9.]+) ms)?")
MEDIAN = re.compile(r"median ([0-9.]+) ms")


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def bench(binary, model, threads, runs, dump_dir):
    cmd = [binary, "bench", "--model", model, "--warmup", "1", "--runs", str(runs), "--threads", str(threads)]
    if dump_dir:
        os.makedirs(dump_dir)
        cmd += ["--option", "dump_config.enable_dump=True", "--option", "dump_config.dump_path=" + dump_dir,
                "--option", "dump_config.dump_step=1-%d" % runs]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit("%s failed:\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    total = TOTAL.search(r.stdout)
    median = float(MEDIAN.search(r.stdout).group(1))
    runs_ms = float(total.group(1))
    flush_ms = float(total.group(2) or 0)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if dump_dir:
        files = sum(len(f) for _, _, f in os.walk(dump_dir))
        shutil.rmtree(dump_dir)
        if files == 0:
            raise SystemExit("the dumped run wrote no file")
    return {"median": median, "total": runs_ms + flush_ms, "flush": flush_ms, "cpu": cpu}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", action="append", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    for threads in [int(t) for t in a.threads.split(",")]:
        ratios = {b: ([], []) for b in a.openge}
        for r in range(a.rounds):
            for b in a.openge:
                before = load()
                # Alternate which side goes first, so that neither always follows the other.
                order = [False, True] if r % 2 == 0 else [True, False]
                got = {}
                for dumped in order:
                    got[dumped] = bench(b, a.model, threads, a.runs, os.path.join(a.work, "dump") if dumped else None)
                plain, dump = got[False], got[True]
                rm, rt = dump["median"] / plain["median"], dump["total"] / plain["total"]
                ratios[b][0].append(rm)
                ratios[b][1].append(rt)
                print("threads %d round %d %s: undumped median %.1f total %.0f cpu %.2fs | dumped median %.1f "
                      "total %.0f (flush %.0f) cpu %.2fs | ratios median %.2f total %.2f | load %.2f-%.2f"
                      % (threads, r, b, plain["median"], plain["total"], plain["cpu"], dump["median"], dump["total"],
                         dump["flush"], dump["cpu"], rm, rt, before, load()), flush=True)
        for b in a.openge:
            print("threads %d %s: median over %d pairs of the per-run-median ratio %.2f, of the total ratio %.2f"
                  % (threads, b, a.rounds, statistics.median(ratios[b][0]), statistics.median(ratios[b][1])),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
