"""Reading trace journals past one machine with Dask (the optional `dask` extra).

    pip install 'trackerkit[dask]'

`read_trace_dask` builds a Dask DataFrame with `dask.dataframe.from_map`: one partition per
installation folder, so a turn that crosses midnight (two day files) stays in one partition
and `assemble_turns_dask` can put turns together per partition with `map_partitions`. Each
partition is read by the same parser as `read_trace`; the `meta` is explicit.

This module is not imported by `trackerkit.trace`.
"""

from __future__ import annotations

import glob
import os
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import dask
import dask.dataframe as dd
import pandas as pd
from dask.dataframe.utils import UNKNOWN_CATEGORIES

from trackerkit.errors import NotFoundError
from trackerkit.trace._columns import empty_frame
from trackerkit.trace.read import EVENT_COLUMNS, day_files, day_of, read_trace
from trackerkit.trace.turns import TURN_COLUMNS, assemble_turns

__all__ = ["assemble_turns_dask", "events_meta", "read_trace_dask", "turns_meta"]


def events_meta() -> pd.DataFrame:
    """The empty events frame Dask is told to expect (categoricals with unknown categories)."""
    meta = empty_frame(EVENT_COLUMNS)
    for spec in EVENT_COLUMNS:
        if spec.type == "category":
            meta[spec.name] = pd.Categorical([], categories=[UNKNOWN_CATEGORIES])
    return meta


def turns_meta() -> pd.DataFrame:
    """The empty turns frame `assemble_turns_dask` promises."""
    return empty_frame(TURN_COLUMNS)


def _identity(path: Path) -> tuple[int, int]:
    place = path.stat()
    return place.st_dev, place.st_ino


def _folders(
    paths_or_glob: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
) -> list[tuple[str, ...]]:
    """Day files grouped by installation folder, each group oldest first."""
    if isinstance(paths_or_glob, str | os.PathLike):
        text = os.fspath(paths_or_glob)
        targets = (
            [Path(p) for p in sorted(glob.glob(text))] if glob.has_magic(text) else [Path(text)]
        )
    else:
        targets = [Path(p) for p in paths_or_glob]
    # Grouped by the folder's identity and each file read once, however they are named
    # (relative, `..`, a link, a folder and one of its files): a file read twice would count
    # its events twice.
    groups: dict[tuple[int, int], list[Path]] = defaultdict(list)
    seen: set[tuple[int, int]] = set()
    for target in targets:
        if target.is_dir():
            files = day_files(target)
        elif target.is_file() and day_of(target) is not None:
            files = [target]
        elif not target.exists():
            raise NotFoundError(
                f"{target} does not exist; give trace folders, day files or a glob."
            )
        else:
            continue
        for file in files:
            if (key := _identity(file)) not in seen:
                seen.add(key)
                groups[_identity(file.resolve().parent)].append(file)
    folders = [
        tuple(str(p) for p in sorted(files, key=lambda p: p.name))
        for files in sorted(groups.values(), key=lambda files: str(files[0].parent))
    ]
    if not folders:
        raise NotFoundError(f"no trace day files match {paths_or_glob!r}.")
    return folders


def _read_partition(files: tuple[str, ...], strict: bool) -> pd.DataFrame:
    if strict:
        return read_trace(list(files), strict=True)
    events, _errors = read_trace(list(files))
    return events


def read_trace_dask(
    paths_or_glob: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    strict: bool = False,
) -> Any:
    """A Dask DataFrame of trace events, one partition per installation folder.

    Args:
        paths_or_glob: folders, day files, or a glob such as `"installs/*/trace"`.
        strict: raise the first broken line when the partition is computed; otherwise
            broken lines are skipped (`trace_days` counts them).

    Returns:
        A `dask.dataframe.DataFrame` with the columns of `read_trace`, sorted by `ts` within
        each partition.
    """
    folders = _folders(paths_or_glob)
    with dask.config.set({"dataframe.convert-string": False}):  # `data` holds dicts, not text
        return dd.from_map(  # type: ignore[no-untyped-call]
            _read_partition, folders, strict=strict, meta=events_meta(), label="read-trace",
            enforce_metadata=False,
        )  # fmt: skip


def assemble_turns_dask(events: Any) -> Any:
    """The turns of every partition (`assemble_turns` via `map_partitions`), as a Dask DataFrame."""
    with dask.config.set({"dataframe.convert-string": False}):
        return events.map_partitions(assemble_turns, meta=turns_meta())
