#!/usr/bin/env python3
"""scripts/check_format.py fails on a badly formatted file: a copy of src/base/guard.h with its
indentation broken, in a scratch tree with the project's .clang-format, must be reported by name."""
import os
import shutil
import subprocess
import sys
import tempfile

root = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "src", "base"))
    shutil.copy(os.path.join(root, ".clang-format"), tmp)
    os.makedirs(os.path.join(tmp, "scripts"))
    shutil.copy(os.path.join(root, "scripts", "check_format.py"), os.path.join(tmp, "scripts"))
    planted = os.path.join(tmp, "src", "base", "guard.h")
    with open(os.path.join(root, "src", "base", "guard.h")) as src:
        text = src.read()
    with open(planted, "w") as dst:
        dst.write(text + "namespace openge {\n        int   badly_indented ( ) ;\n}\n")
    check = [sys.executable, os.path.join(tmp, "scripts", "check_format.py"), "--root", tmp]
    done = subprocess.run(check, capture_output=True, text=True)
    assert done.returncode == 1, f"the check passed a misformatted file:\n{done.stdout}{done.stderr}"
    assert "src/base/guard.h: not formatted" in done.stdout, done.stdout
    # The control: the untouched file passes, so the failure above is the planted text's.
    with open(planted, "w") as dst:
        dst.write(text)
    done = subprocess.run(check, capture_output=True, text=True)
    assert done.returncode == 0, f"the untouched file failed the check:\n{done.stdout}{done.stderr}"
    print("misformatted file caught; the untouched file passes")
