"""Trace days out to other tools: Arrow tables and one Parquet file per day.

    >>> from trackerkit.trace.export import export_parquet     # doctest: +SKIP
    >>> written, errors = export_parquet("data/trace", "out")  # doctest: +SKIP

A table holds the seven fields of an event (`name` as the events frame has it, the full
`kind.name`), `data` as its JSON text, the `day` of the file it was read from (TC-2: per-day
totals follow the files, not UTC dates) and any columns extracted from `data`
(`read_trace(columns=...)`). DuckDB, Polars, pandas and Spark read the files as they are.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from trackerkit.errors import BadRequestError, TraceLineError
from trackerkit.trace._columns import ColumnSpec
from trackerkit.trace._data import as_text, column_specs
from trackerkit.trace._lazy import LazyData
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


def _strings(values: pd.Series) -> Any:
    return pa.array(values.astype(object).where(values.notna(), None).tolist(), type=pa.string())


def events_to_arrow(events: pd.DataFrame) -> Any:
    """An events frame as a `pyarrow.Table`: `EXPORT_FIELDS`, then the frame's other columns.

    `data` becomes JSON text whatever it held (dicts, `LazyData` or text from `data="raw"`);
    columns extracted by `read_trace(columns=...)` keep their types. `file` and `line` are left
    out (the Parquet file is named for the day). A frame without `day` gets an empty one.

    Raises:
        BadRequestError: the frame lacks one of the seven fields.
    """
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
        columns[str(name)] = pa.Array.from_pandas(events[name])
    return pa.table(columns)


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

    Returns:
        The files written with their rows, and the broken lines left out (TC-19).

    Raises:
        NotFoundError: a path or an asked-for day is missing.
        BadRequestError: `out` is a file, or a column request is bad.
    """
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise BadRequestError(
            f"{folder} is a file; --parquet takes a folder to write one file per day into."
        )
    if columns is not None:
        column_specs(columns)  # a bad request is refused before anything is written
    files = _files_of(path_or_dir, days)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[tuple[Path, int]] = []
    errors: list[TraceLineError] = []
    for source in files:
        events, broken = read_trace(source, data="raw", columns=columns)
        errors.extend(broken)
        target = folder / f"{day_of(source) or source.stem}.parquet"
        pq.write_table(events_to_arrow(events), target)
        written.append((target, len(events)))
    return written, errors
