"""The CLI's reports as Python values: ``openge options --explain``, ``openge paths``,
``openge check-options``, ``openge profile-report`` and ``openge explain-precision``."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Union

import numpy

from . import _openge
from .npu import option_row
from .session import ModelSource, OptionsArg, Session, _assignments

__all__ = ["CheckResult", "PrecisionExplanation", "check_options", "explain", "explain_precision", "paths",
           "profile_report"]


class CheckResult(NamedTuple):
    """valid: no problem. errors: one E10001 line each. warnings: as the CLI prints them."""

    valid: bool
    errors: List[str]
    warnings: List[str]


def _files(options_files: Sequence[Union[str, "os.PathLike[str]"]]) -> List[str]:
    return [os.fspath(f) for f in options_files]


def check_options(options: OptionsArg = None, options_files: Sequence[Union[str, "os.PathLike[str]"]] = ()) -> CheckResult:
    """Validates a configuration (assignments, options files, environment) as a Session would,
    every rule between options and every file included (``openge check-options``)."""
    report = _openge.build_options(_assignments(options), _files(options_files), True)
    return CheckResult(not report["errors"], list(report["errors"]), list(report["warnings"]))


def paths(options: OptionsArg = None, options_files: Sequence[Union[str, "os.PathLike[str]"]] = ()) -> Dict[str, Any]:
    """Where every artifact kind goes (``openge paths``): {kind: {"path", "is_file", "rule",
    "chain", "written_by" (the engine file that writes it, None when nothing does yet),
    "written_only" (when it is written, if only in some cases)}} plus "compile_cache_size"
    ({"max_size_mb", "remain_ratio_percent", "rule", "warnings", "mode", "folder" (the SoC's
    own folder, where the limits apply), "applied"}). Raises OptionError
    for an invalid configuration."""
    return _openge.resolve_paths(_assignments(options), _files(options_files))


def explain(name: str, options: OptionsArg = None) -> Dict[str, Any]:
    """One option's row of the table (``openge options --explain``): description, kind, allowed
    values, default ("default_text": as the CLI prints it, per scenario where it depends on
    graph_run_mode / soc_version), GE key, aliases, environment variable, interactions, spec IDs, "status"
    (implemented / accepted, not implemented yet / no effect on CPU) with "effect" (what it does,
    or why not) and "consumer" (the engine file that reads it), and "effective": (value, source,
    origin) in the given configuration."""
    row = option_row(name)
    if row is None:
        _openge.check_option(name, "", "explain")  # raises OptionError: unknown option, did you mean
    assert row is not None
    values = _openge.build_options(_assignments(options), [], False)["values"]
    row["effective"] = values.get(row["name"]) if values else None
    return row


def profile_report(collection: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """A profiling collection read back (``openge profile-report``): {"title", "ops": [{"name",
    "type", "engine", "count", "total_ns"}] per op name over all iterations, "step_times_ns":
    [(iteration, ns)], "timeline": [{"name", "type", "engine", "start_us", "dur_us"}] of one
    iteration, "timeline_label", "html": the self-contained report page}. ``collection`` is the
    PROF_* folder (``Session.profiling_dir``) after ``finish_profiling()``. Raises RunError when
    it holds no readable collection."""
    return _openge.profile_report(os.fspath(collection))


class PrecisionExplanation(NamedTuple):
    """``explain_precision``'s result. nodes: one dict per node of the compiled graph, in order
    ({node, op_type, ascend_type, original_dtype, input_dtype, output_dtype, engine, rule,
    impl_mode, impl_rule}; rule names the setting that decided). warnings: settings the
    precision pass ignored, and why. input_notes: the inputs given seeded random data."""

    nodes: List[Dict[str, str]]
    warnings: List[str]
    input_notes: List[str]


def explain_precision(model: ModelSource, options: OptionsArg = None,
                      inputs: Optional[Mapping[str, numpy.ndarray]] = None, threads: Optional[int] = None,
                      options_files: Sequence[Union[str, "os.PathLike[str]"]] = ()) -> PrecisionExplanation:
    """Every node's compute dtype, engine and the precision rule that chose it (``openge
    explain-precision``; ``--json`` prints the same records): the model is opened as
    ``Session(model, options, threads, options_files)`` and run once, on ``inputs`` where given
    and on the CLI's seeded random data (seed 0 + input index, symbolic dimensions 1) for the
    inputs left out. Raises OptionError, ModelError, InputError or RunError as a Session does."""
    session = Session(model, options, threads, options_files)
    nodes, warnings, notes = session._explain_precision(dict(inputs or {}))
    return PrecisionExplanation(list(nodes), list(warnings), list(notes))
