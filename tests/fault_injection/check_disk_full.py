#!/usr/bin/python3
"""A full disk for every artifact writer (docs/RELIABILITY.md, "Disk full"). A 64 MiB tmpfs is
mounted (root only: without root, or where mounting is refused, the script exits 77, which
ctest reports as Not Run), the writers of check_seeded_kills.py write onto it, and a filler
file leaves 0, 8, 64 or 512 KiB free. Each run must end with exit 0 or 1, never a signal; a
failure must say that the disk is full ("No space left" / "free some disk space"); no file under
a final name may be damaged and the writer, alive, must leave no temporary. With the filler
removed the same run must then succeed.

Usage: check_disk_full.py --openge BIN --demo M.onnx --work DIR
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_seeded_kills as kills  # noqa: E402  (the writers and their checks)

NOT_RUN = 77
FREE_KIB = [0, 8, 64, 512]
SIZE_KIB = 64 * 1024  # above the 20 MB profiling keeps free, so that a freed disk takes every writer


def fill(mount, free_kib):
    filler = os.path.join(mount, "filler")
    with open(filler, "wb") as f:
        while True:
            st = os.statvfs(mount)
            free = st.f_bavail * st.f_frsize
            chunk = free - free_kib * 1024
            if chunk <= 0:
                break
            try:
                f.write(b"\0" * min(chunk, 1 << 20))
                f.flush()
            except OSError:
                break
    return filler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openge", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("not run: mounting a small tmpfs needs root")
        sys.exit(NOT_RUN)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    mount = os.path.join(args.work, "small_disk")
    os.makedirs(mount)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk" % SIZE_KIB, "tmpfs", mount], capture_output=True,
                       text=True)
    if r.returncode != 0:
        print("not run: cannot mount a tmpfs here: " + r.stderr.strip())
        sys.exit(NOT_RUN)
    failures, runs, failed_runs = [], 0, 0
    try:
        kills.make_models(args.work)
        for name, cls in sorted(kills.WRITERS.items()):
            for free in FREE_KIB:
                work = os.path.join(mount, "%s_%d" % (name, free))
                os.makedirs(work)
                # The models stay off the small disk; the artifacts go onto it.
                for f in ("mlp.onnx", "eltwise.onnx", "data"):
                    os.symlink(os.path.join(args.work, f), os.path.join(work, f))
                writer = cls(os.path.abspath(args.openge), os.path.abspath(args.demo), work)
                filler = fill(mount, free)
                r = writer.quiet(writer.command())
                runs += 1
                label = "%s with %d KiB free" % (name, free)
                if r.returncode not in (0, 1):
                    failures.append("%s: exit %d: %s" % (label, r.returncode, r.stderr.strip()[-300:]))
                if r.returncode == 1:
                    failed_runs += 1
                    if "No space left" not in r.stderr and "free some disk space" not in r.stderr:
                        failures.append("%s: the error does not say the disk is full: %s" % (label, r.stderr.strip()[-300:]))
                failures += ["%s: %s" % (label, p) for p in writer.damaged()]
                left = kills.temporaries(work)
                if left:
                    failures.append("%s: the writer left temporaries: %s" % (label, left[:3]))
                os.remove(filler)
                r = writer.quiet(writer.command())
                if r.returncode != 0:
                    failures.append("%s: the run after freeing the disk fails: %s" % (label, r.stderr.strip()[-300:]))
                failures += ["%s, then freed: %s" % (label, p) for p in writer.damaged()]
                shutil.rmtree(work, ignore_errors=True)
    finally:
        subprocess.run(["umount", mount])
    print("%d runs of %d writers on a full %d KiB tmpfs (%s KiB free): %d failed with an error, %d problems" % (
        runs, len(kills.WRITERS), SIZE_KIB, "/".join(map(str, FREE_KIB)), failed_runs, len(failures)))
    for f in failures:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
