"""The events frame `read_trace` returns, made from what the blocks parsed (`_lines.Parsed`).

Its columns (`EVENT_COLUMNS`); rows whose key fields hold other kinds than strings moved to the
errors (`_bad_rows`, `_drop_rows`); the five key fields as categoricals built from the distinct
keys (`_key_columns`), the full `kind.name` from the distinct pairs; and the rows sorted by `ts`,
ties in line order (TC-21).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed
import pyarrow.compute as pc  # type: ignore[import-untyped]

from trackerkit.errors import TraceLineError
from trackerkit.trace._columns import ColumnSpec, empty_frame
from trackerkit.trace._lines import Parsed

__all__ = ["EVENT_COLUMNS"]  # and `_frame`, for the reader (`read.py`) only

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
        "data", "data", "object", doc="the event's data: a dict (JSON text with data='raw')"
    ),
    ColumnSpec("file", "@file", "category", doc="the day file the line was read from"),
    ColumnSpec("line", "@line", "int", doc="the 1-based line number in that file"),
    ColumnSpec("day", "@day", "category", doc="the file's day (installation time zone, TC-2)"),
]
"""The columns of the events frame `read_trace` returns, in order."""

_STRING_FIELDS = ("turn", "session", "source", "kind", "name")


def _bad_rows(parsed: Parsed, codes: np.ndarray[Any, Any]) -> dict[int, str]:
    """Rows whose values have the wrong kinds, with the reason (checked on distinct keys)."""
    bad: dict[int, str] = {}
    if parsed.table.plain:
        return bad
    wrong: dict[int, str] = {-1: "a field that must be a string holds a list or an object"}
    for key, code in parsed.table.items():  # after the blocks' keys, which are all strings
        for name, value in zip(_STRING_FIELDS, key, strict=True):
            if type(value) is not str:
                wrong[code + parsed.block_keys] = (
                    f"field {name} is a {type(value).__name__}, not a string"
                )
                break
    for row in np.flatnonzero(np.isin(codes, list(wrong))).tolist():
        bad[row] = wrong[int(codes[row])]
    return bad


def _drop_rows(
    parsed: Parsed, lines: np.ndarray[Any, Any], bad: dict[int, str]
) -> np.ndarray[Any, Any]:
    """Move rows with bad values to the errors; returns the mask of rows kept."""
    owners = np.repeat(np.arange(len(parsed.files)), [n for _f, _d, n in parsed.files])
    labels = [f for f, _d, _n in parsed.files]
    found = [
        TraceLineError(labels[owners[row]], int(lines[row]), why)
        for row, why in sorted(bad.items())
    ]
    parsed.errors.extend(found)
    parsed.errors.sort(key=lambda e: (e.file, e.line))
    keep = np.ones(len(owners), dtype=bool)
    keep[list(bad)] = False
    lost = np.bincount(owners[~keep], minlength=len(parsed.files))
    parsed.files = [(f, d, n - int(lost[i])) for i, (f, d, n) in enumerate(parsed.files)]
    mask = keep.tolist()
    for keeper in parsed.keepers:
        keeper.keep(mask)
    return keep


def _ranked(values: Any) -> tuple[np.ndarray[Any, Any], pd.Index]:
    """Each value's code into the sorted distinct values (-1 for None), and those values.

    `values`: strings (or None), as a list or an Arrow array. Arrow encodes and sorts them
    (UTF-8 bytes sort as code points do, as Python sorts strings).
    """
    if not isinstance(values, pa.Array):
        values = pa.array(list(values), type=pa.large_string())
    encoded = pc.dictionary_encode(values)
    order = pc.array_sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order) + 1, dtype=np.int64)  # the last slot: None stays -1
    rank[order] = np.arange(len(order))
    rank[-1] = -1
    codes = rank[pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)]
    return codes, pd.Index(encoded.dictionary.take(pa.array(order)), dtype="str")


def _categorical(codes: np.ndarray[Any, Any], labels: Sequence[Any]) -> pd.Categorical:
    """`labels[codes]` as a categorical over the sorted distinct labels (None is missing)."""
    ranked, categories = _ranked(labels)
    return pd.Categorical.from_codes(ranked[codes], categories=categories, validate=False)


def _key_columns(parsed: Parsed, codes: np.ndarray[Any, Any]) -> dict[str, pd.Categorical]:
    """turn, session, source, kind and the full name as categoricals, from the keys' codes.

    Every row left has a key of five strings (rows with others went to the errors); values of
    keys no row uses (learned from lines later refused) give no categories. Categories come from
    each field's distinct values, the full names from the distinct (kind, name) pairs.
    """
    total = parsed.key_count()
    used = np.flatnonzero(np.bincount(codes, minlength=total))
    ranks: list[np.ndarray[Any, Any]] = []
    categories: list[pd.Index] = []
    for values in parsed.key_values(used):
        per_used, names = _ranked(values)
        per_key = np.full(total, -1, dtype=np.int64)
        per_key[used] = per_used
        ranks.append(per_key)
        categories.append(names)
    columns = {
        name: pd.Categorical.from_codes(ranks[i][codes], categories=categories[i], validate=False)
        for i, name in enumerate(_STRING_FIELDS[:4])
    }
    kinds, names = categories[3], categories[4]
    pair = ranks[3] * len(names) + ranks[4]
    pairs, pair_of_used = np.unique(pair[used], return_inverse=True)
    full = []
    for kind, name in zip(kinds[pairs // len(names)], names[pairs % len(names)], strict=True):
        full.append(name if name.startswith(kind + ".") else f"{kind}.{name}")
    full_ranked, full_names = _ranked(full)
    per_pair = np.full(total, -1, dtype=np.int64)
    per_pair[used] = full_ranked[pair_of_used]
    columns["name"] = pd.Categorical.from_codes(
        per_pair[codes], categories=full_names, validate=False
    )
    return columns


def _empty(parsed: Parsed) -> pd.DataFrame:
    """A frame of no events with the columns and dtypes the keepers would have given."""
    frame = empty_frame(EVENT_COLUMNS)
    columns = {}
    for keeper in parsed.keepers:
        columns.update(keeper.columns())
    if "data" not in columns:
        frame = frame.drop(columns="data")
    else:
        frame["data"] = frame["data"].astype(columns.pop("data").dtype)
    for name, values in columns.items():
        frame[name] = pd.Series(values).iloc[:0]
    return frame


def _frame(parsed: Parsed) -> pd.DataFrame:
    """The events frame of everything parsed, sorted by `ts` (TC-21)."""
    codes = parsed.codes()
    lines = parsed.line_numbers()
    bad = _bad_rows(parsed, codes)
    stamps = parsed.stamps.parse(bad)
    if bad:
        keep = _drop_rows(parsed, lines, bad)
        codes, stamps, lines = codes[keep], stamps[keep], lines[keep]
    if not len(lines):
        return _empty(parsed)
    file_codes = np.repeat(np.arange(len(parsed.files)), [n for _f, _d, n in parsed.files])
    kept: dict[str, Any] = {}
    for keeper in parsed.keepers:
        kept.update(keeper.columns())
    data = {"data": kept.pop("data")} if "data" in kept else {}
    frame = pd.DataFrame(
        {
            "ts": stamps,
            **_key_columns(parsed, codes),
            **data,
            "file": _categorical(file_codes, [f for f, _d, _n in parsed.files]),
            "line": pd.array(lines, dtype="Int64"),
            "day": _categorical(file_codes, [d for _f, d, _n in parsed.files]),
            **kept,
        }
    )
    # TC-21: line order is write order; sort by ts, ties keep (file, line) order.
    values = stamps.asi8
    if len(values) > 1 and not bool(np.all(values[:-1] <= values[1:])):
        frame = frame.take(np.argsort(values, kind="stable"))
    return frame.reset_index(drop=True)
