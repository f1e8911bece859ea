"""Runs one model through `openge run` and through openge.Session in this process, on the same
input, and checks the outputs are the same bytes ("ResNet-50 and BERT-base run from
Python with outputs identical to the CLI's"). For models too large for the test suite, such as
BERT-base from ../shared/bench/export_models.py; ResNet-50 is covered by python/tests.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_cli_parity.py --openge build/openge \
        --model bert_float.onnx --input input=bert_float.input.npy [--reference torch_out.npy] [--threads 1]

Prints one JSON line; exits 1 when any output differs.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy

import openge


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openge", required=True, help="the openge CLI")
    ap.add_argument("--model", required=True)
    ap.add_argument("--input", action="append", required=True, help="NAME=FILE.npy (repeatable)")
    ap.add_argument("--reference", help="optional .npy of the first output from another runtime, for the max abs error")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    feed = {}
    for item in args.input:
        name, _, path = item.partition("=")
        feed[name] = numpy.load(path)

    with tempfile.TemporaryDirectory() as out:
        cmd = [args.openge, "run", "--model", args.model, "--outputs", out, "--threads", str(args.threads)]
        for item in args.input:
            cmd += ["--input", item]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        cli = [numpy.load(p) for p in sorted(pathlib.Path(out).glob("output_*.npy"), key=lambda p: int(p.stem[7:]))]

    session = openge.Session(args.model, threads=args.threads)
    py = session.run(None, feed)
    same = len(py) == len(cli) and all(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
                                       for a, b in zip(py, cli))
    result = {"model": pathlib.Path(args.model).name, "outputs": len(py), "identical_to_cli": same}
    if args.reference:
        result["max_abs_vs_reference"] = float(numpy.abs(py[0].astype(numpy.float64) - numpy.load(args.reference)).max())
    print(json.dumps(result))
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
