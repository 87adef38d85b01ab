"""The argument types of the `trackerkit trace` commands: a day (`YYYY-MM-DD`) and an export's
`--column` (`PATH`, `PATH:TYPE`, `NAME=PATH` or `NAME=PATH:TYPE`).

Each refuses what it cannot read with `argparse.ArgumentTypeError`, in a sentence that shows how
to write it.
"""

from __future__ import annotations

import argparse
import datetime as dt
from typing import NoReturn, cast

from trackerkit.trace._columns import ColumnSpec, ColumnType
from trackerkit.trace._data import INFERRED

__all__: list[str] = []  # its argument types serve the trace commands (`cli.register`) only


_COLUMN_TYPES = ("int", "float", "str", "bool")


def _column(value: str) -> str | ColumnSpec:
    """`--column`: `PATH`, `PATH:TYPE`, `NAME=PATH` or `NAME=PATH:TYPE` (int, float, str, bool).

    What follows the last `:` is the type (`read_trace(columns=...)` takes a path holding `:`).
    """
    name, sep, path = value.rpartition("=") if "=" in value else ("", "", value)
    head, colon, kind = path.rpartition(":")
    typed = bool(colon)
    if typed and kind not in _COLUMN_TYPES:
        _bad_column(value, f"{kind!r} is no type")
    if typed:
        path = head
    if sep and not name:
        _bad_column(value, "the NAME before = is empty")
    if "=" in name:
        _bad_column(value, "a NAME= comes once, before the path")
    if not path:
        _bad_column(value, "it names no path")
    name = name or path
    if not typed:
        if not sep:
            return value
        return ColumnSpec(name, path, "object", doc=INFERRED)  # typed by its values
    return ColumnSpec(name, path, cast(ColumnType, kind))


def _bad_column(value: str, why: str) -> NoReturn:
    raise argparse.ArgumentTypeError(
        f"{value!r} is not a column ({why}); write PATH, PATH:TYPE, NAME=PATH or NAME=PATH:TYPE "
        f"with TYPE one of {', '.join(_COLUMN_TYPES)} (for example cost_usd=usage.costUsd:float)"
    )


def _day(value: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a day; write it as YYYY-MM-DD"
        ) from None
