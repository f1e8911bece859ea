"""``npu.global_options()``: the TF Adapter's configuration object, for OpenGE.

Page 002's script lines run unchanged::

    from openge import npu
    npu.global_options().precision_mode = "allow_mix_precision"
    npu.global_options().dump_config.enable_dump = True

The attribute tree (every top-level field and the ``memory_config``, ``dump_config``,
``profiling_config`` and ``aoe_config`` groups) is generated from the engine's option table, so
it has exactly the engine's fields. An assignment is checked at once (type, allowed values,
range, syntax) and a wrong one raises :class:`openge.OptionError` with the engine's E10001
text; the rules between options and the files options point to are checked when a
:class:`openge.Session` is created, every problem in one exception. ``None`` unsets a field.
Reading a field gives its effective value: assigned here, else from the environment
(``PROFILING_MODE``, ``ASCEND_DEVICE_ID``, ...), else the default.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import _openge
from ._errors import OptionError

__all__ = ["global_options", "NpuOptions", "OptionGroup"]

_TABLE: List[Dict[str, Any]] = _openge.option_table()
_ROWS: Dict[str, Dict[str, Any]] = {row["name"]: row for row in _TABLE}
# The attribute tree: option rows that are fields of npu.global_options() (not environment
# variables), split at the dot into groups.
_FIELDS: List[str] = [row["name"] for row in _TABLE if not row["environment_only"]]
_GROUPS: Dict[str, List[str]] = {}
for _name in _FIELDS:
    if "." in _name:
        _group, _leaf = _name.split(".", 1)
        _GROUPS.setdefault(_group, []).append(_leaf)
_TOP_LEVEL: List[str] = [n for n in _FIELDS if "." not in n]


def _typed(name: str, text: str) -> Any:
    """The effective text of a field as the Python value a script would have assigned."""
    if text == "":
        return None
    types = _ROWS[name]["types"]
    if types == ["bool"]:
        return text == "True"
    if types == ["int"]:
        return int(text)
    return text


def _api_value(value: Any) -> Any:
    return os.fspath(value) if isinstance(value, os.PathLike) else value


def check_assignments(values: Dict[str, Any], origin: str) -> List[Tuple[str, str, str]]:
    """Checks {dotted name: value} and returns engine assignments; one OptionError for all problems."""
    out, problems = [], []
    for name, value in values.items():
        if value is None:
            continue
        try:
            canonical, text = _openge.check_option(str(name), _api_value(value), origin)
            out.append((canonical, text, origin))
        except OptionError as e:
            problems.append(str(e))
    if problems:
        raise OptionError("\n".join(problems))
    return out


class NpuOptions:
    """A configuration: the fields of the TF adapter's ``npu.global_options()``.

    ``npu.global_options()`` returns the process-wide instance; ``NpuOptions()`` makes an
    independent one (for ``Session(model, options=...)``). Assign fields as attributes (a group
    such as ``dump_config`` is an attribute whose fields are assigned the same way), or give
    them as keywords with ``__`` for the dot: ``NpuOptions(precision_mode="force_fp32",
    dump_config__dump_mode="all")``.
    """

    __slots__ = ("_assigned", "_origin")

    def __init__(self, _origin: str = "openge.npu.NpuOptions", **values: Any) -> None:
        object.__setattr__(self, "_assigned", {})
        object.__setattr__(self, "_origin", _origin)
        for name, value in values.items():
            self._set(name.replace("__", "."), value)

    # ---- field access -------------------------------------------------------------------
    def _set(self, name: str, value: Any) -> None:
        canonical = _openge.find_option(name)
        if value is None:
            if canonical is None:
                _openge.check_option(name, "", self._origin)  # raises: unknown option
            self._assigned.pop(canonical, None)
            return
        canonical, text = _openge.check_option(name, _api_value(value), self._origin)
        self._assigned[canonical] = text

    def _get(self, name: str) -> Any:
        canonical = _openge.find_option(name)
        if canonical is None:
            raise AttributeError(f"npu.global_options() has no field '{name}'")
        return _typed(canonical, self.effective()[canonical][0])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in _GROUPS:
            return OptionGroup(self, name)
        return self._get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _GROUPS:
            raise OptionError(f"'{name}' is a group of options; assign its fields ({name}.{_GROUPS[name][0]} = ...)")
        self._set(name, value)

    def __delattr__(self, name: str) -> None:
        self._set(name, None)

    def __dir__(self) -> List[str]:
        return sorted(set(_TOP_LEVEL) | set(_GROUPS) | {"reset", "effective", "check", "assignments", "copy"})

    # ---- whole configuration ----------------------------------------------------------------
    def reset(self) -> None:
        """Forgets every assignment: the environment and the defaults decide again."""
        self._assigned.clear()

    def copy(self) -> "NpuOptions":
        """An independent NpuOptions with the same assignments."""
        other = NpuOptions(self._origin)
        other._assigned.update(self._assigned)
        return other

    def assignments(self) -> List[Tuple[str, str, str]]:
        """The assigned fields as engine assignments (canonical name, value text, origin)."""
        return [(name, text, self._origin) for name, text in self._assigned.items()]

    def effective(self) -> Dict[str, Tuple[str, str, str]]:
        """{option name: (value text, source, origin)} for every row of the option table.

        source is "default", "env", "file" or "flag" (an assignment here); value "" is unset.
        The rules between options are not applied here (``check()`` and Session do); where the
        environment holds an invalid value, only the assignments here are shown.
        """
        report = _openge.build_options(self.assignments(), [], False, False)
        if report["values"] is not None:
            return report["values"]
        values = {row["name"]: ("", "default", "") for row in _TABLE}
        for name, text in self._assigned.items():
            values[name] = (text, "flag", self._origin)
        return values

    def check(self, check_files: bool = True) -> Tuple[List[str], List[str]]:
        """(errors, warnings) of this configuration as a Session would see it (E10001 lines)."""
        report = _openge.build_options(self.assignments(), [], check_files)
        return report["errors"], report["warnings"]

    def __iter__(self) -> Iterator[str]:
        return iter(_FIELDS)

    def __repr__(self) -> str:
        values = self.effective()
        errors, _ = self.check(check_files=False)
        width = max(len(n) for n in values)
        lines = [f"{type(self).__name__}({self._origin}):"]
        for row in _TABLE:
            value, source, origin = values.get(row["name"], ("", "default", ""))
            where = source + (f": {origin}" if origin else "")
            lines.append(f"  {row['name']:<{width}} = {value or '(unset)'}  [{where}]")
        lines += [f"  problem: {e}" for e in errors]
        return "\n".join(lines)


class OptionGroup:
    """A group of fields (``memory_config``, ``dump_config``, ``profiling_config``, ``aoe_config``)."""

    __slots__ = ("_owner", "_group")

    def __init__(self, owner: NpuOptions, group: str) -> None:
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_group", group)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in _GROUPS[self._group]:
            raise AttributeError(f"npu.global_options().{self._group} has no field '{name}'")
        return self._owner._get(f"{self._group}.{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        self._owner._set(f"{self._group}.{name}", value)

    def __delattr__(self, name: str) -> None:
        self._owner._set(f"{self._group}.{name}", None)

    def __dir__(self) -> List[str]:
        return list(_GROUPS[self._group])

    def __repr__(self) -> str:
        return "\n".join(f"{self._group}.{leaf} = {getattr(self, leaf)!r}" for leaf in _GROUPS[self._group])


_GLOBAL = NpuOptions("npu.global_options()")


def global_options() -> NpuOptions:
    """The process-wide configuration that every Session created without ``options=`` uses."""
    return _GLOBAL


def fields() -> List[str]:
    """Every field of the attribute tree, as dotted names, in the option table's order."""
    return list(_FIELDS)


def option_row(name: str) -> Optional[Dict[str, Any]]:
    """The option table's row of a field (by dotted name, alias, GE key or leaf name)."""
    canonical = _openge.find_option(name)
    return dict(_ROWS[canonical]) if canonical else None
