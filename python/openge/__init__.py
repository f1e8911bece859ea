"""OpenGE from Python: configure with TF-adapter ``npu.global_options()`` lines and run ONNX
models on NumPy arrays.

    from openge import npu
    import openge, numpy
    npu.global_options().precision_mode = "allow_mix_precision"
    session = openge.Session("model.onnx")
    (y,) = session.run(None, {"x": numpy.ones((1, 3), numpy.float32)})

Names: Session, TensorInfo, InferenceSession, SessionOptions, get_available_providers, get_device
(onnxruntime's names: ``import openge as ort`` runs an onnxruntime script), Trainer (training, graph_run_mode=1), compile (a model into a .oge that Session loads without recompiling),
npu (global_options, NpuOptions), acl_init (CANN's acl.json), check_options, paths, explain,
profile_report, explain_precision, dump_convert, compare, option_table, and the exceptions Error,
OptionError, ModelError, InputError, RunError, DumpError, OptionWarning. bfloat16 tensors travel as numpy.uint16 arrays holding the bits.
"""
from ._errors import DumpError, Error, InputError, ModelError, OptionError, OptionWarning, RunError
from . import _openge
from . import npu
from .session import Session, TensorInfo
from .onnxruntime_api import (ExecutionMode, GraphOptimizationLevel, InferenceSession, RunOptions, SessionOptions,
                              get_available_providers, get_device)
from .trainer import Trainer
from .offline import compile
from .reports import CheckResult, PrecisionExplanation, check_options, explain, explain_precision, paths, profile_report
from .acl import acl_init
from .dumps import Comparison, ConvertSummary, OpComparison, compare, dump_convert

__version__ = "0.1.0"


def option_table():
    """Every row of the engine's option table (dicts: name, kind, types, allowed, range,
    default, ge_key, aliases, env_var, description, ...), in table order."""
    return _openge.option_table()


__all__ = [
    "Error", "OptionError", "ModelError", "InputError", "RunError", "DumpError", "OptionWarning",
    "Session", "TensorInfo", "InferenceSession", "SessionOptions", "RunOptions", "GraphOptimizationLevel",
    "ExecutionMode", "get_available_providers", "get_device", "Trainer", "compile", "npu", "check_options", "paths", "explain", "profile_report", "option_table",
    "CheckResult", "explain_precision", "PrecisionExplanation", "dump_convert", "ConvertSummary", "compare",
    "Comparison", "OpComparison", "acl_init",
    "__version__",
]
