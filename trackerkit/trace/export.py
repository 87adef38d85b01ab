"""Trace days out to other tools: Arrow tables and one Parquet file per day.

    >>> from trackerkit.trace.export import export_parquet     # doctest: +SKIP
    >>> written, errors = export_parquet("data/trace", "out")  # doctest: +SKIP

A table holds the seven fields of an event (`name` as the events frame has it, the full
`kind.name`), `data` as its JSON text, the `day` of the file it was read from (TC-2: per-day
totals follow the files, not UTC dates) and any columns extracted from `data`
(`read_trace(columns=...)`). DuckDB, Polars, pandas and Spark read the files as they are.

An extracted column keeps its type. One that pandas holds as Python objects is written so that
no value is lost: integers past 64 bits as `decimal128(38, 0)` (pandas reads them back as
`Decimal`, DuckDB as `DECIMAL(38,0)`), or as their digits in text when one passes 38 digits;
values Arrow cannot hold in one type (numbers and text mixed, say) as the JSON text of each.
A column typed by its values has one type in every file of an export, the type it has over all
the files together, so a folder of day files reads as one table.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from trackerkit._pieces import regular_target, replace_atomically
from trackerkit.errors import BadRequestError, TraceLineError
from trackerkit.trace._columns import SKIPPED, ColumnSpec
from trackerkit.trace._data import INFERRED, column_specs
from trackerkit.trace._lazy import LazyData, as_text
from trackerkit.trace.read import _files_of, day_of, read_trace

__all__ = ["EXPORT_FIELDS", "events_to_arrow", "export_parquet"]

EXPORT_FIELDS = ("ts", "turn", "session", "source", "kind", "name", "data", "day")
"""The columns every exported table starts with, in order; extracted columns follow."""


def _texts(values: pd.Series) -> Any:
    """The `data` column as Arrow strings: JSON text kept as it is, objects written as JSON."""
    if isinstance(values.dtype, pd.StringDtype) or values.dtype == "str":
        return pa.array(values.array, type=pa.large_string(), from_pandas=True)
    texts = [
        None
        if value is None
        else (value.to_json() if isinstance(value, LazyData) else as_text(value)).decode()
        for value in values.tolist()
    ]
    return pa.array(texts, type=pa.large_string())


_DECIMAL = pa.decimal128(38, 0)
_DECIMAL_MAX = 10**38  # decimal128(38, 0) holds up to 38 digits


def _extracted(values: pd.Series) -> tuple[Any, str]:
    """An extracted column as Arrow, every value kept (see the module's docstring), and how
    its values were written: `plain`, `decimal`, `digits` (integers as text) or `texts` (JSON)."""
    if values.dtype != object:
        return pa.Array.from_pandas(values), "plain"
    items = _items(values)
    present = [v for v in items if v is not None]
    integers = bool(present) and all(type(v) is int for v in present)
    if integers and any(not -(1 << 63) <= v < 1 << 63 for v in present):  # past int64
        if all(-_DECIMAL_MAX < v < _DECIMAL_MAX for v in present):
            return pa.array([None if v is None else Decimal(v) for v in items], _DECIMAL), "decimal"
        return pa.array([None if v is None else str(v) for v in items], pa.string()), "digits"
    try:
        return pa.array(items, from_pandas=True), "plain"
    except (
        pa.ArrowException,
        OverflowError,
        TypeError,
        ValueError,
    ):  # no one Arrow type holds them
        return _json_texts(items), "texts"


def _items(values: pd.Series) -> list[Any]:
    return [None if _missing(v) else v for v in values.tolist()]


def _json_texts(items: list[Any]) -> Any:
    return pa.array([None if v is None else as_text(v).decode() for v in items], type=pa.string())


def _extracted_like(values: pd.Series, like: tuple[Any, str]) -> Any:
    """A day's extracted column written as the same column over every day was (`like`: its
    Arrow type and how its values were written), so the files of one export agree."""
    kind, how = like
    if how == "texts":
        return _json_texts(_items(values))
    if how == "decimal":
        return pa.array([None if v is None else Decimal(v) for v in _items(values)], _DECIMAL)
    if how == "digits":
        return pa.array([None if v is None else str(v) for v in _items(values)], pa.string())
    array, _how = _extracted(values)  # lists the values once, only when it must
    # Only null to any type, or integers to floats (as one read of every day types them: an
    # integer past 2**53 becomes the nearest float, as it does in a day of both).
    if array.type == kind:
        return array
    try:
        return array.cast(kind, safe=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        # An object without some keys into the struct of every day's keys: older Arrow does
        # not cast it; built from the values, the missing keys are null.
        return pa.array(_items(values), type=kind, from_pandas=True)


def _missing(value: Any) -> bool:
    return (
        value is None
        or value is pd.NA
        or value is pd.NaT
        or (isinstance(value, float) and value != value)
    )


def _strings(values: pd.Series) -> Any:
    return pa.array(values.astype(object).where(values.notna(), None).tolist(), type=pa.string())


def events_to_arrow(events: pd.DataFrame) -> Any:
    """An events frame as a `pyarrow.Table`: `EXPORT_FIELDS`, then the frame's other columns.

    `data` becomes JSON text whatever it held (dicts, `LazyData` or text from `data="raw"`);
    columns extracted by `read_trace(columns=...)` keep their types, and an object column its
    values (integers past 64 bits as decimal or text, see the module). `file` and `line` are
    left out (the Parquet file is named for the day). A frame without `day` gets an empty one.
    JSON has no infinity: a dict's `1e400` (read as inf) is written as `null` in `data`, while
    `data="raw"` and `data="lazy"` frames keep the text as the file wrote it.

    Raises:
        BadRequestError: the frame lacks one of the seven fields.
    """
    return _table(events, {})


def _table(events: pd.DataFrame, like: dict[str, tuple[Any, str]]) -> Any:
    """The table of `events_to_arrow`; an extracted column named in `like` is written as
    that column over every day of an export was (`_extracted_like`)."""
    missing = [c for c in EXPORT_FIELDS[:7] if c not in events.columns]
    if missing:
        raise BadRequestError(
            f"the events frame has no {', '.join(missing)}; export a frame from read_trace "
            "(with data='raw' or dicts, not data='none')."
        )
    stamps = pd.to_datetime(events["ts"], utc=True).dt.as_unit("us")
    columns: dict[str, Any] = {"ts": pa.array(stamps, type=pa.timestamp("us", tz="UTC"))}
    for name in EXPORT_FIELDS[1:6]:
        columns[name] = _strings(events[name])
    columns["data"] = _texts(events["data"])
    day = events["day"] if "day" in events.columns else pd.Series([None] * len(events))
    columns["day"] = _strings(day)
    extra = [c for c in events.columns if c not in (*EXPORT_FIELDS, "file", "line")]
    for name in extra:
        values = events[name]
        columns[str(name)] = (
            _extracted_like(values, like[name]) if name in like else _extracted(values)[0]
        )
    return pa.table(columns)


def _export_kinds(files: list[Path], specs: list[ColumnSpec]) -> dict[str, tuple[Any, str]]:
    """How each column typed by its values is written in every file of an export: as that
    column over all the files together would be, so that no day's file gets a type of its own
    (`bool` on one day and JSON text on the next would stop DuckDB and pandas reading the
    folder). Found by reading the files once more for those columns alone."""
    inferred = [spec for spec in specs if spec.doc == INFERRED]
    if not inferred or len(files) < 2:
        return {}
    whole, _broken = read_trace(files, data="none", columns=inferred)
    found = {}
    for spec in inferred:
        array, how = _extracted(whole[spec.name])
        found[spec.name] = (array.type, how)
    return found


class _EmptyColumn(UserWarning):
    """A column asked for whose path no event's data has: the column is all null (the command
    says so on standard error, apart from the notes on what was written)."""


_ABSENT = object()


def _absent_paths(files: list[Path], specs: list[ColumnSpec]) -> list[ColumnSpec]:
    """Those of `specs` whose path no event of `files` has (a `null` there is having it).

    Reads the files once more for those paths alone, each with a default that no JSON value is.
    """
    if not specs:
        return []
    probes = [ColumnSpec(spec.name, spec.path, "object", _ABSENT) for spec in specs]
    found, _broken = read_trace(files, data="none", columns=probes)
    return [spec for spec in specs if all(v is _ABSENT for v in found[spec.name].tolist())]


def _absent_sentence(spec: ColumnSpec) -> str:
    named = "" if spec.name == spec.path else f" {spec.name!r}"
    return f"no event's data has the path {spec.path!r}; its column{named} is empty"


def export_parquet(
    path_or_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    columns: Sequence[str | ColumnSpec] | None = None,
    days: Sequence[str] | None = None,
) -> tuple[list[tuple[Path, int]], list[TraceLineError]]:
    """Each trace day as `OUT/YYYY-MM-DD.parquet` (a file not named for a day: its own name).

    Args:
        path_or_dir: what `read_trace` reads: a day file, a folder of them, or a list.
        out: the folder to write to (made when missing; files of the same days are replaced).
        columns: paths into `data` to add as typed columns (see `read_trace`).
        days: only these days.

    `data` is the file's own text, so a number such as `1e400` stays as written; an extracted
    column keeps its values (integers past 64 bits as decimal or text, inf as inf). A typed
    column's values of another kind are written as its default (null unless the spec sets one):
    a `UserWarning` counts them by path, as `read_trace` counts them in `attrs["skipped"]`.
    A column whose path no event's data has is all null, and a `UserWarning` says so by path
    (found by reading the files once more for such paths alone, only when a column is empty).

    Returns:
        The files written with their rows, and the broken lines left out (TC-19).

    Raises:
        NotFoundError: a path or an asked-for day is missing.
        BadRequestError: `out` is a file, a column request is bad, or two files are of one day
            (from two folders: one file a day is written).
    """
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise BadRequestError(
            f"{folder} is a file; --parquet takes a folder to write one file per day into."
        )
    specs = column_specs(columns) if columns is not None else []  # refused before any write
    files = _files_of(path_or_dir, days)
    # Every target is checked before the first write: a FIFO or a device at a day's name is
    # refused up front (it would hang the writer, or swallow the rows).
    targets = [regular_target(folder / f"{day_of(f) or f.stem}.parquet") for f in files]
    twice = [t for t in dict.fromkeys(targets) if targets.count(t) > 1]
    if twice:  # one file a day: the second would be written over the first, its rows lost
        sources = [str(f) for f, t in zip(files, targets, strict=True) if t == twice[0]]
        raise BadRequestError(
            f"{len(sources)} files would be written to {twice[0]}: {', '.join(sources)}; "
            "a day is one file in the export, so export each folder to a folder of its own."
        )
    folder.mkdir(parents=True, exist_ok=True)
    written: list[tuple[Path, int]] = []
    errors: list[TraceLineError] = []
    lost: Counter[str] = Counter()
    like = _export_kinds(files, specs)
    empty = {spec.name for spec in specs}
    for source, target in zip(files, targets, strict=True):
        events, broken = read_trace(source, data="raw", columns=columns)
        errors.extend(broken)
        lost.update(events.attrs.get(SKIPPED, {}))
        empty -= {name for name in empty if events[name].notna().any()}
        table = _table(events, like)
        try:
            # Through a temporary renamed over the day's file: a failed write keeps the old one.
            replace_atomically(target, partial(pq.write_table, table))
        except OSError as exc:
            done = f"; {len(written)} day file(s) were written before it" if written else ""
            raise OSError(
                exc.errno,
                f"cannot write {target}: {exc.strerror or exc}; the file there before is kept{done}",
            ) from exc
        written.append((target, len(events)))
    if lost:
        where = ", ".join(f"{path} {count}" for path, count in sorted(lost.items()))
        warnings.warn(
            f"{lost.total()} value(s) not of their column's type were written as the column's "
            f"default (null unless its spec sets one), by path: {where}",
            UserWarning,
            stacklevel=2,
        )
    for spec in _absent_paths(files, [s for s in specs if s.name in empty]):
        warnings.warn(_absent_sentence(spec), _EmptyColumn, stacklevel=2)
    return written, errors
