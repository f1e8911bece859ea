#!/usr/bin/python3
"""Generated vector kernels vs the kernels they replace, on chains of
elementwise ops that TbeEltwiseFusionPass turns into one FusedElementwise node:
  bn_relu     [1,64,112,112]  Relu(x * s_c + b_c), s and b per channel ([64,1,1])
  silu        [1,96,56,56]    x * Sigmoid(x)
  tanh_tail   [128,768]       Tanh(x * w + b) * 0.5 + 0.5, w and b on the last axis ([768])
Configurations, one `openge bench` process each, interleaved per round, then ONNX Runtime:
  jit        jit_compile=true: the online compiler's kernel (one pass over memory)
  prebuilt   jit_compile=false: the same FusedElementwise node on its prebuilt kernel, which runs
             each op's reference kernel in turn (what jit_compile=false gives)
  unfused    fusion_switch_file {"Switch": {"UBFusion": {"ALL": "off"}}}: the ops as separate nodes
  ort        ONNX Runtime 1.30 CPU
The models and their inputs are written into a temporary folder (nothing needs exporting).

  /usr/bin/python3 bench/eltwise_chain.py --peers ORT_DIR --ort-script ORT_HARNESS --threads 1 --rounds 5
"""
import argparse
import json
import os
import statistics
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from bench_common import ROOT, add_common_args, node_env, parse_args, run_json

rng = np.random.default_rng(7)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def chains():
    """name -> (shape, nodes, initializers)."""
    n = helper.make_node
    return {
        "bn_relu": ([1, 64, 112, 112],
                    [n("Mul", ["x", "s"], ["a"]), n("Add", ["a", "b"], ["c"]), n("Relu", ["c"], ["y"])],
                    [const("s", rng.uniform(0.5, 1.5, (64, 1, 1))), const("b", rng.standard_normal((64, 1, 1)))]),
        "silu": ([1, 96, 56, 56], [n("Sigmoid", ["x"], ["a"]), n("Mul", ["x", "a"], ["y"])], []),
        "tanh_tail": ([128, 768],
                      [n("Mul", ["x", "w"], ["a"]), n("Add", ["a", "b"], ["c"]), n("Tanh", ["c"], ["d"]),
                       n("Mul", ["d", "half"], ["e"]), n("Add", ["e", "half"], ["y"])],
                      [const("w", rng.uniform(0.5, 1.5, 768)), const("b", rng.standard_normal(768)),
                       const("half", 0.5)]),
    }


def write(folder, name, shape, nodes, inits):
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits)
    model = os.path.join(folder, name + ".onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), model)
    inp = os.path.join(folder, name + ".input.npy")
    np.save(inp, rng.standard_normal(shape).astype(np.float32))
    return model, inp


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap)
    ap.add_argument("--openge", default=os.path.join(ROOT, "build", "openge"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    args = parse_args(ap)
    env = node_env(args.peers)
    with tempfile.TemporaryDirectory() as tmp:
        off = os.path.join(tmp, "ub_off.cfg")
        with open(off, "w") as f:
            json.dump({"Switch": {"UBFusion": {"ALL": "off"}}}, f)
        configs = {"jit": ["--option", "jit_compile=true", "--option", "op_compiler_cache_dir=" + tmp + "/cache"],
                   "prebuilt": ["--option", "jit_compile=false"],
                   "unfused": ["--option", "fusion_switch_file=" + off]}
        print(f"threads {args.threads}, {args.rounds} rounds x {args.runs} runs (+{args.warmup} warm-up)\n")
        print("| chain | jit ms | prebuilt ms | unfused ms | ORT ms | jit/prebuilt | jit/unfused | jit/ORT |")
        print("|---|---|---|---|---|---|---|---|")
        for name, (shape, nodes, inits) in chains().items():
            model, inp = write(tmp, name, shape, nodes, inits)
            common = [args.openge, "bench", "--model", model, "--input", "x=" + inp, "--threads", str(args.threads),
                      "--warmup", str(args.warmup), "--runs", str(args.runs), "--json"]
            t = {k: [] for k in list(configs) + ["ort"]}
            for _ in range(args.rounds):
                for k, extra in configs.items():
                    t[k].append(run_json(common + extra)["median_ms"])
                t["ort"].append(run_json(["node", args.ort_script, model, inp, "--threads", str(args.threads),
                                          "--warmup", str(args.warmup), "--runs", str(args.runs)], env=env)["median"])
            m = {k: statistics.median(v) for k, v in t.items()}
            ratio = lambda a, b: statistics.median(x / y for x, y in zip(t[a], t[b]))
            print(f"| {name} {shape} | {m['jit']:.3f} | {m['prebuilt']:.3f} | {m['unfused']:.3f} | {m['ort']:.3f} "
                  f"| {ratio('jit', 'prebuilt'):.2f} | {ratio('jit', 'unfused'):.2f} | {ratio('jit', 'ort'):.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
