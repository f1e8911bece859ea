#!/usr/bin/env python3
"""Code and its comments say why, not which ticket: no issue numbers in the sources.

Reads every file under src/, tools/, include/, python/, tests/, scripts/ and bench/ (code only:
.cpp .h .py .js .cmake .in) and fails, naming file and line, on a reference to an issue number
(the word issue followed by a number). Tickets move and close; the comment should carry the reason itself.
"""
import argparse
import os
import re
import sys

FOLDERS = ["src", "tools", "include", "python", "tests", "scripts", "bench"]
SUFFIXES = (".cpp", ".h", ".py", ".js", ".cmake", ".in")
PATTERN = re.compile(r"\b[Ii]ssues? ?#?\d+")


def check(root):
    problems = []
    for folder in FOLDERS:
        for base, dirs, files in os.walk(os.path.join(root, folder)):
            dirs[:] = [d for d in dirs if d not in ("data", "__pycache__")]
            for name in sorted(files):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(base, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        if PATTERN.search(line):
                            problems.append(f"{os.path.relpath(path, root)}:{number}: names an issue number: "
                                            f"{line.strip()[:100]}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = parser.parse_args()
    problems = check(args.root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} references to issue numbers: say the reason in the comment instead")
        return 1
    print("comment check: no issue numbers in the sources")
    return 0


if __name__ == "__main__":
    sys.exit(main())
