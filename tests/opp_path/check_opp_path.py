#!/usr/bin/python3
"""ASCEND_OPP_PATH and user-added SoC profiles, through the CLI.

A copy of the shipped opp/ gets one more profile, Ascend910B9: the Ascend910B data with Conv2D
taken off the mixed-precision white list (precision_reduce flag false: black list). Under
allow_mix_precision_bf16 the demo model's Conv nodes then compute in float32 with soc_version
Ascend910B9 and in bfloat16 with Ascend910B (page 002: black-list ops keep float32). Errors: an
added SoC without ASCEND_OPP_PATH, a folder that does not exist, and an opp folder without the
profile each fail with a message naming what to fix.

Usage: check_opp_path.py --openge BUILD/openge --opp SOURCE/opp --work DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

FAILURES = []
CONFIG = os.path.join("built-in", "op_impl", "ai_core", "tbe", "config")


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)


def explain(openge, soc, opp, cwd):
    env = dict(os.environ)
    env.pop("ASCEND_OPP_PATH", None)
    if opp is not None:
        env["ASCEND_OPP_PATH"] = opp
    cmd = [openge, "explain-precision", "--json", "--option", "soc_version=" + soc,
           "--option", "precision_mode=allow_mix_precision_bf16"]
    # Run inside the work folder: logs and check reports of the failing cases land there.
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def conv_dtypes(result):
    report = json.loads(result.stdout)
    return sorted({(n["input_dtype"], n["rule"]) for n in report["nodes"] if n["op_type"] in ("Conv", "FusedConv")})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--opp", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    args.openge = os.path.abspath(args.openge)
    opp = os.path.join(args.work, "opp")
    shutil.rmtree(args.work, ignore_errors=True)
    shutil.copytree(args.opp, opp)
    src_dir = os.path.join(opp, CONFIG, "ascend910b")
    dst_dir = os.path.join(opp, CONFIG, "ascend910b9")
    os.makedirs(dst_dir)
    with open(os.path.join(src_dir, "aic-ascend910b-ops-info.json")) as f:
        profile = json.load(f)
    assert profile["Conv2D"]["precision_reduce"]["flag"] == "true"
    profile["Conv2D"]["precision_reduce"]["flag"] = "false"
    with open(os.path.join(dst_dir, "aic-ascend910b9-ops-info.json"), "w") as f:
        json.dump(profile, f, indent=4)

    shipped = explain(args.openge, "Ascend910B", opp, args.work)
    check(shipped.returncode == 0, "soc_version=Ascend910B under ASCEND_OPP_PATH runs: " + shipped.stderr.strip())
    added = explain(args.openge, "Ascend910B9", opp, args.work)
    check(added.returncode == 0, "soc_version=Ascend910B9 (added under ASCEND_OPP_PATH) runs: " + added.stderr.strip())
    if shipped.returncode == 0 and added.returncode == 0:
        s, a = conv_dtypes(shipped), conv_dtypes(added)
        print("Ascend910B:", s)
        print("Ascend910B9:", a)
        check(s and all(d == "bfloat16" for d, _ in s), "Ascend910B: Conv computes in bfloat16 (white list)")
        check(a and all(d == "float32" for d, _ in a), "Ascend910B9: Conv keeps float32 (the added profile's black list)")
        check(all("black" in r for _, r in a), "Ascend910B9: the rule names the black list")

    no_env = explain(args.openge, "Ascend910B9", None, args.work)
    check(no_env.returncode != 0 and "ASCEND_OPP_PATH" in no_env.stderr and "soc_version" in no_env.stderr,
          "an added SoC without ASCEND_OPP_PATH is refused naming both: " + no_env.stderr.strip())
    missing = explain(args.openge, "Ascend910B", os.path.join(args.work, "no_such_opp"), args.work)
    check(missing.returncode != 0 and "ASCEND_OPP_PATH" in missing.stderr,
          "a missing ASCEND_OPP_PATH folder is refused naming it: " + missing.stderr.strip())
    unknown = explain(args.openge, "Ascend910B7", opp, args.work)
    check(unknown.returncode != 0 and "ascend910b9" in unknown.stderr.lower() and "Ascend910B7" in unknown.stderr,
          "a SoC with no profile under ASCEND_OPP_PATH is refused listing the profiles there: " + unknown.stderr.strip())
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
