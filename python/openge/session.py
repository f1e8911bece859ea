"""openge.Session: run an ONNX model on NumPy arrays (onnxruntime's InferenceSession calls)."""
from __future__ import annotations

import contextlib
import os
import warnings
from typing import Any, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy

from . import _openge
from ._errors import OptionWarning
from .npu import NpuOptions, check_assignments, global_options

__all__ = ["Session", "TensorInfo"]


class TensorInfo(NamedTuple):
    """A model input or output.

    name: the ONNX name. dtype: the engine's type name ("float32", "float16", "bfloat16",
    "int64", "bool", ...); type: onnxruntime's string for it ("tensor(float)"). numpy_dtype: the NumPy dtype of its arrays (uint16 for bfloat16,
    whose arrays hold the bits). shape: one entry per dimension, None where it is fixed
    only at run time.
    """

    name: str
    dtype: str
    numpy_dtype: Optional[numpy.dtype]
    shape: Tuple[Optional[int], ...]

    @property
    def type(self) -> str:
        """onnxruntime's type string: 'tensor(float)', 'tensor(int64)', 'tensor(float16)', ..."""
        return f"tensor({_ORT_ELEMENT_TYPES.get(self.dtype, self.dtype)})"


# The engine's dtype names as onnxruntime writes them inside 'tensor(...)'.
_ORT_ELEMENT_TYPES = {"float32": "float", "float64": "double"}


ModelSource = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
OptionsArg = Union[None, NpuOptions, Mapping[str, Any]]


def _assignments(options: OptionsArg) -> List[Tuple[str, str, str]]:
    if options is None:
        return global_options().assignments()
    if isinstance(options, NpuOptions):
        return options.assignments()
    if isinstance(options, Mapping):
        return check_assignments(dict(options), "Session(options=...)")
    raise TypeError(f"options must be None, an NpuOptions or a dict of dotted names, got {type(options).__name__}")


class Session(_openge.Session):
    """An ONNX model ready to run.

    Session(model, options=None, threads=None, options_files=())

    model: a path (str or os.PathLike) or the serialized model (bytes, bytearray, memoryview).
    options: None for ``npu.global_options()`` as it is now, an ``NpuOptions``, or a dict of
    dotted names (``{"precision_mode": "force_fp32", "dump_config.enable_dump": True}``).
    The configuration is taken when the Session is created; later assignments do not change it.
    threads: threads for parallel operators (None or 0: one per core).
    options_files: files of JSON or ``npu.global_options().NAME = VALUE`` lines, as the CLI's
    --options-file (assignments in ``options`` win over them).

    The environment (ASCEND_WORK_PATH, PROFILING_MODE, PROFILING_OPTIONS, ASCEND_DEVICE_ID, ...)
    applies as in the CLI, below files and assignments. Raises OptionError listing every
    problem of the configuration, ModelError when the model cannot be loaded. Configuration
    warnings are issued as ``openge.OptionWarning``.

    ``run`` may be called from several threads at once; it releases the GIL while the model runs.
    """

    def __init__(self, model: ModelSource, options: OptionsArg = None, threads: Optional[int] = None,
                 options_files: Sequence[Union[str, "os.PathLike[str]"]] = ()) -> None:
        if isinstance(model, memoryview):
            model = model.tobytes()
        super().__init__(model, _assignments(options), [os.fspath(f) for f in options_files], threads)
        for message in self.option_warnings:
            warnings.warn(message, OptionWarning, stacklevel=2)
        self._input_infos = [TensorInfo(*t) for t in self._inputs()]
        self._output_infos = [TensorInfo(*t) for t in self._outputs()]

    @property
    def inputs(self) -> List[TensorInfo]:
        """The model's inputs in order: [TensorInfo(name, dtype, numpy_dtype, shape)]."""
        return list(self._input_infos)

    @property
    def outputs(self) -> List[TensorInfo]:
        """The model's outputs in order: [TensorInfo(name, dtype, numpy_dtype, shape)]."""
        return list(self._output_infos)

    def get_inputs(self) -> List[TensorInfo]:
        """onnxruntime's name for :attr:`inputs`."""
        return self.inputs

    def get_outputs(self) -> List[TensorInfo]:
        """onnxruntime's name for :attr:`outputs`."""
        return self.outputs

    @contextlib.contextmanager
    def range(self, message: str) -> Iterator[None]:
        """``with session.range("step"):`` an msproftx range around the block (profiling_options
        "msproftx": "on"; no-op otherwise), closed also when the block raises."""
        self.range_push(message)
        try:
            yield
        finally:
            self.range_pop()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.finish_profiling()

    def __repr__(self) -> str:
        def fmt(infos: List[TensorInfo]) -> str:
            return ", ".join(f"{t.name}: {t.dtype}{list(t.shape)}" for t in infos)
        if not hasattr(self, "_output_infos"):
            return "openge.Session(<not opened>)"
        return f"openge.Session(inputs=[{fmt(self._input_infos)}], outputs=[{fmt(self._output_infos)}])"
