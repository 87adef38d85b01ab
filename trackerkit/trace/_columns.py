"""Column specs: the columns of every trace table written down as data, not as code per column.

A table is a list of `ColumnSpec` (name, path, type, default). `extract` walks records
(plain dicts) along each spec's path and casts the values to the spec's type, so adding a
column to a table is one line in a list, in the manner of inspect_ai's log dataframes.

A value of the wrong kind never breaks a table: it becomes the spec's default (an integer
outside 64 bits is of the wrong kind for `int` and `float` too), and how many were replaced,
by path, is in the frame's `attrs["skipped"]`. A float column of `read_trace(columns=...)`
keeps ±inf (`1e400` in the data): `Float64` holds it, and Arrow and Parquet write it as it is.
The derived tables (`extract`: steps, tool calls, deliveries) measure costs and times, where
inf is no amount, so there it is an odd value, as in the turns frame (TC-19).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

__all__ = [
    "SKIPPED",
    "ColumnSpec",
    "ColumnType",
    "categorical",
    "column_of",
    "empty_frame",
    "extract",
    "fits",
    "lookup",
]

SKIPPED = "skipped"
"""The `attrs` key of a derived table (and of the turns frame): odd values read as missing,
counted by path."""

_INT64 = range(-(1 << 63), 1 << 63)
_FLOAT_INT64 = (-float(1 << 63), float(1 << 63))

ColumnType = Literal["datetime", "timedelta", "category", "str", "int", "float", "bool", "object"]

_DTYPES: dict[str, Any] = {
    "datetime": "datetime64[us, UTC]",
    "timedelta": "timedelta64[us]",
    "category": "category",
    "str": "str",
    "int": "Int64",
    "float": "Float64",
    "bool": "boolean",
    "object": object,
}


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """One column of a trace table: where its value lives in a record and what it becomes.

    Args:
        name: the column name in the frame.
        path: a dotted path into the record (`data.usage.in`); alternatives separated by `|`
            are tried in turn (`data.toolName|data.name`).
        type: the column's kind; values of another kind become `default`.
        default: the value used when the path is missing or holds a value of another kind.
        doc: one sentence for people reading the spec list.
    """

    name: str
    path: str
    type: ColumnType
    default: Any = None
    doc: str = ""

    @property
    def dtype(self) -> Any:
        """The pandas dtype the column is cast to."""
        return _DTYPES[self.type]


_MISSING = object()


def lookup(record: Mapping[str, Any], path: str, default: Any = None) -> Any:
    """The value at a dotted `path` in `record` (first present alternative of `a|b`), or `default`."""
    for alternative in path.split("|"):
        value: Any = record
        for key in alternative.split("."):
            value = value.get(key, _MISSING) if isinstance(value, Mapping) else _MISSING
            if value is _MISSING:
                break
        if value is not _MISSING:
            return value
    return default


def fits(value: Any, kind: ColumnType, *, finite: bool = False) -> bool:
    """Whether `value` is of the kind (None fits any); `finite`: a float column refuses ±inf."""
    if value is None:
        return True
    if kind == "datetime":
        return isinstance(value, str | dt.datetime)
    if kind == "timedelta":
        return isinstance(value, dt.timedelta)
    if kind == "int":
        if type(value) is float:  # JSON has one number type: 1200.0 is the integer 1200
            return value.is_integer() and _FLOAT_INT64[0] <= value < _FLOAT_INT64[1]
        return isinstance(value, int) and not isinstance(value, bool) and value in _INT64
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if isinstance(value, int):
            return value in _INT64
        return math.isfinite(value) if finite else not math.isnan(value)
    if kind == "bool":
        return isinstance(value, bool)
    if kind in ("str", "category"):
        return isinstance(value, str)
    return True


def _absent(value: Any) -> bool:
    """A missing value of pandas (NaN, NaT, NA): no odd value, though it becomes the default."""
    return value is pd.NaT or value is pd.NA or (type(value) is float and value != value)


def categorical(values: Sequence[Any] | np.ndarray[Any, Any]) -> pd.Categorical:
    """A categorical with sorted categories, built by one factorize (faster than astype)."""
    array = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    codes, uniques = pd.factorize(array, use_na_sentinel=True)
    if len(uniques) == 0:
        return pd.Categorical([None] * len(array), categories=pd.Index([], dtype="str"))
    order = np.argsort(np.asarray(uniques, dtype=object).astype(str), kind="stable")
    remap = np.empty(len(order), dtype=np.int64)
    remap[order] = np.arange(len(order))
    new_codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
    categories = pd.Index(np.asarray(uniques, dtype=object)[order], dtype="str")
    return pd.Categorical.from_codes(new_codes, categories=categories)


def column(values: list[Any], spec: ColumnSpec) -> Any:
    """`values` cast to the spec's dtype; values of the wrong kind become the spec's default."""
    return _column([_fitted(v, spec) if fits(v, spec.type) else spec.default for v in values], spec)


def _fitted(value: Any, spec: ColumnSpec) -> Any:
    """A value that fits the spec, as its column holds it (a whole float in an int column: int)."""
    return int(value) if type(value) is float and spec.type == "int" else value


def column_of(values: list[Any], spec: ColumnSpec, *, finite: bool = False) -> tuple[Any, int]:
    """`values` cast to the spec's dtype, and how many odd values became the default.

    Missing values of pandas (NaN, NaT, NA) become the default without counting as odd; with
    `finite`, ±inf in a float column is odd (else a float column keeps it).
    """
    odd = 0
    cleaned = values
    fast = _plain(values, spec, finite)
    if fast is not None:
        return fast, 0
    if spec.type == "int" or not all(fits(v, spec.type, finite=finite) for v in values):
        cleaned = []
        for value in values:
            if fits(value, spec.type, finite=finite):
                cleaned.append(_fitted(value, spec))
            else:
                odd += not _absent(value)
                cleaned.append(spec.default)
    return _column(cleaned, spec), odd


_PLAIN_KINDS: dict[str, set[type]] = {
    "int": {int, type(None)},
    "float": {float, type(None)},
    "str": {str, type(None)},
    "category": {str, type(None)},
    "bool": {bool, type(None)},
}


def _plain(values: list[Any], spec: ColumnSpec, finite: bool) -> Any:
    """The column at once when every value is of the spec's kind (no check per value), else None."""
    if spec.type == "object":
        return _column(values, spec)  # every value fits
    kinds = _PLAIN_KINDS.get(spec.type)
    if kinds is None or not set(map(type, values)) <= kinds:
        return None
    if spec.type == "float" and spec.default is not None:
        return None  # a NaN must become the default, not NA
    try:
        column = _column(values, spec)  # a NaN becomes NA, as the slow path makes it
    except (OverflowError, TypeError, ValueError):  # an integer past 64 bits
        return None
    if (
        finite
        and spec.type == "float"
        and not bool(np.isfinite(np.asarray(column, dtype=float)[~pd.isna(column)]).all())
    ):
        return None  # inf: odd values, counted by the slow path
    return column


def _column(cleaned: list[Any], spec: ColumnSpec) -> Any:
    if spec.type == "datetime":
        text = all(isinstance(v, str) for v in cleaned if v is not None)
        stamps = pd.to_datetime(
            pd.Series(cleaned, dtype=object), utc=True, format="ISO8601" if text else None
        )
        return stamps.dt.as_unit("us")
    if spec.type == "timedelta":
        return pd.to_timedelta(pd.Series(cleaned, dtype=object)).dt.as_unit("us")
    if spec.type == "category":
        return categorical(cleaned)
    if spec.type == "object":
        array = np.empty(len(cleaned), dtype=object)
        array[:] = cleaned
        return pd.Series(array, dtype=object, copy=False)  # a bare array of str would infer str
    return pd.array(cleaned, dtype=spec.dtype)


def extract(records: Iterable[Mapping[str, Any]], specs: Sequence[ColumnSpec]) -> pd.DataFrame:
    """A frame with one row per record and one column per spec, in spec order (a derived table:
    ±inf in a float column is odd, read as the default and counted)."""
    rows = list(records)
    if not rows:
        frame = empty_frame(specs)
        frame.attrs[SKIPPED] = {}
        return frame
    data = {}
    skipped: dict[str, int] = {}
    for spec in specs:
        values = [lookup(r, spec.path, spec.default) for r in rows]
        data[spec.name], odd = column_of(values, spec, finite=True)
        if odd:
            skipped[spec.path] = skipped.get(spec.path, 0) + odd
    frame = pd.DataFrame(data)
    frame.attrs[SKIPPED] = dict(sorted(skipped.items()))
    return frame


def empty_frame(specs: Sequence[ColumnSpec]) -> pd.DataFrame:
    """A frame with no rows and the spec's columns and dtypes (used as `meta` too)."""
    return pd.DataFrame({spec.name: pd.Series([], dtype=spec.dtype) for spec in specs})
