#!/usr/bin/env python3
"""Checks every #include under include/openge/, src/, tools/ and python/src/ against the layer table.

The table is the one in docs/ARCHITECTURE.md under "## Layers" (its rows are read, nothing else):
a folder may include its own headers and those of folders in lower layers, never a folder of its
own layer or a higher one. Rows marked "public API only" may include nothing but include/openge.
Includes in <angle brackets> are third-party or system headers and are not checked.

Usage: scripts/check_layers.py [--root DIR]   (exit 0: clean; 1: violations, each printed)
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_SUFFIXES = ('.h', '.hpp', '.cpp', '.cc', '.in')
CHECKED_ROOTS = ('include/openge', 'src', 'tools', 'python/src')


def read_table(architecture_md):
    """{folder: (layer, public_only)} from the rows of the "## Layers" section."""
    folders = {}
    in_section = False
    with open(architecture_md, encoding='utf-8') as f:
        for line in f:
            if line.startswith('## '):
                in_section = line.strip() == '## Layers'
                continue
            if not in_section or not line.startswith('|'):
                continue
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if len(cells) < 3 or not cells[0].isdigit():
                continue  # header or separator row
            layer = int(cells[0])
            public_only = 'public API only' in cells[2]
            for name in re.findall(r'`([^`]+)`', cells[1]):
                folders[name.rstrip('/')] = (layer, public_only)
    if not folders:
        sys.exit(f'{architecture_md}: no "## Layers" table found')
    return folders


def folder_of_file(path):
    """The table's folder for a file under a checked root: include/openge, src/X, tools, python/src."""
    parts = path.split('/')
    if parts[0] == 'include':
        return 'include/openge'
    if parts[0] == 'src':
        return parts[1] if len(parts) > 2 else None
    if parts[0] == 'python':
        return 'python/src'
    return parts[0]


def folder_of_include(target, including_folder, folders):
    """The table's folder an include names: openge/x.h is include/openge; src/X/... and X/... name
    folder X; a bare file name is a file beside the including one."""
    if target.startswith('openge/'):
        return 'include/openge'
    if target.startswith('src/'):
        target = target[len('src/'):]
    head = target.split('/')[0]
    if '/' not in target:
        return including_folder
    return head if head in folders else '?' + head


def check(root):
    folders = read_table(os.path.join(root, 'docs', 'ARCHITECTURE.md'))
    problems = []
    for checked in CHECKED_ROOTS:
        for dirpath, _, files in os.walk(os.path.join(root, checked)):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root).replace(os.sep, '/')
                here = folder_of_file(rel)
                if here not in folders:
                    problems.append(f'{rel}: folder {here!r} is not in the layer table of docs/ARCHITECTURE.md')
                    continue
                layer, public_only = folders[here]
                with open(full, encoding='utf-8', errors='replace') as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = folder_of_include(m.group(1), here, folders)
                        if target == here:
                            continue
                        where = f'{rel}:{number}: #include "{m.group(1)}"'
                        if target.startswith('?'):
                            problems.append(f'{where}: folder {target[1:]!r} is not in the layer table')
                        elif public_only and target != 'include/openge':
                            problems.append(f'{where}: {here} may include only the public API (include/openge)')
                        elif folders[target][0] >= layer:
                            problems.append(f'{where}: {here} (layer {layer}) may not include {target} '
                                            f'(layer {folders[target][0]}); see "Layers" in docs/ARCHITECTURE.md')
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    args = parser.parse_args()
    problems = check(os.path.abspath(args.root))
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} include(s) break the layer table', file=sys.stderr)
        return 1
    print('layer check: every include follows the table in docs/ARCHITECTURE.md')
    return 0


if __name__ == '__main__':
    sys.exit(main())
