"""The PyTorch route: a ``torch.nn.Module`` run by OpenGE, and a profiler in the form of
torch_npu's.

    import torch, openge.torch
    model = openge.torch.compile(torch_module, (torch.ones(1, 3, 32, 32),))
    y = model(torch.ones(1, 3, 32, 32))                 # torch tensors in, torch tensors out
    with openge.torch.profile(on_trace_ready=openge.torch.tensorboard_trace_handler("./log")) as prof:
        model(x)

The module is exported with ``torch.onnx.export`` into a temporary folder and run by an
:class:`openge.Session`. Where the profiler writes: the trace handler's folder >
ASCEND_WORK_PATH/profiling_data > the working folder. With a trace handler the collection is
parsed into ``<folder>/<worker>_<YYYYmmddHHMMSSmmm>_ascend_pt/`` (the PROF_ folder and
ASCEND_PROFILER_OUTPUT/ with kernel_details.csv, trace_view.json, op_statistic.csv and
report.html); without one the PROF_ folder is left as it was collected, unparsed, in the folder
the chain chose.
"""
from __future__ import annotations

import datetime
import json
import os
import shutil
import socket
import tempfile
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy
import torch

from . import _openge
from .session import Session

__all__ = ["compile", "OpenGEModule", "profile", "tensorboard_trace_handler", "TraceHandler"]

_active = threading.local()


def _profiler() -> Optional["profile"]:
    return getattr(_active, "profiler", None)


class OpenGEModule:
    """A torch.nn.Module exported to ONNX and run by OpenGE; call it as the module."""

    def __init__(self, module: torch.nn.Module, example_inputs: Sequence[torch.Tensor],
                 options: Optional[Dict[str, Any]] = None, opset_version: int = 13) -> None:
        if not isinstance(module, torch.nn.Module):
            raise TypeError(f"openge.torch.compile takes a torch.nn.Module, got {type(module).__name__}")
        example = tuple(example_inputs) if isinstance(example_inputs, (list, tuple)) else (example_inputs,)
        self.input_names = [f"input_{i}" for i in range(len(example))]
        module.eval()
        with tempfile.TemporaryDirectory(prefix="openge_torch_") as folder:
            path = os.path.join(folder, "module.onnx")
            with torch.no_grad():
                outputs = module(*example)
            count = len(outputs) if isinstance(outputs, (list, tuple)) else 1
            self.output_names = [f"output_{i}" for i in range(count)]
            torch.onnx.export(module, example, path, input_names=self.input_names, output_names=self.output_names,
                              opset_version=opset_version)
            with open(path, "rb") as f:
                self.onnx_model = f.read()
        self._tuple_output = isinstance(outputs, (list, tuple))
        # The module runs forward only (eval mode): online inference unless the caller says otherwise.
        self._options = {"graph_run_mode": 0, **dict(options or {})}
        self._session = Session(self.onnx_model, options=self._options)

    def __call__(self, *inputs: torch.Tensor) -> Union[torch.Tensor, Tuple[torch.Tensor, ...]]:
        if len(inputs) != len(self.input_names):
            raise TypeError(f"the module takes {len(self.input_names)} tensors, got {len(inputs)}")
        feed = {name: t.detach().cpu().contiguous().numpy() for name, t in zip(self.input_names, inputs)}
        prof = _profiler()
        session = prof._session_for(self) if prof is not None else self._session
        outputs = [torch.from_numpy(numpy.array(o, copy=True)) for o in session.run(None, feed)]
        return tuple(outputs) if self._tuple_output else outputs[0]


def compile(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor],
            options: Optional[Dict[str, Any]] = None, opset_version: int = 13) -> OpenGEModule:
    """Exports `module` with torch.onnx for `example_inputs` and returns it ready to run on OpenGE."""
    return OpenGEModule(module, example_inputs, options, opset_version)


class TraceHandler:
    """``tensorboard_trace_handler(dir_name)``: where a profile goes and how it is parsed."""

    def __init__(self, dir_name: Optional[str] = None, worker_name: Optional[str] = None) -> None:
        self.dir_name = os.fspath(dir_name) if dir_name is not None else None
        self.worker_name = worker_name or f"{socket.gethostname()}_{os.getpid()}"

    def __call__(self, prof: "profile") -> None:
        prof._parse(self.worker_name)


def tensorboard_trace_handler(dir_name: Optional[str] = None, worker_name: Optional[str] = None) -> TraceHandler:
    """torch_npu.profiler.tensorboard_trace_handler: the profile is parsed into `dir_name`
    (None: ASCEND_WORK_PATH/profiling_data, else the working folder)."""
    return TraceHandler(dir_name, worker_name)


class profile:
    """``with openge.torch.profile(on_trace_ready=tensorboard_trace_handler(dir)) as prof:`` profiles
    every OpenGEModule call inside the block (task_time and AI CPU records on)."""

    def __init__(self, on_trace_ready: Optional[Callable[["profile"], None]] = None,
                 profiling_options: Optional[Dict[str, str]] = None) -> None:
        self.on_trace_ready = on_trace_ready
        handler_dir = getattr(on_trace_ready, "dir_name", None) or ""
        self.output_folder, self.rule = _openge.trace_handler_folder(handler_dir)
        self._options = {"task_time": "on", "aicpu": "on", **(profiling_options or {})}
        self._sessions: Dict[int, Session] = {}
        self._collection_folder = ""
        self.collections: List[str] = []  # the PROF_ folders written
        self.trace_folder = ""  # with a trace handler: the parsed <worker>_<time>_ascend_pt folder

    def _session_for(self, module: OpenGEModule) -> Session:
        if id(module) not in self._sessions:
            options = dict(module._options)
            options["profiling_config.enable_profiling"] = True
            options["profiling_config.profiling_options"] = json.dumps({**self._options,
                                                                       "output": self._collection_folder})
            self._sessions[id(module)] = Session(module.onnx_model, options=options)
        return self._sessions[id(module)]

    def __enter__(self) -> "profile":
        os.makedirs(self.output_folder, exist_ok=True)
        if isinstance(self.on_trace_ready, TraceHandler):
            # Collected in a staging folder, parsed into <worker>_<time>_ascend_pt when the block ends.
            self._collection_folder = tempfile.mkdtemp(prefix=".openge_profile_", dir=self.output_folder)
        else:
            self._collection_folder = self.output_folder
        _active.profiler = self
        return self

    def __exit__(self, *exc: Any) -> None:
        _active.profiler = None
        for session in self._sessions.values():
            session.finish_profiling()
            if session.profiling_dir:
                self.collections.append(session.profiling_dir)
        self._sessions.clear()
        if isinstance(self.on_trace_ready, TraceHandler):
            try:
                self.on_trace_ready(self)
            finally:
                shutil.rmtree(self._collection_folder, ignore_errors=True)
        elif self.on_trace_ready is not None:
            self.on_trace_ready(self)  # a callable of the user's: the collections stay where they are

    def _parse(self, worker_name: str) -> None:
        stamp = datetime.datetime.now().strftime("%Y%m%d%H%M%S%f")[:-3]
        target = os.path.join(self.output_folder, f"{worker_name}_{stamp}_ascend_pt")
        staging = target + ".tmp"
        os.makedirs(os.path.join(staging, "ASCEND_PROFILER_OUTPUT"))
        moved = []
        for prof_dir in self.collections:
            dest = os.path.join(staging, os.path.basename(prof_dir))
            shutil.move(prof_dir, dest)
            moved.append(dest)
            exported = os.path.join(dest, "mindstudio_profiler_output")
            for name in sorted(os.listdir(exported)) if os.path.isdir(exported) else []:
                out = os.path.join(staging, "ASCEND_PROFILER_OUTPUT")
                if name.startswith("op_summary") and name.endswith(".csv"):
                    shutil.copy(os.path.join(exported, name), os.path.join(out, "kernel_details.csv"))
                elif name.startswith("op_statistic") and name.endswith(".csv"):
                    shutil.copy(os.path.join(exported, name), os.path.join(out, "op_statistic.csv"))
                elif name.startswith("msprof_") and name.endswith(".json"):
                    shutil.copy(os.path.join(exported, name), os.path.join(out, "trace_view.json"))
                elif name == "report.html":
                    shutil.copy(os.path.join(exported, name), os.path.join(out, "report.html"))
        with open(os.path.join(staging, "profiler_info.json"), "w") as f:
            json.dump({"engine": "OpenGE", "rule": self.rule, "collections": [os.path.basename(m) for m in moved]}, f)
        os.rename(staging, target)
        self.collections = [os.path.join(target, os.path.basename(m)) for m in moved]
        self.trace_folder = target
