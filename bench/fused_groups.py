#!/usr/bin/python3
"""Which fused vector-op groups the online compiler builds for each model: one
`openge run` per model with jit_compile=true and op_debug_level=4 (which writes every kernel's
_compute.json, its ops and operands, into debug_dir/kernel_meta), the default SoC and passes.
Prints per model: FusedElementwise nodes (TbeEltwiseFusionPass's effect_times in
fusion_result.json), distinct kernels, and each kernel's op chain.

  /usr/bin/python3 bench/fused_groups.py --openge build/openge MODELS/resnet50.onnx ZOO/*.onnx
"""
import argparse
import glob
import json
import os
import subprocess
import tempfile
from collections import Counter


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--openge", default="build/openge")
    ap.add_argument("--option", action="append", default=[], help="more openge options (KEY=VALUE), e.g. "
                    "fusion_switch_file=F to see what the UB fusion takes with graph fusions off")
    args = ap.parse_args()
    print("| model | fused nodes | distinct kernels | their op chains |\n|---|---|---|---|")
    for model in args.models:
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, ASCEND_WORK_PATH=os.path.join(tmp, "work"))
            p = subprocess.run([args.openge, "run", "--model", model, "--threads", "1", "--option", "jit_compile=true",
                                "--option", "op_debug_level=4", "--option", "debug_dir=" + tmp]
                               + [x for o in args.option for x in ("--option", o)],
                               capture_output=True, text=True, env=env)
            name = os.path.basename(model)
            if p.returncode != 0:
                print(f"| {name} | run failed: {p.stderr.strip()[:120]} | | |")
                continue
            effects = 0
            for f in glob.glob(os.path.join(tmp, "work", "FE", "*", "fusion_result.json")):
                for graph in json.load(open(f)).values():
                    entry = graph.get("ub_fusion", {}).get("TbeEltwiseFusionPass")
                    effects += int(entry["effect_times"]) if entry else 0
            chains = Counter()
            for f in glob.glob(os.path.join(tmp, "kernel_meta", "*_compute.json")):
                c = json.load(open(f))
                chains["-".join(op["type"] for op in c["ops"])] += 1
            desc = "; ".join(c + (f" (x{n} shapes)" if n > 1 else "") for c, n in sorted(chains.items())) or "none"
            print(f"| {name} | {effects} | {sum(chains.values())} | {desc} |", flush=True)


if __name__ == "__main__":
    main()
