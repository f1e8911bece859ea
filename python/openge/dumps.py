"""The CLI's Data Dump tools as Python values: ``openge dump convert DIR --to npy`` and
``openge compare A B``, over the same engine functions."""
from __future__ import annotations

import os
import warnings
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

from . import _openge

__all__ = ["ConvertSummary", "OpComparison", "Comparison", "dump_convert", "compare"]

PathArg = Union[str, "os.PathLike[str]"]


class ConvertSummary(NamedTuple):
    """What ``dump_convert`` did: dump files read and .npy files written."""

    dump_files: int
    npy_files: int


class OpComparison(NamedTuple):
    """One output slot of one op compared (a row of the CSV). max_rel_error is max |a - b| /
    max |a| (relative to A's magnitude); note says why a slot was not comparable ("shapes
    differ", "Inf/NaN differ"), and such a slot exceeds any threshold."""

    iteration: str
    op_name: str
    op_type: str
    task_id: int
    output: int
    shape: str
    cosine: float
    max_abs_error: float
    max_rel_error: float
    exceeds: bool
    note: str


class Comparison(NamedTuple):
    """``compare``'s result. rows: in A's iteration, then execution order. first_exceeding: the
    index into rows of the first op over the threshold (None when none is). html_path: where
    the page was written (None: not asked for). csv / html: the CSV text and the
    self-contained HTML page, as ``openge compare`` writes them."""

    rows: List[OpComparison]
    first_exceeding: Optional[int]
    only_in_a: int
    only_in_b: int
    threshold: float
    html_path: Optional[str]
    csv: str
    html: str
    ops_only_in_a: Tuple[str, ...] = ()  # "<op_type> '<op_name>' (iteration <i>)", execution order
    ops_only_in_b: Tuple[str, ...] = ()
    warning: str = ""  # a dump path holding several runs: which were found, which was compared

    @property
    def first_exceeding_op(self) -> Optional[OpComparison]:
        """The row of the first op over the threshold, or None."""
        return None if self.first_exceeding is None else self.rows[self.first_exceeding]


def dump_convert(dump_dir: PathArg, output: Optional[PathArg] = None, to: str = "npy") -> ConvertSummary:
    """Converts every Data Dump file under ``dump_dir`` into one .npy per tensor, named
    ``<dump file>.<input|output>.<slot>.<FORMAT>.<dtype>.npy`` (``openge dump convert DIR --to
    npy [--output DIR]``): beside each dump file, or with ``output`` in that folder mirroring
    the tree. bfloat16 tensors become float32. Raises DumpError (no dump files, a file that does
    not parse, named) and ValueError for a format other than "npy"."""
    if to != "npy":
        raise ValueError(f"to must be 'npy' (the only format), got {to!r}")
    dumps, npys = _openge.dump_convert(os.fspath(dump_dir), "" if output is None else os.fspath(output))
    return ConvertSummary(dumps, npys)


def compare(dump_a: PathArg, dump_b: PathArg, threshold: float = 0.01, output: Optional[PathArg] = None,
            html: Optional[PathArg] = None) -> Comparison:
    """Compares two Data Dumps of the same model op by op (``openge compare A B``): files are
    matched by iteration and op name, each output slot in both is compared as float64 (cosine
    similarity, max absolute error, max relative error = max |a-b| / max |a|), and an op whose
    relative error exceeds ``threshold`` (or that is not comparable) deviates.

    output: write the CSV there and the HTML page beside it (FILE.csv -> FILE.html), both
    atomically, as the CLI's --output. html: the page's own path (as --html). Raises DumpError
    for a bad dump folder (its message is the CLI's) or an output that cannot be written.
    A folder holding the dumps of several runs gives a UserWarning (the CLI's warning line)."""
    result = _openge.compare_dumps(os.fspath(dump_a), os.fspath(dump_b), float(threshold),
                                   "" if output is None else os.fspath(output), "" if html is None else os.fspath(html))
    if result["warning"]:
        warnings.warn(result["warning"], UserWarning, stacklevel=2)
    rows = [OpComparison(**r) for r in result["rows"]]
    return Comparison(rows, result["first_exceeding"], result["only_in_a"], result["only_in_b"],
                      result["threshold"], result["html_path"], result["csv"], result["html"],
                      tuple(result["ops_only_in_a"]), tuple(result["ops_only_in_b"]), result["warning"])

