"""onnxruntime's names over openge.Session, so that a script written for onnxruntime runs after
``import openge as ort``: InferenceSession(path, sess_options=None, providers=None),
SessionOptions, get_inputs()/get_outputs() (name, shape, type 'tensor(float)'), get_providers(),
run(None, feed), get_available_providers(), get_device()."""
from __future__ import annotations

import enum
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from .session import Session, TensorInfo

__all__ = ["InferenceSession", "SessionOptions", "RunOptions", "GraphOptimizationLevel", "ExecutionMode",
           "get_available_providers", "get_device"]

# The one provider this engine is: the CPU, which also stands in for CANN's NPU provider.
_CPU_PROVIDER = "CPUExecutionProvider"
_PROVIDERS_RUN_HERE = (_CPU_PROVIDER, "CANNExecutionProvider")


class GraphOptimizationLevel(enum.IntEnum):
    """onnxruntime.GraphOptimizationLevel: accepted; the graph is always optimised as CANN compiles it."""

    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99


class ExecutionMode(enum.IntEnum):
    """onnxruntime.ExecutionMode: accepted; parallel operators use the session's threads either way."""

    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class SessionOptions:
    """onnxruntime.SessionOptions. intra_op_num_threads sets the threads of parallel operators
    (0: one per core); the other fields are accepted and kept, and change nothing here: the graph
    is always optimised as CANN compiles it, and profiling is set with npu.global_options()."""

    def __init__(self) -> None:
        self.intra_op_num_threads = 0
        self.inter_op_num_threads = 0
        self.graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
        self.execution_mode = ExecutionMode.ORT_SEQUENTIAL
        self.log_severity_level = 2
        self.log_verbosity_level = 0
        self.enable_profiling = False
        self.enable_mem_pattern = True
        self.enable_cpu_mem_arena = True
        self.optimized_model_filepath = ""
        self.logid = ""
        self._configs: Dict[str, str] = {}

    def add_session_config_entry(self, key: str, value: str) -> None:
        self._configs[key] = value

    def get_session_config_entry(self, key: str) -> str:
        return self._configs[key]


class RunOptions:
    """onnxruntime.RunOptions: accepted by run() and not used."""

    def __init__(self) -> None:
        self.log_severity_level = 2
        self.run_tag = ""
        self.terminate = False


def get_available_providers() -> List[str]:
    """The providers a session can use here: the CPU's."""
    return [_CPU_PROVIDER]


def get_device() -> str:
    """onnxruntime.get_device(): "CPU"."""
    return "CPU"


def _provider_name(p: Union[str, Tuple[str, Dict[str, Any]]]) -> str:
    return p[0] if isinstance(p, (tuple, list)) else p


class InferenceSession(Session):
    """onnxruntime.InferenceSession(path_or_bytes, sess_options=None, providers=None,
    provider_options=None). Providers other than CPUExecutionProvider and CANNExecutionProvider
    are not available here: as onnxruntime does, a warning names them and the CPU runs the model.
    The configuration is npu.global_options() as it is now, plus the environment."""

    def __init__(self, path_or_bytes: Union[str, "os.PathLike[str]", bytes],
                 sess_options: Optional[SessionOptions] = None,
                 providers: Optional[Sequence[Union[str, Tuple[str, Dict[str, Any]]]]] = None,
                 provider_options: Optional[Sequence[Dict[str, Any]]] = None, **kwargs: Any) -> None:
        names = [_provider_name(p) for p in (providers or [])]
        unavailable = [n for n in names if n not in _PROVIDERS_RUN_HERE]
        if unavailable:
            warnings.warn(f"Specified provider(s) {', '.join(unavailable)} are not available here; "
                          f"available providers: {_CPU_PROVIDER}", UserWarning, stacklevel=2)
        threads = sess_options.intra_op_num_threads if sess_options is not None else 0
        super().__init__(path_or_bytes, threads=threads or None)
        self._sess_options = sess_options if sess_options is not None else SessionOptions()
        self._model_path = os.fspath(path_or_bytes) if isinstance(path_or_bytes, (str, os.PathLike)) else None

    def get_providers(self) -> List[str]:
        return [_CPU_PROVIDER]

    def get_provider_options(self) -> Dict[str, Dict[str, str]]:
        return {_CPU_PROVIDER: {}}

    def get_session_options(self) -> SessionOptions:
        return self._sess_options

    def set_providers(self, providers: Optional[Sequence[Any]] = None, provider_options: Any = None) -> None:
        """Accepted; the CPU stays the provider."""

    def run(self, output_names: Optional[Sequence[str]], input_feed: Dict[str, Any],
            run_options: Optional[RunOptions] = None) -> List[Any]:
        return super().run(output_names, input_feed)

    def get_overridable_initializers(self) -> List[TensorInfo]:
        return []
