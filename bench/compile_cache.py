"""Cold vs warm online compile through the operator compile cache (warm
<= 0.2 s; force recompiles; disable never touches the cache folder).

For each model and round, one fresh `openge bench --runs 1 --warmup 0` process per setting, the
settings interleaved:
  prebuilt  jit_compile=false: nothing is compiled online (the baseline)
  cold      jit_compile=true, a fresh, empty op_compiler_cache_dir: every kernel is compiled
  warm      jit_compile=true, the cache the cold run filled: every kernel is a hit
  force     jit_compile=true, op_compiler_cache_mode=force on that cache: every kernel recompiled
  disable   jit_compile=true, op_compiler_cache_mode=disable, op_compiler_cache_dir a folder that
            must still not exist afterwards
Three times per process:
  stage     the online compile stage alone (code generation, cache look-ups, compiler runs,
            dlopen), from the log line "online compile: N fused kernels (C compiled, H cached)
            in T ms" (ASCEND_GLOBAL_LOG_LEVEL=1); "-" when the model has no fused group
  first     the first run (a Session compiles at its first run: compile + one run; load excluded)
  process   the whole process: load + compile + first run (wall clock)
and the kernels compiled / cached from that log line.

  /usr/bin/python3 bench/compile_cache.py --openge build/openge --rounds 3 \
      MODELS/resnet50.onnx MODELS/bert_float.onnx ...
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINE = re.compile(r"online compile: (\d+) fused kernels \((\d+) compiled, (\d+) cached\) in ([0-9.]+) ms")


def one_process(openge, model, options, env, threads):
    """(process seconds, first-run seconds, stage ms or None, kernels, compiled, cached)."""
    cmd = [openge, "bench", "--model", model, "--runs", "1", "--warmup", "0", "--json", "--threads", str(threads)]
    for o in options:
        cmd += ["--option", o]
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    wall = time.perf_counter() - start
    first = json.loads(out.strip().splitlines()[-1])["median_ms"] / 1000.0
    stage, kernels, compiled, cached = None, 0, 0, 0
    for f in glob.glob(os.path.join(env["ASCEND_PROCESS_LOG_PATH"], "**", "plog-*.log"), recursive=True):
        with open(f, errors="replace") as fh:
            for line in fh:
                m = LINE.search(line)
                if m:
                    kernels, compiled, cached = int(m.group(1)), int(m.group(2)), int(m.group(3))
                    stage = (stage or 0.0) + float(m.group(4))
    return wall, first, stage, kernels, compiled, cached


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--graph-fusion-off", action="store_true",
                    help="also with fusion_switch_file {GraphFusion: {ALL: off}}: the UB fusion then groups "
                         "the vector ops the graph fusions would have taken (LayerNorm, GELU, BatchNorm tails)")
    args = ap.parse_args()
    settings = ("prebuilt", "cold", "warm", "force", "disable")
    work = tempfile.mkdtemp(prefix="openge_cache_bench_")
    variants = [("", [])]
    if args.graph_fusion_off:
        cfg = os.path.join(work, "graph_off.cfg")
        with open(cfg, "w") as f:
            json.dump({"Switch": {"GraphFusion": {"ALL": "off"}}}, f)
        variants.append((" (graph fusions off)", ["fusion_switch_file=" + cfg]))
    try:
        print(f"| model | setting | stage ms | first run s | process s | kernels (compiled / cached) |")
        print(f"|---|---|---|---|---|---|")
        for model, (label, switch) in ((m, v) for m in args.models for v in variants):
            res = {s: [] for s in settings}
            touched = False
            for r in range(args.rounds):
                cache = os.path.join(work, f"cache_{os.path.basename(model)}_{len(switch)}_{r}")
                never = os.path.join(work, f"never_{r}")
                for setting in settings:
                    options = {
                        "prebuilt": ["jit_compile=false"],
                        "cold": ["jit_compile=true", f"op_compiler_cache_dir={cache}"],
                        "warm": ["jit_compile=true", f"op_compiler_cache_dir={cache}"],
                        "force": ["jit_compile=true", f"op_compiler_cache_dir={cache}", "op_compiler_cache_mode=force"],
                        "disable": ["jit_compile=true", f"op_compiler_cache_dir={never}",
                                    "op_compiler_cache_mode=disable"],
                    }[setting] + switch
                    logs = os.path.join(work, f"log_{setting}_{r}")
                    shutil.rmtree(logs, ignore_errors=True)
                    env = dict(os.environ, ASCEND_PROCESS_LOG_PATH=logs, ASCEND_GLOBAL_LOG_LEVEL="1",
                               ASCEND_CACHE_PATH=os.path.join(work, "never_ascend_cache"))
                    res[setting].append(one_process(args.openge, model, options, env, args.threads))
                touched |= os.path.exists(never) or os.path.exists(os.path.join(work, "never_ascend_cache"))
            name = os.path.basename(model) + label
            for s in settings:
                rows = res[s]
                stage = med([x[2] for x in rows])
                counts = sorted({f"{x[3]} ({x[4]} / {x[5]})" for x in rows})
                print(f"| {name} | {s} | {'-' if stage is None else f'{stage:.1f}'} | {med([x[1] for x in rows]):.3f} "
                      f"| {med([x[0] for x in rows]):.3f} | {', '.join(counts)} |")
            print(f"| {name} | disable touched a cache folder | {'YES' if touched else 'no'} | | | |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
