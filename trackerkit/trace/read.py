"""Reading trace days into pandas: tolerant of broken lines, fast, sorted by `ts`.

A trace day is `YYYY-MM-DD.jsonl`, one JSON object per line with exactly seven fields in
order (TC-4). `read_trace` turns one file, a folder of day files or a list of either into
one events frame; a broken line never spoils its neighbours (TC-19): it is reported as a
`TraceLineError(file, line, reason)` and every other line is kept.

Speed: each file is read once as bytes lines, each line is decoded by one `orjson.loads`,
the field order is checked on the decoded dict's keys, and the columns are built at the end
(categoricals by one factorize each). The garbage collector is paused while the objects are
built, because a million new dicts would otherwise trigger hundreds of useless collections.
"""

from __future__ import annotations

import datetime as dt
import gc
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np
import orjson
import pandas as pd

from trackerkit.errors import NotFoundError, TraceLineError
from trackerkit.trace._columns import ColumnSpec, empty_frame

__all__ = [
    "EVENT_COLUMNS",
    "FIELDS",
    "day_files",
    "day_of",
    "parse_file",
    "read_trace",
    "trace_days",
]

FIELDS: tuple[str, ...] = ("ts", "turn", "session", "source", "kind", "name", "data")
"""The seven fields of an event line, in the order the contract fixes (TC-4)."""

EVENT_COLUMNS: list[ColumnSpec] = [
    ColumnSpec("ts", "ts", "datetime", doc="the moment of writing, UTC (TC-4)"),
    ColumnSpec("turn", "turn", "category", "", doc="turn key: tg:…, turn_N[#node] or empty (TC-8)"),
    ColumnSpec("session", "session", "category", "", doc="eve session, empty before a turn starts"),
    ColumnSpec("source", "source", "category", doc="telegram, bridge, web, http, rollup, …"),
    ColumnSpec(
        "kind", "kind", "category", doc="bridge, inbound, gate, context, turn, eve, outbox, stop"
    ),
    ColumnSpec("name", "name", "category", doc="the full `kind.name` (`eve.step.completed`)"),
    ColumnSpec("data", "data", "object", doc="the event's data, a dict"),
    ColumnSpec("file", "@file", "category", doc="the day file the line was read from"),
    ColumnSpec("line", "@line", "int", doc="the 1-based line number in that file"),
    ColumnSpec("day", "@day", "category", doc="the file's day (installation time zone, TC-2)"),
]
"""The columns of the events frame `read_trace` returns, in order."""

_DAY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.jsonl$")
_EXPECTED = ", ".join(FIELDS)
_STRING_FIELDS = ("turn", "session", "source", "kind", "name")


def day_of(path: str | os.PathLike[str]) -> str | None:
    """The day a file is named for (`2026-11-28` for `2026-11-28.jsonl`), or None (TC-3)."""
    match = _DAY_FILE.match(Path(path).name)
    if match is None:
        return None
    try:
        dt.date.fromisoformat(match.group(1))
    except ValueError:
        return None
    return match.group(1)


def _as_day(value: str | dt.date) -> str:
    if isinstance(value, dt.date):
        return value.isoformat()
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise NotFoundError(f"{value!r} is not a day; name days as YYYY-MM-DD.") from None


def day_files(
    directory: str | os.PathLike[str], days: Iterable[str | dt.date] | None = None
) -> list[Path]:
    """The day files of a folder, oldest first; only files named `YYYY-MM-DD.jsonl` (TC-3).

    Raises:
        NotFoundError: the folder is missing, or one of the asked-for days has no file.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise NotFoundError(f"{folder} is not a folder of trace days.")
    found = {day: p for p in folder.iterdir() if (day := day_of(p)) is not None and p.is_file()}
    if days is None:
        return [found[d] for d in sorted(found)]
    wanted = sorted({_as_day(d) for d in days})
    missing = [d for d in wanted if d not in found]
    if missing:
        raise NotFoundError(
            f"{folder} has no trace file for {', '.join(missing)}; "
            f"it holds {len(found)} day(s)" + (f", {min(found)} to {max(found)}." if found else ".")
        )
    return [found[d] for d in wanted]


@contextmanager
def _gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass
class _Parsed:
    """The good lines of one or more files as plain lists, plus their errors.

    The five string fields of a line are interned as one key tuple: `keys` holds each row's
    code into `table`, so type checks and categoricals work on the few distinct keys only.
    """

    stamps: list[Any] = field(default_factory=list)
    keys: list[int] = field(default_factory=list)
    data: list[Any] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    table: dict[tuple[Any, ...], int] = field(default_factory=dict)
    files: list[tuple[str, str | None, int]] = field(default_factory=list)  # (file, day, rows)
    errors: list[TraceLineError] = field(default_factory=list)


def _reason(raw: bytes, exc: Exception | None, obj: Any) -> str:
    """Why a line was refused, in words (only computed for broken lines)."""
    if not raw.strip():
        return "empty line"
    if exc is not None:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            return f"invalid UTF-8 at byte {bad.start}"
        return f"not valid JSON ({exc})"
    if not isinstance(obj, dict):
        return f"not a JSON object but a {type(obj).__name__}"
    keys = list(obj)
    missing = [k for k in FIELDS if k not in obj]
    if missing:
        return f"missing field(s) {', '.join(missing)}; expected {_EXPECTED}"
    extra = [k for k in keys if k not in FIELDS]
    if extra:
        return f"unexpected field(s) {', '.join(extra)}; expected exactly {_EXPECTED}"
    return f"fields in the order {', '.join(keys)}; expected {_EXPECTED}"


def _parse_into(path: Path, label: str, day: str | None, parsed: _Parsed, strict: bool) -> None:
    """Append the lines of one file to `parsed`: the hot loop of every reader."""
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    fields = FIELDS
    table = parsed.table
    add_stamp = parsed.stamps.append
    add_key = parsed.keys.append
    add_data = parsed.data.append
    add_line = parsed.lines.append
    errors = parsed.errors
    start = len(parsed.lines)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise NotFoundError(f"{path} does not exist.") from None
    with handle:
        for number, raw in enumerate(handle, 1):
            try:
                obj = loads(raw)
            except decode_error as exc:
                error = TraceLineError(label, number, _reason(raw, exc, None))
            else:
                if type(obj) is dict and tuple(obj) == fields:
                    ts, turn, session, source, kind, name, data = obj.values()
                    if type(data) is not dict:
                        error = TraceLineError(
                            label, number, f"field data is a {type(data).__name__}, not an object"
                        )
                        if strict:
                            raise error
                        errors.append(error)
                        continue
                    key = (turn, session, source, kind, name)
                    try:
                        code = table[key]
                    except KeyError:
                        code = table[key] = len(table)
                    except TypeError:  # an unhashable value (a list or an object)
                        code = -1
                    add_stamp(ts)
                    add_key(code)
                    add_data(data)
                    add_line(number)
                    continue
                error = TraceLineError(label, number, _reason(raw, None, obj))
            if strict:
                raise error
            errors.append(error)
    parsed.files.append((label, day, len(parsed.lines) - start))


def _bad_rows(parsed: _Parsed, codes: np.ndarray[Any, Any]) -> dict[int, str]:
    """Rows whose values have the wrong kinds, with the reason (checked on distinct keys)."""
    bad: dict[int, str] = {}
    wrong: dict[int, str] = {-1: "a field that must be a string holds a list or an object"}
    if set(map(type, chain.from_iterable(parsed.table))) <= {str} and not (codes == -1).any():
        return bad
    for key, code in parsed.table.items():
        for name, value in zip(_STRING_FIELDS, key, strict=True):
            if type(value) is not str:
                wrong[code] = f"field {name} is a {type(value).__name__}, not a string"
                break
    if len(wrong) > 1 or (codes == -1).any():
        for row in np.flatnonzero(np.isin(codes, list(wrong))):
            bad[int(row)] = wrong[int(codes[row])]
    return bad


def _stamps(parsed: _Parsed, bad: dict[int, str]) -> pd.DatetimeIndex:
    """`ts` as UTC times; rows whose `ts` is not an ISO-8601 string join `bad`."""
    raw = parsed.stamps
    if set(map(type, raw)) != {str}:
        for row, value in enumerate(raw):
            if type(value) is not str:
                bad.setdefault(row, f"field ts is a {type(value).__name__}, not a string")
        raw = [v if type(v) is str else None for v in raw]
    stamps = pd.to_datetime(raw, utc=True, format="ISO8601", errors="coerce")
    for missing in np.flatnonzero(pd.isna(stamps)).tolist():
        bad.setdefault(missing, f"field ts {parsed.stamps[missing]!r} is not an ISO-8601 time")
    return pd.DatetimeIndex(stamps).as_unit("us")


def _drop_rows(parsed: _Parsed, bad: dict[int, str], strict: bool) -> np.ndarray[Any, Any]:
    """Move rows with bad values to the errors; returns the mask of rows kept."""
    owners = np.repeat(np.arange(len(parsed.files)), [n for _f, _d, n in parsed.files])
    labels = [f for f, _d, _n in parsed.files]
    found = [
        TraceLineError(labels[owners[row]], parsed.lines[row], why)
        for row, why in sorted(bad.items())
    ]
    if strict:
        raise found[0]
    parsed.errors.extend(found)
    parsed.errors.sort(key=lambda e: (e.file, e.line))
    keep = np.ones(len(owners), dtype=bool)
    keep[list(bad)] = False
    lost = np.bincount(owners[~keep], minlength=len(parsed.files))
    parsed.files = [(f, d, n - int(lost[i])) for i, (f, d, n) in enumerate(parsed.files)]
    parsed.lines = [n for n, k in zip(parsed.lines, keep, strict=True) if k]
    parsed.data = [v for v, k in zip(parsed.data, keep, strict=True) if k]
    return keep


def _from_codes(codes: np.ndarray[Any, Any], labels: Sequence[str | None]) -> pd.Categorical:
    """A categorical from codes into `labels`, with the categories sorted and de-duplicated."""
    distinct = sorted({label for label in labels if label is not None})
    position = {label: i for i, label in enumerate(distinct)}
    remap = np.asarray([-1 if label is None else position[label] for label in labels] + [-1])
    return pd.Categorical.from_codes(remap[codes], categories=pd.Index(distinct, dtype="str"))


def _full_name(kind: str, name: str) -> str:
    return name if name.startswith(kind + ".") else f"{kind}.{name}"


def _frame(parsed: _Parsed, strict: bool) -> pd.DataFrame:
    """The events frame of everything parsed, sorted by `ts` (TC-21)."""
    codes = np.fromiter(parsed.keys, dtype=np.int64, count=len(parsed.keys))
    parsed.keys = []
    bad = _bad_rows(parsed, codes)
    stamps = _stamps(parsed, bad)
    parsed.stamps = []
    if bad:
        keep = _drop_rows(parsed, bad, strict)
        codes, stamps = codes[keep], stamps[keep]
    if not parsed.lines:
        return empty_frame(EVENT_COLUMNS)
    table = sorted(parsed.table, key=parsed.table.__getitem__)
    file_codes = np.repeat(np.arange(len(parsed.files)), [n for _f, _d, n in parsed.files])

    def field_column(index: int) -> pd.Categorical:
        return _from_codes(codes, [k[index] if type(k[index]) is str else None for k in table])

    names = [
        _full_name(k[3], k[4]) if type(k[3]) is str and type(k[4]) is str else None for k in table
    ]
    data = np.empty(len(parsed.data), dtype=object)
    data[:] = parsed.data
    frame = pd.DataFrame(
        {
            "ts": stamps,
            "turn": field_column(0),
            "session": field_column(1),
            "source": field_column(2),
            "kind": field_column(3),
            "name": _from_codes(codes, names),
            "data": pd.Series(data, dtype=object),
            "file": _from_codes(file_codes, [f for f, _d, _n in parsed.files]),
            "line": pd.array(parsed.lines, dtype="Int64"),
            "day": _from_codes(file_codes, [d for _f, d, _n in parsed.files]),
        }
    )
    # TC-21: line order is write order; sort by ts, ties keep (file, line) order.
    values = stamps.asi8
    if len(values) > 1 and not bool(np.all(values[:-1] <= values[1:])):
        frame = frame.take(np.argsort(values, kind="stable"))
    return frame.reset_index(drop=True)


def _files_of(
    path_or_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    days: Iterable[str | dt.date] | None,
) -> list[Path]:
    if isinstance(path_or_dir, str | os.PathLike):
        targets = [Path(path_or_dir)]
    else:
        targets = [Path(p) for p in path_or_dir]
    wanted = None if days is None else ([days] if isinstance(days, str | dt.date) else list(days))
    files: list[Path] = []
    for target in targets:
        if target.is_dir():
            files.extend(day_files(target, wanted))
        elif target.is_file():
            if wanted is None or day_of(target) in {_as_day(d) for d in wanted}:
                files.append(target)
        else:
            raise NotFoundError(
                f"{target} does not exist; give a trace day file or a folder of them."
            )
    return sorted(dict.fromkeys(files), key=lambda p: (str(p.parent), p.name))


def parse_file(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
) -> tuple[pd.DataFrame, list[TraceLineError]]:
    """One file's events (sorted by `ts`) and its broken lines; the per-file parser of every reader."""
    parsed = _Parsed()
    target = Path(path)
    with _gc_paused():
        _parse_into(target, str(target), day_of(target), parsed, strict)
        return _frame(parsed, strict), parsed.errors


@overload
def read_trace(
    path_or_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    days: str | dt.date | Iterable[str | dt.date] | None = None,
    strict: Literal[False] = False,
) -> tuple[pd.DataFrame, list[TraceLineError]]: ...


@overload
def read_trace(
    path_or_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    days: str | dt.date | Iterable[str | dt.date] | None = None,
    strict: Literal[True],
) -> pd.DataFrame: ...


def read_trace(
    path_or_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    days: str | dt.date | Iterable[str | dt.date] | None = None,
    strict: bool = False,
) -> tuple[pd.DataFrame, list[TraceLineError]] | pd.DataFrame:
    """Read trace days into one events frame sorted by `ts` (ties in file and line order).

    Args:
        path_or_dir: a day file, a folder of day files (only `YYYY-MM-DD.jsonl` is read,
            TC-3), or a list of either.
        days: only these days (`"2026-11-28"` or dates): the day's file, not a UTC window (TC-2).
        strict: raise the first broken line instead of collecting it.

    Returns:
        With `strict=False`, `(events, errors)`: the frame (columns `EVENT_COLUMNS`) and one
        `TraceLineError` per broken line. With `strict=True`, the frame alone.

    Raises:
        NotFoundError: a path or an asked-for day is missing.
        TraceLineError: with `strict=True`, the first broken line.
    """
    day_list = None if days is None else ([days] if isinstance(days, str | dt.date) else list(days))
    parsed = _Parsed()
    with _gc_paused():
        for target in _files_of(path_or_dir, day_list):
            _parse_into(target, str(target), day_of(target), parsed, strict)
        events = _frame(parsed, strict)
    if strict:
        return events
    return events, parsed.errors


def trace_days(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """One row per day file of a folder: day, file, lines, events, broken, first and last `ts`."""
    records = []
    for path in day_files(directory):
        events, errors = parse_file(path)
        records.append(
            {
                "day": day_of(path),
                "file": str(path),
                "lines": len(events) + len(errors),
                "events": len(events),
                "broken": len(errors),
                "first": events["ts"].min() if len(events) else pd.NaT,
                "last": events["ts"].max() if len(events) else pd.NaT,
                "bytes": path.stat().st_size,
            }
        )
    frame = pd.DataFrame.from_records(
        records, columns=["day", "file", "lines", "events", "broken", "first", "last", "bytes"]
    )
    for name in ("first", "last"):
        frame[name] = pd.to_datetime(frame[name], utc=True).dt.as_unit("us")
    return frame
