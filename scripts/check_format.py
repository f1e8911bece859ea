#!/usr/bin/env python3
"""Checks that every C++ file of the project is formatted as .clang-format says.

Files: *.h, *.cpp, *.cc under src/, include/, tools/, python/src/, tests/, examples/ and bench/.
To fix what it reports: scripts/check_format.py --fix (runs clang-format -i on those files).

Usage: scripts/check_format.py [--root DIR] [--fix]   (exit 0: clean; 1: files to format, each printed)
"""
import argparse
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOTS = ('src', 'include', 'tools', 'python/src', 'tests', 'examples', 'bench')
SUFFIXES = ('.h', '.cpp', '.cc')


def cxx_files(root):
    found = []
    for top in ROOTS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d not in ('__pycache__',) and not d.startswith('build')]
            found += [os.path.join(folder, f) for f in files if f.endswith(SUFFIXES)]
    return sorted(found)


def clang_format():
    for name in ('clang-format-14', 'clang-format'):
        path = shutil.which(name)
        if path:
            return path
    sys.exit('clang-format is not installed: run scripts/setup.sh (Debian package clang-format)')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument('--fix', action='store_true', help='format the files in place')
    args = parser.parse_args()
    tool = clang_format()
    files = cxx_files(args.root)
    if args.fix:
        subprocess.run([tool, '-i', *files], check=True)
        print(f'formatted {len(files)} files')
        return 0

    def unformatted(path):
        done = subprocess.run([tool, '--dry-run', '--Werror', path], capture_output=True, text=True)
        return path if done.returncode != 0 else None

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        bad = [p for p in pool.map(unformatted, files) if p]
    for p in bad:
        print(f'{os.path.relpath(p, args.root)}: not formatted as .clang-format says '
              f'(run scripts/check_format.py --fix)')
    if not bad:
        print(f'{len(files)} C++ files formatted as .clang-format says')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
