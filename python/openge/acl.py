"""``openge.acl_init("acl.json")``: CANN's aclInit configuration file, taken as it is.

Its "dump" section turns Data Dump on (overflow detection with ``"dump_debug": "on"``) and its
"profiler" section (``"switch": "on"``) turns profiling on, for every :class:`openge.Session`
created afterwards with the process-wide ``npu.global_options()``. Profiling data goes to the
profiler's "output" > ASCEND_WORK_PATH/profiling_data > the application's folder: the folder of
the script Python runs (the interactive interpreter: the working folder).
"""
from __future__ import annotations

import os
import sys
import warnings
from typing import List, Optional, Tuple, Union

from . import _openge
from ._errors import OptionWarning
from .npu import _typed, global_options

__all__ = ["acl_init", "application_folder"]


def application_folder() -> str:
    """The application's folder for a Python program: its script's, else the working folder."""
    script = sys.argv[0] if sys.argv else ""
    if script and os.path.isfile(script):
        return os.path.dirname(os.path.abspath(script))
    return os.getcwd()


def acl_init(config_path: Union[str, "os.PathLike[str]"], executable_dir: Optional[str] = None) -> Tuple[str, List[str]]:
    """Reads acl.json and applies it to ``npu.global_options()``.

    Returns (the profiling folder, "" when the profiler is off; the notes on keys with no CPU
    meaning, each also issued as an OptionWarning). Raises OptionError naming the file and key for a malformed file; nothing is applied then.
    """
    assignments, notes, folder, _rule = _openge.read_acl_json(
        os.fspath(config_path), executable_dir if executable_dir is not None else application_folder())
    options = global_options()
    staged = options.copy()
    for name, text, _origin in assignments:
        staged._set(name, _typed(name, text))
    for name, text, _origin in assignments:
        options._set(name, _typed(name, text))
    for note in notes:
        warnings.warn(note, OptionWarning, stacklevel=2)
    return folder, list(notes)
