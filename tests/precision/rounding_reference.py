#!/usr/bin/python3
"""Writes tests/precision/rounding_reference.txt: NumPy's fp32 -> fp16 / bf16 rounding and fp16 ->
fp32 widening, as digests that rounding_test.cpp recomputes from include/openge/half.h.

Run with Debian's python (NumPy 1.24): /usr/bin/python3 tests/precision/rounding_reference.py
  --dump fp16|bf16 BLOCK   prints the reference results of one block (to find a mismatch).

The fp32 inputs (2^23 of them, index k):
  k < 2^22 (exhaustive subset): every sign and exponent (all 512: zeros, fp32 subnormals, inf,
    NaN and each normal exponent), every value of mantissa bits 13..22 (all 1024), and the
    mantissa's low 13 bits from {0, 1, 0x800, 0xfff, 0x1000, 0x1001, 0x1800, 0x1fff}:
    pattern = (k >> 13) << 23 | ((k >> 3) & 1023) << 13 | LOW[k & 7]. Rounding to fp16 drops
    mantissa bits 0..12 for normal results and more for subnormal ones, to bf16 bits 0..15; the
    kept bits, the guard bit and whether any lower bit is set are all enumerated, so every
    rounding case (below/at/above half, tie to even or odd, carry into the exponent, overflow to
    inf, fp16 subnormals and underflow to zero) occurs for every exponent.
  k >= 2^22 (dense sampling): pattern = low 32 bits of splitmix64(k).
Results are compared as 16-bit patterns; a NaN result counts as sign | 0x7e00 (fp16) or
sign | 0x7fc0 (bf16): NaN-ness and sign must match, payloads may differ (NumPy keeps the
payload's top bits, OpenGE returns the quiet NaN). fp16 -> fp32 covers all 65536 patterns, bit
for bit, NaN payloads included.

fp16 reference: NumPy's float32 -> float16 cast. bf16 reference (NumPy has no bfloat16): the two
bf16 neighbours of x, compared by distance in float64 (exact for these values), ties to the
even one; overflow to inf when x is at or beyond max + half an ulp.

Digest of a block of 2^16 inputs: sum over k of w(k) * (result_k + 1) mod 2^64 with
w(k) = splitmix64(k + 2^32) | 1; any single wrong result changes it.
"""
import sys

import numpy as np

M64 = np.uint64
COUNT = 1 << 23
EXHAUSTIVE = 1 << 22
BLOCK = 1 << 16
LOW = np.array([0x0000, 0x0001, 0x0800, 0x0FFF, 0x1000, 0x1001, 0x1800, 0x1FFF], dtype=np.uint32)


def splitmix64(x):
    z = (x + M64(0x9E3779B97F4A7C15)).astype(np.uint64)
    z = (z ^ (z >> M64(30))) * M64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> M64(27))) * M64(0x94D049BB133111EB)
    return z ^ (z >> M64(31))


def inputs(begin, end):
    k = np.arange(begin, end, dtype=np.uint64)
    structured = ((k >> M64(13)) << M64(23)) | (((k >> M64(3)) & M64(1023)) << M64(13)) | LOW[(k & M64(7)).astype(np.int64)].astype(np.uint64)
    dense = splitmix64(k) & M64(0xFFFFFFFF)
    return np.where(k < M64(EXHAUSTIVE), structured, dense).astype(np.uint32)


def digest(first_index, results):
    k = np.arange(first_index, first_index + len(results), dtype=np.uint64)
    w = splitmix64(k + M64(1 << 32)) | M64(1)
    with np.errstate(over="ignore"):
        return int(np.sum(w * (results.astype(np.uint64) + M64(1)), dtype=np.uint64))


def canonical_nan(r, quiet):
    r = r.astype(np.uint32)
    exp_mask = 0x7C00 if quiet == 0x7E00 else 0x7F80
    nan = ((r & exp_mask) == exp_mask) & ((r & (0x7FFF ^ exp_mask)) != 0)
    return np.where(nan, (r & 0x8000) | quiet, r).astype(np.uint16)


def to_fp16(bits):
    with np.errstate(all="ignore"):
        return canonical_nan(bits.view(np.float32).astype(np.float16).view(np.uint16), 0x7E00)


def to_bf16(bits):
    with np.errstate(all="ignore"):  # inf and NaN inputs take the `special` branch below
        return bf16_of(bits)


def bf16_of(bits):
    sign = (bits >> 16) & 0x8000
    mag = bits & 0x7FFFFFFF
    exp = (mag >> 23).astype(np.int64)
    lo = mag & 0xFFFF0000  # the neighbour toward zero, as a bit pattern
    x = mag.view(np.float32).astype(np.float64)
    lo_val = lo.view(np.float32).astype(np.float64)
    # One bf16 ulp at this exponent (fp32 subnormals share exponent 1's ulp).
    ulp = np.ldexp(1.0, np.maximum(exp, 1) - 127 - 7)
    below, above = x - lo_val, lo_val + ulp - x
    up = (above < below) | ((above == below) & (((lo >> 16) & 1) == 1))
    r = (lo >> 16) + up.astype(np.uint32)  # carries into the exponent; 0x7f80 = inf
    special = exp == 255
    r = np.where(special, mag >> 16, r)
    nan = special & ((mag & 0x7FFFFF) != 0)
    r = np.where(nan, 0x7FC0, r)
    return (r | sign).astype(np.uint16)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--dump":
        kind, block = sys.argv[2], int(sys.argv[3])
        bits = inputs(block * BLOCK, (block + 1) * BLOCK)
        out = to_fp16(bits) if kind == "fp16" else to_bf16(bits)
        for b, r in zip(bits, out):
            print("%08x %04x" % (b, r))
        return
    lines = ["# fp32->fp16/bf16 rounding and fp16->fp32 reference digests computed by NumPy %s" % np.__version__,
             "# written by tests/precision/rounding_reference.py (see it for the inputs and the digest)"]
    for block in range(COUNT // BLOCK):
        bits = inputs(block * BLOCK, (block + 1) * BLOCK)
        lines.append("fp16 %d %016x" % (block, digest(block * BLOCK, to_fp16(bits))))
        lines.append("bf16 %d %016x" % (block, digest(block * BLOCK, to_bf16(bits))))
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    widened = halves.view(np.float16).astype(np.float32).view(np.uint32)
    for block in range(64):
        part = widened[block * 1024:(block + 1) * 1024]
        lines.append("fp16_to_fp32 %d %016x" % (block, digest(block * 1024, part)))
    with open(__file__.replace(".py", ".txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
