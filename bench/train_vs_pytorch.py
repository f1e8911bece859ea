#!/usr/bin/env python3
"""Training side by side with PyTorch 1.13 (Debian's python3-torch): the same model, initial
weights, batches and optimizer (SGD with momentum, fp32), step by step.

The model is built in PyTorch, exported to ONNX (training-mode export without constant folding,
so BatchNormalization stays a node and every parameter an initializer of the same name), and then
trained by both: PyTorch eager and openge.Trainer. Reported: per-step losses and their relative
difference, median step times (after the first steps, which compile), and peak RSS of each
engine in its own process. Writes DIR/<model>_losses.csv and DIR/<model>_losses.html.

Models: resnet18 (torchvision's ResNet-18 layout, 64x64 inputs, 10 classes) and bert2 (a 2-layer
BERT encoder, hidden 256, 4 heads, sequence 128, a classifier on the first token).

    /usr/bin/python3 bench/train_vs_pytorch.py --model resnet18 --steps 200 --batch 32 --threads 1 --out bench/train

--clock cpu times each step in the process's CPU time instead of wall time: on a machine others
load, a one-thread step's CPU time moves far less than its wall time.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def resnet18(num_classes=10):
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU()
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return self.relu(y + (self.down(x) if self.down is not None else x))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
            layers, cin = [], 64
            for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
                layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
                cin = cout
            self.layers = nn.Sequential(*layers)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(512, num_classes)

        def forward(self, x):
            return self.fc(self.pool(self.layers(self.stem(x))).flatten(1))

    return Net()


def bert2(vocab=1000, hidden=256, heads=4, layers=2, seq=128, num_classes=2):
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, hidden)
            self.pos = nn.Embedding(seq, hidden)
            self.norm = nn.LayerNorm(hidden)
            layer = nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, dropout=0.0, activation="gelu",
                                               batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.fc = nn.Linear(hidden, num_classes)
            import torch
            self.register_buffer("positions", torch.arange(seq).unsqueeze(0), persistent=False)

        def forward(self, ids):
            x = self.norm(self.tok(ids) + self.pos(self.positions))
            return self.fc(self.encoder(x)[:, 0])

    return Net()


def images(rng, labels):
    """Noise plus a fixed pattern per class: data a network can learn, so the loss falls smoothly."""
    patterns = np.random.default_rng(1234).standard_normal((10, 3, 64, 64)).astype(np.float32)
    return (rng.standard_normal((len(labels), 3, 64, 64), dtype=np.float32) + 0.5 * patterns[labels]).astype(np.float32)


def token_ids(rng, labels):
    """Random tokens whose first half is drawn from a class-specific half of the vocabulary."""
    ids = rng.integers(0, 1000, size=(len(labels), 128), dtype=np.int64)
    ids[:, :64] = rng.integers(0, 500, size=(len(labels), 64)) + 500 * labels[:, None]
    return ids


MODELS = {
    "resnet18": (resnet18, images, 10, "image"),
    "bert2": (bert2, token_ids, 2, "ids"),
}


def batches(model, steps, batch, seed):
    _, make, classes, _ = MODELS[model]
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        labels = rng.integers(0, classes, size=(batch,), dtype=np.int64)
        out.append((make(rng, labels), labels))
    return out


def export(model, path, batch, seed):
    import torch
    torch.manual_seed(seed)
    net = MODELS[model][0]()
    x, _ = batches(model, 1, batch, seed)[0]
    # Training-mode export: an eval-mode export folds each BatchNormalization into its convolution.
    net.train()
    torch.onnx.export(net, torch.from_numpy(x), path, input_names=[MODELS[model][3]], output_names=["logits"],
                      opset_version=17, do_constant_folding=False, training=torch.onnx.TrainingMode.TRAINING,
                      dynamic_axes={MODELS[model][3]: {0: "N"}, "logits": {0: "N"}})
    torch.save(net.state_dict(), path + ".pt")


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


# The step clock (--clock): wall time, or the process's CPU time.
step_clock = time.perf_counter


def run_pytorch(args, double=False, wrap=None, select=lambda a: a):
    """PyTorch eager steps; `wrap` turns the module into another (DistributedDataParallel),
    `select` picks this process's part of each batch (a rank's shard)."""
    import torch
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    net = MODELS[args.model][0]()
    net.load_state_dict(torch.load(args.onnx + ".pt"))
    if double:
        net = net.double()
    net.train()
    if wrap:
        net = wrap(net)
    opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    losses, times = [], []
    for x, y in batches(args.model, args.steps, args.batch, args.seed):
        x, y = select(x), select(y)
        start = step_clock()
        opt.zero_grad()
        xt = torch.from_numpy(x)
        if double and xt.is_floating_point():
            xt = xt.double()
        loss = loss_fn(net(xt), torch.from_numpy(y))
        loss.backward()
        opt.step()
        times.append(step_clock() - start)
        losses.append(float(loss))
    return losses, times


def run_openge(args):
    import openge
    # "True" / "False" as Python bools: npu.global_options() types its bool options.
    literal = {"True": True, "False": False}
    options = {k: literal.get(v, v) for k, v in (o.split("=", 1) for o in (args.option or []))}
    trainer = openge.Trainer(args.onnx, loss="cross_entropy", optimizer="momentum", lr=args.lr, momentum=0.9,
                             threads=args.threads, options=options or None)
    losses, times = [], []
    name = MODELS[args.model][3]
    for x, y in batches(args.model, args.steps, args.batch, args.seed):
        start = step_clock()
        losses.append(trainer.step({name: x, "labels": y}))
        times.append(step_clock() - start)
    return losses, times


def worker(args):
    global step_clock
    step_clock = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.engine == "openge":
        losses, times = run_openge(args)
    else:
        losses, times = run_pytorch(args, double=args.engine == "pytorch64")
    json.dump({"losses": losses, "times": times, "peak_rss_mib": peak_rss_mib()}, sys.stdout)


def write_plot(path, model, series, threads, batch):
    """Two SVG panels: the loss per step of each run, and the relative difference of OpenGE and of
    PyTorch fp32 to PyTorch fp64 (log scale), with the 1e-3 line of the acceptance."""
    width, height, pad = 900, 340, 48
    colors = {"PyTorch 1.13 fp32": "#d62728", "PyTorch 1.13 fp64 (reference)": "#7f7f7f", "OpenGE fp32": "#1f77b4"}

    def x_of(i, n):
        return pad + (width - 2 * pad) * i / max(1, n - 1)

    def panel(lines, lo, hi, log, title):
        import math
        f = (lambda v: math.log10(max(v, 1e-12))) if log else (lambda v: v)
        flo, fhi = f(lo), f(hi)
        fhi = fhi if fhi > flo else flo + 1
        y_of = lambda v: height - pad - (height - 2 * pad) * (f(v) - flo) / (fhi - flo)
        out = [f"<h2>{title}</h2><svg width='{width}' height='{height}'>"
               f"<rect width='100%' height='100%' fill='#fafafa' stroke='#ccc'/>"]
        n = max(len(v) for _, v, _ in lines)
        for step in range(0, n + 1, max(1, n // 10)):
            x = x_of(max(step - 1, 0), n)
            out.append(f"<line x1='{x:.1f}' y1='{pad}' x2='{x:.1f}' y2='{height - pad}' stroke='#eee'/>"
                       f"<text x='{x:.1f}' y='{height - pad + 16}' font-size='11' text-anchor='middle'>{max(step, 1)}</text>")
        if log and lo <= 1e-3 <= hi:
            out.append(f"<line x1='{pad}' y1='{y_of(1e-3):.1f}' x2='{width - pad}' y2='{y_of(1e-3):.1f}' "
                       f"stroke='#2ca02c' stroke-dasharray='4 3'/><text x='{width - pad + 2}' y='{y_of(1e-3):.1f}' "
                       f"font-size='11'>1e-3</text>")
            x20 = x_of(19, n)
            out.append(f"<line x1='{x20:.1f}' y1='{pad}' x2='{x20:.1f}' y2='{height - pad}' stroke='#2ca02c' "
                       f"stroke-dasharray='4 3'/>")
        for name, values, color in lines:
            pts = " ".join(f"{x_of(i, n):.1f},{y_of(v):.1f}" for i, v in enumerate(values))
            out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.3" points="{pts}"><title>{name}</title></polyline>')
        out.append(f"<text x='4' y='{pad}' font-size='11'>{hi:.3g}</text>"
                   f"<text x='4' y='{height - pad}' font-size='11'>{lo:.3g}</text>"
                   f"<text x='{width / 2}' y='{height - 8}' font-size='11' text-anchor='middle'>step</text></svg>")
        return "".join(out)

    losses = [(name, values, colors[name]) for name, values in series.items()]
    lo = min(min(v) for _, v, _ in losses)
    hi = max(max(v) for _, v, _ in losses)
    ref = series["PyTorch 1.13 fp64 (reference)"]
    rel = lambda xs: [max(abs(a - b) / max(abs(b), 1e-12), 1e-10) for a, b in zip(xs, ref)]
    diffs = [("OpenGE fp32", rel(series["OpenGE fp32"]), colors["OpenGE fp32"]),
             ("PyTorch 1.13 fp32", rel(series["PyTorch 1.13 fp32"]), colors["PyTorch 1.13 fp32"])]
    dlo = min(min(v) for _, v, _ in diffs)
    dhi = max(max(v) for _, v, _ in diffs)
    legend = ", ".join(f"<span style='color:{c}'>{n}</span>" for n, _, c in losses)
    with open(path, "w") as f:
        f.write(f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{model}: OpenGE vs PyTorch</title></head>"
                f"<body style='font-family:sans-serif'><h1>{model}: training loss per step</h1>"
                f"<p>The same initial weights, batches (batch {batch}) and optimizer (SGD, momentum 0.9), "
                f"{threads} thread(s), {len(ref)} steps: {legend}.</p>"
                + panel(losses, lo, hi, False, "loss")
                + panel(diffs, dlo, dhi, True, "relative difference to PyTorch fp64 (log scale; dashed: 1e-3 and step 20)")
                + "</body></html>")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="resnet18")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="bench/train", help="the loss CSV and HTML plot go here")
    parser.add_argument("--work", help="the exported ONNX model and weights go here (default: --out)")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    parser.add_argument("--option", action="append", help="KEY=VALUE: an OpenGE option for openge.Trainer")
    parser.add_argument("--engine", choices=["pytorch", "pytorch64", "openge"], help=argparse.SUPPRESS)
    parser.add_argument("--onnx", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.engine:
        return worker(args)
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work or args.out, exist_ok=True)
    args.onnx = os.path.join(args.work or args.out, f"{args.model}.onnx")
    export(args.model, args.onnx, args.batch, args.seed)
    results = {}
    for engine in ["pytorch", "pytorch64", "openge"]:
        cmd = [sys.executable, __file__, "--engine", engine, "--onnx", args.onnx] + \
              [f"--{k}={getattr(args, k)}" for k in ["model", "steps", "batch", "threads", "lr", "seed", "clock"]] + \
              [f"--option={o}" for o in (args.option or [])]
        done = subprocess.run(cmd, stdout=subprocess.PIPE, check=True, text=True)
        results[engine] = json.loads(done.stdout)
    pt, og, ref = results["pytorch"]["losses"], results["openge"]["losses"], results["pytorch64"]["losses"]
    relative = lambda xs, ys: [abs(a - b) / max(abs(b), 1e-12) for a, b in zip(xs, ys)]
    rel, rel_og64, rel_pt64 = relative(og, pt), relative(og, ref), relative(pt, ref)
    with open(os.path.join(args.out, f"{args.model}_losses.csv"), "w") as f:
        f.write("step,pytorch_fp32,pytorch_fp64,openge,openge_vs_pytorch_fp32,openge_vs_fp64,pytorch_fp32_vs_fp64\n")
        for i in range(len(pt)):
            f.write(f"{i + 1},{pt[i]:.9g},{ref[i]:.9g},{og[i]:.9g},{rel[i]:.3g},{rel_og64[i]:.3g},{rel_pt64[i]:.3g}\n")
    write_plot(os.path.join(args.out, f"{args.model}_losses.html"), args.model,
               {"PyTorch 1.13 fp32": pt, "PyTorch 1.13 fp64 (reference)": ref, "OpenGE fp32": og}, args.threads,
               args.batch)
    skip = min(3, args.steps - 1)
    t_pt = float(np.median(results["pytorch"]["times"][skip:])) * 1000
    t_og = float(np.median(results["openge"]["times"][skip:])) * 1000
    print(f"{args.model} batch {args.batch}, {args.threads} thread(s), {args.steps} steps, SGD momentum lr {args.lr}")
    print(f"  max relative loss difference, steps 1-20: OpenGE vs PyTorch fp32 {max(rel[:20]):.2e}, "
          f"OpenGE vs PyTorch fp64 {max(rel_og64[:20]):.2e}, PyTorch fp32 vs fp64 {max(rel_pt64[:20]):.2e}")
    print(f"  all steps: OpenGE vs fp32 {max(rel):.2e}, OpenGE vs fp64 {max(rel_og64):.2e}, fp32 vs fp64 {max(rel_pt64):.2e}")
    print(f"  last loss: PyTorch fp32 {pt[-1]:.5f}, PyTorch fp64 {ref[-1]:.5f}, OpenGE {og[-1]:.5f}")
    tail = max(1, min(20, args.steps // 10))
    mean = lambda xs: sum(xs[-tail:]) / tail
    print(f"  mean loss of the last {tail} steps: PyTorch fp32 {mean(pt):.5f}, PyTorch fp64 {mean(ref):.5f}, "
          f"OpenGE {mean(og):.5f}")
    print(f"  median step ({args.clock} clock): PyTorch {t_pt:.1f} ms, OpenGE {t_og:.1f} ms, ratio {t_og / t_pt:.2f}")
    print(f"  peak RSS: PyTorch {results['pytorch']['peak_rss_mib']:.0f} MiB, OpenGE {results['openge']['peak_rss_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
