"""Each event's `data` as plain values, whichever `data=` mode the events were read in.

`read_trace` gives `data` as dicts (the default), as JSON text (`data="raw"`), as `LazyData`
mappings (`data="lazy"`), or not at all (`data="none"`, or `columns=` alone). The turn and
table helpers (`assemble_turns`, `steps`, `tool_calls`, `turn_failures`, …) read inside each
event's `data`, so they take the events through `readable` first: JSON text is decoded as the
reader decodes it, names written short (`step.completed`, as a frame built from the files by
hand holds them) are read in full (`eve.step.completed`), and a frame without `data` is refused
with what to do instead of giving empty tables or wrong totals.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from trackerkit.errors import BadRequestError
from trackerkit.trace._lazy import as_text, loads

__all__ = ["data_text", "key_part", "plain_data", "qualified", "readable", "require_data"]

_NO_DATA = (
    "{what} reads each event's data, and these events have no `data` column (read with "
    "data='none' or with columns= alone). Read the days with `read_trace(path)` (data as dicts, "
    "the default), or add data='raw' or data='lazy' to the columns= read."
)


def plain_data(value: Any) -> Any:
    """An event's `data` as plain dicts and lists, whichever mode it was read in.

    A dict is given back as it is; JSON text (`data="raw"`) is parsed as the reader parses it
    (integers exact at any size; text that is not JSON stays text); another mapping
    (`LazyData`) becomes a dict.
    """
    if isinstance(value, dict):
        return value
    if isinstance(value, str | bytes):
        try:
            return loads(value.encode("utf-8") if isinstance(value, str) else value)
        except (ValueError, RecursionError):  # UnicodeError (bytes that are not UTF-8) included
            return value
    if isinstance(value, Mapping):
        return {str(k): plain_data(v) if isinstance(v, Mapping) else v for k, v in value.items()}
    return value


def data_text(value: Any) -> str:
    """An event's `data` as compact JSON text, whichever mode it was read in: what a page or a
    report shows of it (`true`, `null`, `"…"`, never Python's `True`, `None`, `'…'`).

    Integers past 64 bits are written exactly; ±inf (a number past the double range, as the
    reader reads `1e400`) is written `1e999` (`-1e999`), a number past the double range that
    reads back as ±inf, never `null`; NaN (not JSON) is written `null`; text that is not JSON is
    written as a JSON string.

    >>> data_text({"isError": False, "n": None, "text": "ход", "far": float("inf")})
    '{"isError":false,"n":null,"text":"ход","far":1e999}'
    """
    plain = plain_data(value)
    text = as_text(plain)
    if b"null" in text and _MARK_TEXT not in text and _infinite(plain):
        text = _with_infinities(plain)
    return text.decode("utf-8")


_MARKS = {math.inf: "\x00+inf\x00", -math.inf: "\x00-inf\x00"}
_MARK_TEXT = b'inf\\u0000"'  # how both marks end, written as JSON
_DEPTH = 200  # as `as_text` cuts values deeper than orjson writes


def _infinite(value: Any) -> bool:
    """Whether ±inf is somewhere in `value` (a walk without recursion: data may be deep)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float) and math.isinf(item):
            return True
    return False


def _marked(value: Any, depth: int) -> Any:
    if isinstance(value, dict | list):
        if depth <= 0:
            return "…[deep]"  # TC-7's mark, as `as_text` writes it
        if isinstance(value, dict):
            return {k: _marked(v, depth - 1) for k, v in value.items()}
        return [_marked(v, depth - 1) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return _MARKS.get(value)  # NaN: None
    return value


def _with_infinities(value: Any) -> bytes:
    """`value` as compact JSON with ±inf written as the numbers `1e999` and `-1e999`."""
    text = json.dumps(_marked(value, _DEPTH), ensure_ascii=False, separators=(",", ":"))
    for number, sign in ((math.inf, ""), (-math.inf, "-")):
        text = text.replace(json.dumps(_MARKS[number]), f"{sign}1e999")
    return text.encode("utf-8")


def key_part(value: Any) -> Any:
    """A value of `data` as part of a lookup key: itself when it is text, a number, a flag or
    null, else its JSON text, so an odd writer's list `stepIndex` or object `callId` pairs with
    its like instead of failing as unhashable."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    return data_text(value)


def require_data(events: pd.DataFrame, what: str = "this helper") -> None:
    """Refuse events without a `data` column, saying how to read them with one.

    Raises:
        BadRequestError: no `data` column.
    """
    if "data" not in events.columns:
        raise BadRequestError(_NO_DATA.format(what=what))


def qualified(events: pd.DataFrame) -> pd.DataFrame:
    """`events` with each `name` as `read_trace` gives it, `kind.name` (`eve.step.completed`).

    A frame built by hand from the journal (`pd.read_json(day, lines=True)`) holds the names as
    written (`step.completed`); the helpers match full names, so they would find no step.
    Events already named in full are given back unchanged (no copy).
    """
    if "kind" not in events.columns or "name" not in events.columns or events.empty:
        return events
    short = {(kind, name) for kind, name in _pairs(events) if not name.startswith(f"{kind}.")}
    if not short:
        return events
    names = [
        f"{kind}.{name}" if (kind, name) in short else name
        for kind, name in zip(events["kind"].astype(str), events["name"].astype(str), strict=True)
    ]
    return events.assign(name=pd.Series(names, index=events.index, dtype=object))


def _pairs(events: pd.DataFrame) -> list[tuple[str, str]]:
    """The distinct (kind, name) pairs; from the category codes when both are categorical (as
    `read_trace` gives them), so a large frame is not turned into strings to be checked."""
    kind, name = events["kind"], events["name"]
    if isinstance(kind.dtype, pd.CategoricalDtype) and isinstance(name.dtype, pd.CategoricalDtype):
        width = len(name.cat.categories) + 1
        combined = kind.cat.codes.to_numpy(np.int64) * width + name.cat.codes.to_numpy(np.int64)
        kinds, names = kind.cat.categories, name.cat.categories
        return [
            (str(kinds[code // width]), str(names[code % width]))
            for code in pd.unique(combined).tolist()
            if code >= 0 and code % width < len(names)
        ]
    pairs = events[["kind", "name"]].astype(str).drop_duplicates()
    return list(zip(pairs["kind"], pairs["name"], strict=True))


def readable(events: pd.DataFrame, what: str = "this helper") -> pd.DataFrame:
    """`events` with a `data` the helpers can read inside: JSON text decoded, the rest as is.

    Events read with dicts or `LazyData` (mappings) are given back unchanged (no copy).

    Raises:
        BadRequestError: the events have no `data` column; the message says how to read them.
    """
    require_data(events, what)
    events = qualified(events)
    column = events["data"]
    if column.dtype == object:  # dicts or mappings, unless a frame made by hand holds JSON text
        first = next((v for v in column if isinstance(v, Mapping | str | bytes)), None)
        if not isinstance(first, str | bytes):
            return events
    values = np.fromiter(map(plain_data, column.tolist()), dtype=object, count=len(column))
    return events.assign(data=pd.Series(values, index=events.index, dtype=object))
