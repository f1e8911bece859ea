"""The CLI's reports as Python values: ``openge options --explain``, ``openge paths``,
``openge check-options`` and ``openge profile-report``."""
from __future__ import annotations

import os
from typing import Any, Dict, List, NamedTuple, Sequence, Union

from . import _openge
from .npu import option_row
from .session import OptionsArg, _assignments

__all__ = ["CheckResult", "check_options", "explain", "paths", "profile_report"]


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
    "chain"}} plus "compile_cache_size". Raises OptionError for an invalid configuration."""
    return _openge.resolve_paths(_assignments(options), _files(options_files))


def explain(name: str, options: OptionsArg = None) -> Dict[str, Any]:
    """One option's row of the table (``openge options --explain``): description, kind, allowed
    values, default, GE key, aliases, environment variable, interactions, spec IDs, "status"
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
