"""Reading trace days into pandas: tolerant of broken lines, fast, sorted by `ts`.

A trace day is `YYYY-MM-DD.jsonl`, one JSON object per line with exactly seven fields in
order (TC-4). `read_trace` turns one file, a folder of day files or a list of either into
one events frame; a broken line never spoils its neighbours (TC-19): it is reported as a
`TraceLineError(file, line, reason)` and every other line is kept.

Speed (`_lines.py`): each file is read in blocks of about a megabyte, and one `msgspec` call per
block checks the JSON syntax of its lines and leaves `data` as raw bytes; a block in the writer's
compact form is proven so by numpy checks on its bytes and one Arrow match of its distinct key
spans (lines that are not are read one by one). The five key fields are interned (`_keys.py`),
so categoricals are built from the distinct keys; `data` is kept as `_data.py` says: dicts (one
msgspec call per block), JSON text (an Arrow string column), `LazyData`, or chosen paths; `ts`
in the writer's form is parsed by numpy in one go (`_stamps.py`), others by pandas. Every path
reads `data` alike: integers exact at any size, as Python's `json` reads them. The garbage
collector is paused while the objects are built (and put back as it was, even on an error),
and what was built is handed to its oldest generation, so no young collection walks a million
dicts afterwards (`_gc_paused`).
"""

from __future__ import annotations

import datetime as dt
import gc
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, overload

import pandas as pd
from tqdm import tqdm

from trackerkit.errors import BadRequestError, NotFoundError, TraceLineError
from trackerkit.trace._columns import SKIPPED, ColumnSpec
from trackerkit.trace._data import DataMode, Paths, column_specs
from trackerkit.trace._data import keeper as keeper_of
from trackerkit.trace._events_frame import EVENT_COLUMNS, _frame
from trackerkit.trace._lines import FIELDS, Parsed, parse_into

__all__ = [
    "EVENT_COLUMNS",
    "FIELDS",
    "PROGRESS_BYTES",
    "day_files",
    "day_of",
    "parse_file",
    "read_trace",
    "trace_days",
    "trace_subfolder_hint",
]

PROGRESS_BYTES = 256 * 1024 * 1024
"""`read_trace` shows a progress bar by default from this many bytes (on a terminal)."""

# Matched in full: `$` would also match before a final newline (`2000-01-01.jsonl\n`).
_DAY_FILE = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})\.jsonl")


def day_of(path: str | os.PathLike[str]) -> str | None:
    """The day a file is named for (`2026-11-28` for `2026-11-28.jsonl`), or None (TC-3).

    Only a name that is exactly `YYYY-MM-DD.jsonl` with a real date names a day: the writer's
    retention deletes such files only, and a folder read takes only them.
    """
    match = _DAY_FILE.fullmatch(Path(path).name)
    if match is None:
        return None
    try:
        dt.date.fromisoformat(match.group(1))
    except ValueError:
        return None
    return match.group(1)


def _as_day(value: str | dt.date) -> str:
    if isinstance(value, dt.datetime):  # a moment (pandas' Timestamp too): its date names the day
        return value.date().isoformat()
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
    found = _days_in(folder)
    if not found and (hint := trace_subfolder_hint(folder)):
        raise NotFoundError(f"{folder} holds no trace day files; {hint}")
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


def _days_in(folder: Path) -> dict[str, Path]:
    return {day: p for p in folder.iterdir() if (day := day_of(p)) is not None and p.is_file()}


def trace_subfolder_hint(folder: str | os.PathLike[str]) -> str:
    """What to read instead when `folder` is a data folder whose days are in its `trace/`
    (the contract's `ASSISTANT_DATA_DIR/trace/`): a sentence naming it, else "".

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as data:
    ...     (Path(data) / "trace").mkdir()
    ...     _ = (Path(data) / "trace" / "2026-11-28.jsonl").write_text("")
    ...     print(trace_subfolder_hint(data).replace(data, "DATA"))
    its trace/ folder holds 1 day file: read DATA/trace, the folder of the days.
    """
    inner = Path(folder) / "trace"
    try:
        count = len(_days_in(inner)) if inner.is_dir() else 0
    except OSError:  # not readable: nothing to point at
        return ""
    if not count:
        return ""
    files = "day file" if count == 1 else "day files"
    return f"its trace/ folder holds {count} {files}: read {inner}, the folder of the days."


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The collector paused while the objects are built, and put back as it was, even on error.

    Pausing alone only defers the work: every object built meanwhile is still in the youngest
    generation, and the first collection after `gc.enable()` would walk them all (a million
    dicts: most of a second). So they are moved to the oldest generation first, as if they had
    survived the collections the pause skipped (`gc.freeze()` then `gc.unfreeze()`; both only
    relink lists). That is skipped when the program froze objects itself, which `unfreeze`
    would thaw.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _label(path: Path) -> str:
    """A file's name as the frame and the errors show it: bytes of the name that are not UTF-8
    (a folder named on another system) as `\\xff` escapes, which any string column holds."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


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
            found = "is not a regular file or folder" if target.exists() else "does not exist"
            raise NotFoundError(f"{target} {found}; give a trace day file or a folder of them.")
    # One read a file, however it is named (relative, `..`, a link): the first name is kept.
    once: dict[tuple[int, int], Path] = {}
    for file in files:
        place = file.stat()
        once.setdefault((place.st_dev, place.st_ino), file)
    return sorted(once.values(), key=lambda p: (str(p.parent), p.name))


def _parsed(data: DataMode | None, columns: Sequence[str | ColumnSpec] | None) -> Parsed:
    """An empty `Parsed` whose keepers keep `data` as asked, and the `columns=` paths."""
    mode: DataMode = data if data is not None else ("dict" if columns is None else "none")
    keepers = [keeper_of(mode)]
    if columns is not None:
        specs = column_specs(columns)
        # `data` too when it is not kept: the turns and every reader of events take a `data`
        # column for the events' data, and a path's values under that name would be misread.
        taken = {spec.name for spec in EVENT_COLUMNS}
        clash = sorted(taken & {spec.name for spec in specs})
        if clash:
            raise BadRequestError(
                f"a column named {', '.join(map(repr, clash))} is asked for, and the events "
                "frame has one already; give the column another name (NAME=PATH on the command "
                "line, ColumnSpec(NAME, PATH, TYPE) in Python)."
            )
        keepers.append(Paths(specs))
    return Parsed(keepers=keepers)


def _finish(parsed: Parsed, events: pd.DataFrame) -> pd.DataFrame:
    """The frame with what the `columns=` paths skipped in `attrs["skipped"]`."""
    for kept in parsed.keepers:
        if isinstance(kept, Paths):
            events.attrs[SKIPPED] = dict(sorted(kept.skipped.items()))
    return events


def parse_file(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    data: DataMode | None = None,
    columns: Sequence[str | ColumnSpec] | None = None,
) -> tuple[pd.DataFrame, list[TraceLineError]]:
    """One file's events (sorted by `ts`) and its broken lines; the per-file parser of every reader."""
    parsed = _parsed(data, columns)
    target = Path(path)
    with _gc_paused():
        parse_into(target, _label(target), day_of(target), parsed)
        events = _finish(parsed, _frame(parsed))
    if strict and parsed.errors:
        raise parsed.errors[0]
    return events, parsed.errors


@overload
def read_trace(
    path_or_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    days: str | dt.date | Iterable[str | dt.date] | None = None,
    strict: Literal[False] = False,
    progress: bool | None = None,
    data: DataMode | None = None,
    columns: Sequence[str | ColumnSpec] | None = None,
) -> tuple[pd.DataFrame, list[TraceLineError]]: ...


@overload
def read_trace(
    path_or_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    days: str | dt.date | Iterable[str | dt.date] | None = None,
    strict: Literal[True],
    progress: bool | None = None,
    data: DataMode | None = None,
    columns: Sequence[str | ColumnSpec] | None = None,
) -> pd.DataFrame: ...


def read_trace(
    path_or_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    days: str | dt.date | Iterable[str | dt.date] | None = None,
    strict: bool = False,
    progress: bool | None = None,
    data: DataMode | None = None,
    columns: Sequence[str | ColumnSpec] | None = None,
) -> tuple[pd.DataFrame, list[TraceLineError]] | pd.DataFrame:
    """Read trace days into one events frame sorted by `ts` (ties in file and line order).

    Args:
        path_or_dir: a day file, a folder of day files (only `YYYY-MM-DD.jsonl` is read,
            TC-3), or a list of either.
        days: only these days (`"2026-11-28"` or dates): the day's file, not a UTC window (TC-2).
            A turn begun the day before is cut (its turns row says `started` False), and one
            running past midnight is open: `read_day_turns` gives the day's turns whole.
        strict: raise the first broken line (in file and line order) instead of returning the
            errors; every line is read first, as a `ts` that names no moment shows only then.
        progress: a progress bar (bytes read) on standard error; by default shown only when
            the files hold at least `PROGRESS_BYTES` and standard error is a terminal.
        data: what the `data` column holds. `"dict"` (the default): plain dicts.
            `"raw"`: the JSON text as written, an Arrow-backed `str` column (lean, Parquet-ready;
            `json.loads` gives the dict, but refuses an integer of more than 4,300 digits, which
            `"dict"` reads as ±inf: call `sys.set_int_max_str_digits(0)` first to read it
            exactly). `"lazy"`: `LazyData`, a read-only mapping decoded
            on first use, which is NOT a dict (`json.dumps` and `isinstance(x, dict)` refuse
            it). `"none"`: no `data` column. With `columns=` the default is `"none"`.
        columns: paths into `data` to extract as typed columns after `day`, e.g.
            `["usage.in", "usage.costUsd"]` (a column named by its path, typed by its values)
            or `ColumnSpec("cost", "usage.costUsd", "float")` (named and typed; values of another
            kind become its default, counted by path in `attrs["skipped"]`).

    Returns:
        With `strict=False`, `(events, errors)`: the frame (columns `EVENT_COLUMNS`) and one
        `TraceLineError` per broken line. With `strict=True`, the frame alone. Every `data`
        mode reads the same lines and refuses the same ones. `name` is the full `kind.name`
        (`eve.step.completed` for a line of kind `eve` and name `step.completed`), as the
        contract's catalogue names events: filter on `name == "eve.step.completed"`.

    Raises:
        NotFoundError: a path or an asked-for day is missing.
        BadRequestError: an unknown `data` mode, an empty path or a clash of column names.
        TraceLineError: with `strict=True`, the first broken line.
    """
    parsed = _parsed(data, columns)
    day_list = None if days is None else ([days] if isinstance(days, str | dt.date) else list(days))
    files = _files_of(path_or_dir, day_list)
    total = sum(path.stat().st_size for path in files)
    if progress is None:  # None: tqdm shows it on a terminal only
        hidden: bool | None = None if total >= PROGRESS_BYTES else True
    else:
        hidden = not progress
    with (
        tqdm(
            total=total,
            desc="reading trace",
            unit="B",
            unit_scale=True,
            unit_divisor=1024,
            leave=False,
            file=sys.stderr,
            disable=hidden,
        ) as bar,
        _gc_paused(),
    ):
        for target in files:
            parse_into(target, _label(target), day_of(target), parsed, bar.update)
        events = _finish(parsed, _frame(parsed))
    if strict:
        if parsed.errors:  # the first in file and line order (a bad `ts` shows only at the end)
            raise parsed.errors[0]
        return events
    return events, parsed.errors


def trace_days(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """One row per day file of a folder: day, file, lines, events, broken, first and last `ts`.

    Each file is read without its `data` (`data="none"`: the same lines read and refused as in
    every mode, no dict built), so listing a month of days costs a third of reading them.
    """
    records = []
    for path in day_files(directory):
        events, errors = parse_file(path, data="none")
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
