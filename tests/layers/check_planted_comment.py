#!/usr/bin/env python3
"""scripts/check_comments.py fails on a comment naming an issue number: planted in a copy of
src/base/guard.h in a scratch tree, it must be reported with its file and line."""
import os
import shutil
import subprocess
import sys
import tempfile

root = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "src", "base"))
    shutil.copy(os.path.join(root, "scripts", "check_comments.py"), tmp)
    planted = os.path.join(tmp, "src", "base", "guard.h")
    with open(os.path.join(root, "src", "base", "guard.h")) as src, open(planted, "w") as dst:
        dst.write(src.read() + "// see " + "issue" + " 21 for why\n")  # split: this file is checked too
    done = subprocess.run([sys.executable, os.path.join(tmp, "check_comments.py"), "--root", tmp],
                          capture_output=True, text=True)
    assert done.returncode == 1, f"the check passed a planted issue number:\n{done.stdout}"
    assert "src/base/guard.h:" in done.stdout and "names an issue number" in done.stdout, done.stdout
    print("planted issue number caught:", done.stdout.splitlines()[0])
