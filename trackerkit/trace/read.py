"""Reading trace days into pandas: tolerant of broken lines, fast, sorted by `ts`.

A trace day is `YYYY-MM-DD.jsonl`, one JSON object per line with exactly seven fields in
order (TC-4). `read_trace` turns one file, a folder of day files or a list of either into
one events frame; a broken line never spoils its neighbours (TC-19): it is reported as a
`TraceLineError(file, line, reason)` and every other line is kept.

Speed (`_lines.py`): each file is read once as bytes lines; one `msgspec` decode per line checks
its JSON syntax and leaves `data` as raw bytes; the five string fields are interned by the bytes
that hold them; `data` becomes a `LazyData`, a read-only mapping decoded on first use (so a frame
of a million events costs no million dicts). `ts` in the writer's form is parsed by numpy in one
go, others by pandas. The garbage collector is paused while the objects are built.
"""

from __future__ import annotations

import datetime as dt
import gc
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain, compress
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np
import pandas as pd

from trackerkit.errors import NotFoundError, TraceLineError
from trackerkit.trace._columns import ColumnSpec, empty_frame
from trackerkit.trace._lines import FIELDS, Parsed, parse_into

__all__ = [
    "EVENT_COLUMNS",
    "FIELDS",
    "day_files",
    "day_of",
    "parse_file",
    "read_trace",
    "trace_days",
]

EVENT_COLUMNS: list[ColumnSpec] = [
    ColumnSpec("ts", "ts", "datetime", doc="the moment of writing, UTC (TC-4)"),
    ColumnSpec("turn", "turn", "category", "", doc="turn key: tg:…, turn_N[#node] or empty (TC-8)"),
    ColumnSpec("session", "session", "category", "", doc="eve session, empty before a turn starts"),
    ColumnSpec("source", "source", "category", doc="telegram, bridge, web, http, rollup, …"),
    ColumnSpec(
        "kind", "kind", "category", doc="bridge, inbound, gate, context, turn, eve, outbox, stop"
    ),
    ColumnSpec("name", "name", "category", doc="the full `kind.name` (`eve.step.completed`)"),
    ColumnSpec(
        "data", "data", "object", doc="the event's data: a LazyData mapping (a dict on use)"
    ),
    ColumnSpec("file", "@file", "category", doc="the day file the line was read from"),
    ColumnSpec("line", "@line", "int", doc="the 1-based line number in that file"),
    ColumnSpec("day", "@day", "category", doc="the file's day (installation time zone, TC-2)"),
]
"""The columns of the events frame `read_trace` returns, in order."""

_DAY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.jsonl$")
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


def _bad_rows(parsed: Parsed, codes: np.ndarray[Any, Any]) -> dict[int, str]:
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


# The writer's form, `2026-11-28T10:00:00.123Z`: 24 characters, digits between the marks.
_STAMP_WIDTH = 24
_STAMP_MARKS = {4: b"-", 7: b"-", 10: b"T", 13: b":", 16: b":", 19: b".", 23: b"Z"}
_STAMP_DIGITS = [i for i in range(_STAMP_WIDTH) if i not in _STAMP_MARKS]


def _compact_stamps(raw: list[Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None:
    """The `ts` in the writer's form parsed by numpy: (microseconds, mask of rows parsed).

    None when numpy refuses one (a day or an hour out of range): pandas then reads them all.
    """
    try:
        joined = "".join(raw).encode("ascii")
        uniform = len(joined) == len(raw) * _STAMP_WIDTH
    except (TypeError, UnicodeEncodeError):  # a value that is not a string, or not ASCII
        uniform = False
    if uniform:
        fits = np.ones(len(raw), dtype=bool)
    else:
        try:
            lengths = np.fromiter(map(len, raw), dtype=np.int64, count=len(raw))
            fits = lengths == _STAMP_WIDTH
            joined = "".join(compress(raw, fits.tolist())).encode("ascii")
        except (TypeError, UnicodeEncodeError):  # not all strings, or not all ASCII
            fits = np.fromiter(
                (type(v) is str and len(v) == _STAMP_WIDTH and v.isascii() for v in raw),
                dtype=bool,
                count=len(raw),
            )
            joined = "".join(compress(raw, fits.tolist())).encode("ascii")
    grid = np.frombuffer(joined, dtype=np.uint8).reshape(-1, _STAMP_WIDTH)
    marks = np.frombuffer(b"".join(_STAMP_MARKS.values()), dtype=np.uint8)
    digits = grid[:, _STAMP_DIGITS]
    shaped = (grid[:, list(_STAMP_MARKS)] == marks).all(axis=1) & (
        (digits >= ord("0")) & (digits <= ord("9"))
    ).all(axis=1)
    text = np.ascontiguousarray(grid[shaped, :23]).view("S23").ravel()
    try:
        moments = text.astype("datetime64[ms]").astype("datetime64[us]").view(np.int64)
    except ValueError:  # numpy refuses a day or an hour out of range
        return None
    fits[np.flatnonzero(fits)[~shaped]] = False
    return moments, fits


def _stamps(parsed: Parsed, bad: dict[int, str]) -> pd.DatetimeIndex:
    """`ts` as UTC times; rows whose `ts` is not an ISO-8601 string join `bad`."""
    values = parsed.stamps
    parsed.stamps = []
    micros = np.empty(len(values), dtype=np.int64)
    compact = _compact_stamps(values)
    if compact is None:
        rest = np.arange(len(values))
    else:
        micros[compact[1]] = compact[0]
        rest = np.flatnonzero(~compact[1])
    if len(rest):  # other forms (offsets, other precisions) and broken values: pandas
        raw = [values[row] for row in rest.tolist()]
        for row, value in zip(rest.tolist(), raw, strict=True):
            if type(value) is not str:
                bad.setdefault(row, f"field ts is a {type(value).__name__}, not a string")
        texts: list[Any] = [v if type(v) is str else None for v in raw]
        parsed_rest = pd.to_datetime(texts, utc=True, format="ISO8601", errors="coerce")
        for missing in np.flatnonzero(pd.isna(parsed_rest)).tolist():
            row = int(rest[missing])
            bad.setdefault(row, f"field ts {values[row]!r} is not an ISO-8601 time")
        micros[rest] = pd.DatetimeIndex(parsed_rest).as_unit("us").asi8
    return pd.DatetimeIndex(micros.view("datetime64[us]")).tz_localize("UTC")


def _drop_rows(
    parsed: Parsed, lines: np.ndarray[Any, Any], bad: dict[int, str], strict: bool
) -> np.ndarray[Any, Any]:
    """Move rows with bad values to the errors; returns the mask of rows kept."""
    owners = np.repeat(np.arange(len(parsed.files)), [n for _f, _d, n in parsed.files])
    labels = [f for f, _d, _n in parsed.files]
    found = [
        TraceLineError(labels[owners[row]], int(lines[row]), why)
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
    parsed.data = [v for v, k in zip(parsed.data, keep.tolist(), strict=True) if k]
    return keep


def _from_codes(codes: np.ndarray[Any, Any], labels: Sequence[Any]) -> pd.Categorical:
    """A categorical from codes into `labels` (sorted, de-duplicated; non-strings missing)."""
    array = np.empty(len(labels), dtype=object)
    array[:] = labels
    found, uniques = pd.factorize(array, use_na_sentinel=True)
    distinct = np.asarray(uniques, dtype=object)
    strings = np.fromiter((type(v) is str for v in distinct), dtype=bool, count=len(distinct))
    names = distinct[strings]
    order = np.argsort(names, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    position = np.full(len(distinct), -1, dtype=np.int64)
    position[strings] = rank
    remap = np.full(len(found) + 1, -1, dtype=np.int64)  # the last slot: code -1 stays -1
    named = np.flatnonzero(found >= 0)
    remap[named] = position[found[named]]
    return pd.Categorical.from_codes(remap[codes], categories=pd.Index(names[order], dtype="str"))


def _full_names(kinds: Sequence[Any], names: Sequence[Any]) -> list[str | None]:
    """`kind.name` of each key (the name as written when it already starts with its kind)."""
    full: dict[tuple[Any, Any], str | None] = {}
    for kind, name in dict.fromkeys(zip(kinds, names, strict=True)):
        if type(kind) is str and type(name) is str:
            full[kind, name] = name if name.startswith(kind + ".") else f"{kind}.{name}"
        else:
            full[kind, name] = None
    return list(map(full.__getitem__, zip(kinds, names, strict=True)))


def _frame(parsed: Parsed, strict: bool) -> pd.DataFrame:
    """The events frame of everything parsed, sorted by `ts` (TC-21)."""
    codes = np.fromiter(parsed.keys, dtype=np.int64, count=len(parsed.keys))
    parsed.keys = []
    lines = parsed.line_numbers()
    bad = _bad_rows(parsed, codes)
    stamps = _stamps(parsed, bad)
    if bad:
        keep = _drop_rows(parsed, lines, bad, strict)
        codes, stamps, lines = codes[keep], stamps[keep], lines[keep]
    if not len(lines):
        return empty_frame(EVENT_COLUMNS)
    table = list(parsed.table)  # insertion order is code order
    file_codes = np.repeat(np.arange(len(parsed.files)), [n for _f, _d, n in parsed.files])

    fields = list(zip(*table, strict=True))

    def field_column(index: int) -> pd.Categorical:
        return _from_codes(codes, fields[index])

    # fromiter: assigning a list would make numpy ask each mapping its length (a decode).
    data = np.fromiter(parsed.data, dtype=object, count=len(parsed.data))
    parsed.data = []
    frame = pd.DataFrame(
        {
            "ts": stamps,
            "turn": field_column(0),
            "session": field_column(1),
            "source": field_column(2),
            "kind": field_column(3),
            "name": _from_codes(codes, _full_names(fields[3], fields[4])),
            "data": pd.Series(data, dtype=object),
            "file": _from_codes(file_codes, [f for f, _d, _n in parsed.files]),
            "line": pd.array(lines, dtype="Int64"),
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
    parsed = Parsed()
    target = Path(path)
    with _gc_paused():
        parse_into(target, str(target), day_of(target), parsed, strict)
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
    parsed = Parsed()
    with _gc_paused():
        for target in _files_of(path_or_dir, day_list):
            parse_into(target, str(target), day_of(target), parsed, strict)
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
