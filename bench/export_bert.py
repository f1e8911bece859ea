#!/usr/bin/python3
"""Exports a BERT-style encoder to ONNX for the int8 transformer benchmark: torch.nn's
TransformerEncoder (post-LN, GELU, dropout 0), batch 1, float input [1, SEQ, HIDDEN] (no
embedding), opset 13, random weights (seed 0, every parameter drawn independently as in
BERT-base's initialisation: N(0, 0.02), LayerNorm gains 1 + N(0, 0.02)). Writes OUT.onnx,
OUT.input.npy (a standard normal input, seed 0) and OUT.torch_out.npy.

Usage: /usr/bin/python3 bench/export_bert.py OUT [--layers 4] [--hidden 768] [--heads 12] [--seq 128]
(BERT-base is --layers 12; the FFN is 4 x hidden.)
"""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn


def build(layers, hidden, heads, seq):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d_model=hidden, nhead=heads, dim_feedforward=4 * hidden, dropout=0.0,
                                       activation="gelu", batch_first=True, norm_first=False, layer_norm_eps=1e-12)
    model = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)
    for name, p in model.named_parameters():
        with torch.no_grad():
            if p.dim() > 1:
                nn.init.normal_(p, 0.0, 0.02)
            elif "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.02 * torch.randn_like(p))
            else:
                nn.init.normal_(p, 0.0, 0.02)
    model.eval()
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((1, seq, hidden)).astype(np.float32))
    return model, x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", help="output path without extension")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--seq", type=int, default=128)
    args = ap.parse_args()
    model, x = build(args.layers, args.hidden, args.heads, args.seq)
    with torch.inference_mode():
        y = model(x)
    path = args.out + ".onnx"
    torch.onnx.export(model, (x,), path, opset_version=13, input_names=["input"], output_names=["output"],
                      do_constant_folding=True)
    np.save(args.out + ".input.npy", x.numpy())
    np.save(args.out + ".torch_out.npy", y.numpy())
    print(json.dumps({"model": path, "bytes": os.path.getsize(path), "layers": args.layers, "hidden": args.hidden,
                      "heads": args.heads, "seq": args.seq}))


if __name__ == "__main__":
    main()
