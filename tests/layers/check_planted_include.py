#!/usr/bin/env python3
"""The layer check must be able to fail: in a copy of the tree, a header low in the table that
includes one above it, a folder missing from the table, a CLI or binding file that reaches into
src/ and a public header that includes an engine header must each be reported, by file and line,
with a non-zero exit; the untouched copy must pass."""
import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(sys.argv[1])
checker = os.path.join(root, 'scripts', 'check_layers.py')


def run(tree):
    return subprocess.run([sys.executable, checker, '--root', tree], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    for part in ('include', 'src', 'tools', 'python/src', 'docs'):
        shutil.copytree(os.path.join(root, part), os.path.join(tmp, part))
    clean = run(tmp)
    assert clean.returncode == 0, 'the unmodified copy fails:\n' + clean.stdout + clean.stderr

    planted = os.path.join(tmp, 'src', 'base', 'planted_upward.h')
    with open(planted, 'w') as f:
        f.write('#pragma once\n// base must not know the runtime\n#include "runtime/executable.h"\n')
    upward = run(tmp)
    assert upward.returncode == 1, 'an upward include passed:\n' + upward.stdout
    assert 'src/base/planted_upward.h:3' in upward.stdout and 'runtime' in upward.stdout, upward.stdout
    os.remove(planted)

    # Two folders of one layer may not include each other either.
    sibling = os.path.join(tmp, 'src', 'dump', 'planted_sibling.cpp')
    with open(sibling, 'w') as f:
        f.write('#include "profiling/profiler.h"\n')
    same_layer = run(tmp)
    assert same_layer.returncode == 1 and 'src/dump/planted_sibling.cpp:1' in same_layer.stdout, same_layer.stdout
    os.remove(sibling)

    # A folder missing from the table is refused rather than let through.
    os.makedirs(os.path.join(tmp, 'src', 'unlisted'))
    with open(os.path.join(tmp, 'src', 'unlisted', 'x.cpp'), 'w') as f:
        f.write('#include "base/guard.h"\n')
    unlisted = run(tmp)
    assert unlisted.returncode == 1 and "folder 'unlisted' is not in the layer table" in unlisted.stdout, unlisted.stdout
    shutil.rmtree(os.path.join(tmp, 'src', 'unlisted'))

    # The CLI, the Python binding and the public headers see the public API only.
    for planted, include in (('tools/planted_internal.cpp', 'options/option_set.h'),
                             ('python/src/planted_internal.cpp', 'paths/artifact_paths.h'),
                             ('include/openge/planted_internal.h', 'base/guard.h')):
        path = os.path.join(tmp, planted)
        with open(path, 'w') as f:
            f.write('#include "openge/status.h"\n#include "%s"\n' % include)
        reached = run(tmp)
        assert reached.returncode == 1 and planted + ':2' in reached.stdout, reached.stdout
        assert 'may include only the public API' in reached.stdout, reached.stdout
        os.remove(path)
    assert run(tmp).returncode == 0, 'the copy fails after the planted files were removed'
print('the layer check fails on each planted include and passes without them')
