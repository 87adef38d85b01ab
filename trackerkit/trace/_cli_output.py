"""How the `trackerkit trace` commands print: tables, `--json`, times, and a line of an event's data.

`--json` output is written by orjson, times as ISO strings and durations in seconds
(`_records`); data nested deeper than orjson writes is cut with TC-7's mark (`_shallow`).
`summary` is the short line `trace show` prints of an event's data.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import orjson
import pandas as pd

from trackerkit.line import fields_line, line_of
from trackerkit.trace._lazy import jsonable

__all__ = ["summary"]


_JSON_DEPTH = 200
"""Nesting kept in `--json` output when a value is deeper than orjson writes (255 levels)."""


def _shallow(value: Any, depth: int) -> Any:
    """`value` as orjson writes it: containers deeper than `depth` levels as `…[deep]` (TC-7's
    mark), integers beyond 64 bits (which JSON data may hold) as their digits."""
    if isinstance(value, int) and not -(1 << 63) <= value < 1 << 64:
        return str(value)
    if isinstance(value, Mapping | list | tuple):
        if depth <= 0:
            return "…[deep]"
        if isinstance(value, Mapping):
            return {k: _shallow(v, depth - 1) for k, v in value.items()}
        return [_shallow(v, depth - 1) for v in value]
    return value


def _json(value: Any) -> None:
    option = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
    try:
        text = orjson.dumps(value, default=jsonable, option=option)
    except orjson.JSONEncodeError:  # data orjson cannot write: nested past 255, a huge integer
        text = orjson.dumps(_shallow(value, _JSON_DEPTH), default=jsonable, option=option)
    sys.stdout.write(text.decode() + "\n")


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """JSON-ready rows: times as ISO strings, durations in seconds, missing values as null."""
    out = frame.copy()
    for column in out.columns:
        if isinstance(out[column].dtype, pd.DatetimeTZDtype):
            out[column] = out[column].map(lambda t: None if pd.isna(t) else t.isoformat())
        elif pd.api.types.is_timedelta64_dtype(out[column].dtype):
            out[column] = out[column].dt.total_seconds()
    records = out.astype(object).where(out.notna(), None).to_dict(orient="records")
    return [{str(k): v for k, v in r.items()} for r in records]


def _count(number: int, noun: str) -> str:
    """`1 turn`, `2 turns`, `0 turns`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _table(frame: pd.DataFrame) -> str:
    if frame.empty:
        return "(none)"
    return frame.to_string(index=False, na_rep="")


def _time(stamp: Any) -> str:
    return "" if pd.isna(stamp) else pd.Timestamp(stamp).strftime("%H:%M:%S.%f")[:-3]


def _date(stamp: Any) -> str:
    """`YYYY-MM-DD`, four digits of year always (strftime's `%Y` writes year 1 as `1`)."""
    return f"{stamp.year:04d}-{stamp.month:02d}-{stamp.day:02d}"


_LIST_SHOWN = 40
"""A list of plain values is shown whole up to this many characters, else by its length."""


def _list_summary(items: list[Any]) -> str:
    """`[23, 7]` or `['a', 'b']` for a short list of plain values; else `(3 items)`."""
    if not any(isinstance(item, dict | list) for item in items):
        shown = "[" + ", ".join(repr(i) if isinstance(i, str) else line_of(i) for i in items) + "]"
        if len(shown) <= _LIST_SHOWN:
            return shown
    return f"({len(items)} item{'' if len(items) == 1 else 's'})"


def summary(data: Mapping[str, Any]) -> str:
    """A short readable line of an event's data: sizes, names and outcomes before content."""
    if not isinstance(data, Mapping):
        return ""
    parts = []
    for key, value in data.items():
        if isinstance(value, dict):
            flat = {k: v for k, v in value.items() if not isinstance(v, dict | list)}
            value = "{" + fields_line(flat) + "}"
        elif isinstance(value, list):
            value = _list_summary(value)
        elif isinstance(value, str) and len(value) > 60:
            value = repr(value[:57] + "...")
        elif isinstance(value, str):
            value = repr(value)
        else:
            value = line_of(value)
        parts.append(f"{key}={value}")
    return " ".join(parts)
