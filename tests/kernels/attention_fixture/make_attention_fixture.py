#!/usr/bin/python3
"""Writes the inputs and expected outputs of fused_attention_precision_test.cpp, computed here
with NumPy (independently of OpenGE):

  S = MatMul(q, kt) * 0.125 + mask;  P = Softmax(S, last axis);  y = MatMul(P, v)
  q [2, 3, 16, 8], kt [2, 3, 8, 12], v [2, 3, 12, 8], mask [1, 1, 16, 12] (a constant of the model)

For each compute dtype the precision modes may give FusedAttention (float32, bfloat16, float16)
the expected output is what one attention computed at full precision on the operands rounded to
that dtype gives, rounded once to that dtype:
  y_<dt> = round_dt(attention_float64(round_dt(q), round_dt(kt), round_dt(v), round_dt(mask)))
NumPy has no bfloat16: round_bf16 is round-to-nearest-even on the float32 bits.

Run with Debian's python: /usr/bin/python3 tests/kernels/attention_fixture/make_attention_fixture.py
(deterministic; writes attention.*.npy next to this script).
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261202)


def round_bf16(x):
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def round_fp16(x):
    return np.asarray(x, dtype=np.float32).astype(np.float16).astype(np.float32)


def round_fp32(x):
    return np.asarray(x, dtype=np.float32)


def attention(q, kt, v, mask):
    s = np.matmul(q.astype(np.float64), kt.astype(np.float64)) * 0.125 + mask.astype(np.float64)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    return np.matmul(p, v.astype(np.float64))


def main():
    q = rng.standard_normal((2, 3, 16, 8)).astype(np.float32) * 2
    kt = rng.standard_normal((2, 3, 8, 12)).astype(np.float32) * 2
    v = rng.standard_normal((2, 3, 12, 8)).astype(np.float32)
    mask = rng.uniform(-3.0, 0.0, (1, 1, 16, 12)).astype(np.float32)
    for name, t in (("q", q), ("kt", kt), ("v", v), ("mask", mask)):
        np.save(os.path.join(HERE, f"attention.{name}.npy"), t)
    for dt, rnd in (("fp32", round_fp32), ("bf16", round_bf16), ("fp16", round_fp16)):
        y = rnd(attention(rnd(q), rnd(kt), rnd(v), rnd(mask)))
        np.save(os.path.join(HERE, f"attention.y_{dt}.npy"), y.astype(np.float32))


if __name__ == "__main__":
    main()
