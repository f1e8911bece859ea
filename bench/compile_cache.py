"""Cold vs warm compile with the operator compile cache (issue 11 acceptance: warm <= 0.2 s).

Each measurement is the first run of one `openge bench --runs 1 --warmup 0` process (a Session
compiles at its first run, so this is compile + one run, without loading the model), under four
settings, interleaved round by round:
  prebuilt  jit_compile=false: no kernel is compiled online (the baseline)
  cold      jit_compile=true, a fresh, empty op_compiler_cache_dir: every kernel is compiled
  warm      jit_compile=true, the cache the previous run filled: every kernel is a hit
  force     jit_compile=true, op_compiler_cache_mode=force on that cache: every kernel recompiled
The online-compile cost of a setting is its time minus prebuilt's (medians). The cache's hits and
misses are counted from the log (ASCEND_GLOBAL_LOG_LEVEL=1: one "compile cache miss" record per
compiled kernel).

  /usr/bin/python3 bench/compile_cache.py --model bench/models/bert_float.onnx --rounds 5
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def first_run_seconds(openge, model, options, env, threads):
    cmd = [openge, "bench", "--model", model, "--runs", "1", "--warmup", "0", "--json", "--threads", str(threads)]
    for o in options:
        cmd += ["--option", o]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])["median_ms"] / 1000.0


def count_in_logs(log_dir, text):
    n = 0
    for f in glob.glob(os.path.join(log_dir, "**", "plog-*.log"), recursive=True):
        with open(f, errors="replace") as fh:
            n += sum(text in line for line in fh)
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="openge_cache_bench_")
    times = {k: [] for k in ("prebuilt", "cold", "warm", "force")}
    misses = {k: [] for k in times}
    try:
        for r in range(args.rounds):
            cache = os.path.join(work, f"cache{r}")
            for setting, options in (
                ("prebuilt", ["jit_compile=false"]),
                ("cold", ["jit_compile=true", f"op_compiler_cache_dir={cache}"]),
                ("warm", ["jit_compile=true", f"op_compiler_cache_dir={cache}"]),
                ("force", ["jit_compile=true", f"op_compiler_cache_dir={cache}", "op_compiler_cache_mode=force"]),
            ):
                logs = os.path.join(work, f"log_{setting}_{r}")
                env = dict(os.environ, ASCEND_PROCESS_LOG_PATH=logs, ASCEND_GLOBAL_LOG_LEVEL="1")
                times[setting].append(first_run_seconds(args.openge, args.model, options, env, args.threads))
                misses[setting].append(count_in_logs(logs, "compile cache miss"))
        base = statistics.median(times["prebuilt"])
        print(f"model {args.model}, {args.rounds} rounds, threads {args.threads}; medians of first runs (s)")
        for k, v in times.items():
            med = statistics.median(v)
            extra = "" if k == "prebuilt" else f"  online compile cost {med - base:+.3f} s"
            print(f"  {k:9s} {med:.3f} s (min {min(v):.3f}, max {max(v):.3f}), cache misses logged {misses[k]}{extra}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
