"""openge.compile: ATC-style offline compile of an ONNX model into a .oge that openge.Session
(and ``openge run --model M.oge``) loads without rewriting it again."""
from __future__ import annotations

import os
import warnings
from typing import Dict, Mapping, Optional, Sequence, Union

from . import _openge
from ._errors import OptionWarning
from .session import OptionsArg, _assignments

__all__ = ["compile"]


def compile(model: Union[str, "os.PathLike[str]"], output: Union[str, "os.PathLike[str]"],
            options: OptionsArg = None, input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
            threads: Optional[int] = None, options_files: Sequence[Union[str, "os.PathLike[str]"]] = ()) -> Dict[str, str]:
    """Compiles ``model`` (an .onnx path) into ``output`` (.oge), written atomically.

    options, threads, options_files: as for ``Session``; the options that shape the graph
    (precision_mode, ...) are compiled in and recorded. input_shapes: {input name: shape} for
    inputs whose shape the model leaves open. Returns the recorded options {name: value}.
    Raises OptionError for bad options or shapes, ModelError when the model cannot be compiled.
    """
    shapes = {name: [int(d) for d in shape] for name, shape in (input_shapes or {}).items()}
    result = _openge.compile(os.fspath(model), os.fspath(output), _assignments(options),
                             [os.fspath(f) for f in options_files], shapes, threads)
    for message in result["warnings"]:
        warnings.warn(message, OptionWarning, stacklevel=2)
    return dict(result["options"])
