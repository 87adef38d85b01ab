"""What the reader keeps of each event's `data`: dicts, JSON text, `LazyData`, or chosen paths.

The reader (`_lines.py`) proves each line's syntax and leaves `data` as raw bytes (a block of
about a megabyte at a time); a *keeper* turns those bytes into the frame's column:

* `Dicts` (the default): plain `dict`s. A block's objects are decoded by one msgspec call on
  their bytes joined into one JSON array (the garbage collector is paused by the caller);
  values are what `_lazy.loads` gives on every path (integers exact, `1e999` as inf).
* `Texts` (`data="raw"`): the JSON text as written, one Arrow-backed `str` column built from
  each block's bytes and their lengths (no Python string per row until one is looked at).
* `Lazies` (`data="lazy"`): `LazyData`, a read-only mapping decoded on first use; NOT a dict.
* `Paths` (`columns=[...]`): chosen paths of `data` as typed columns, decoded by msgspec into
  small structs made for those paths (other fields are skipped, no dict is built).

Every keeper sees the same rows: a block's (`block`), one compact line's (`raw`) and one line
decoded by the slow path (`value`), in row order; `keep` drops refused rows afterwards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import compress
from operator import attrgetter
from typing import Any, Literal

import msgspec
import numpy as np
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed

from trackerkit._names import repeated
from trackerkit.errors import BadRequestError
from trackerkit.trace._columns import ColumnSpec, ColumnType, column_of, fits
from trackerkit.trace._lazy import LazyData, as_text, decode

__all__ = [
    "DATA_MODES",
    "INFERRED",
    "DataMode",
    "Dicts",
    "Keeper",
    "Lazies",
    "Nothing",
    "Paths",
    "Refused",
    "Texts",
    "column_specs",
    "keeper",
]

MAX_PATH_DEPTH = 64
"""The most levels a `columns=` path may name (each level is a nested struct to decode)."""

DataMode = Literal["dict", "raw", "lazy", "none"]
DATA_MODES: tuple[str, ...] = ("dict", "raw", "lazy", "none")
"""What `read_trace(data=...)` accepts."""


class Refused(Exception):  # noqa: N818 (a signal inside the reader, never raised to users)
    """A block's data a keeper cannot take (not UTF-8): the block is read line by line."""


_decode_list = msgspec.json.Decoder(list[Any]).decode


def _decode_all(raws: Sequence[Any]) -> list[dict[str, Any]]:
    """Each raw object decoded, all in one msgspec call when it can (one array of them).

    Raises:
        Refused: one of them is not a JSON object (bad UTF-8, a lone surrogate).
    """
    try:
        values: list[dict[str, Any]] = _decode_list(b"[" + b",".join(raws) + b"]")
    except (msgspec.DecodeError, RecursionError):
        try:
            return [decode(raw) for raw in raws]
        except (ValueError, TypeError, RecursionError) as exc:
            raise Refused(str(exc)) from None
    return values


class Keeper:
    """The base of the keepers: receives every row's data in row order.

    `checks_utf8`: the keeper decodes every byte of a block's data and raises `Refused` from
    `block` (before keeping anything) when they are not UTF-8, so the reader need not check.
    """

    checks_utf8 = False
    keeps_text = False
    """Whether the keeper keeps `data` as written: rows decoded by the slow paths are then given
    to `raw` with their data's text as written (`_lines._written`), not to `value`."""

    def block(self, raws: list[Any], lengths: np.ndarray[Any, Any]) -> None:
        """A block's rows: each `data` as raw bytes (a buffer), with their lengths."""
        raise NotImplementedError

    def raw(self, raw: Any) -> None:
        """One row whose `data` is raw bytes of a valid JSON object."""
        raise NotImplementedError

    def value(self, data: dict[str, Any]) -> None:
        """One row whose `data` was decoded already (the slow path)."""
        raise NotImplementedError

    def decoded(self, datas: list[dict[str, Any]]) -> None:
        """Rows whose `data` was decoded already, in order (a block not in the compact form)."""
        for data in datas:
            self.value(data)

    def keep(self, mask: list[bool]) -> None:
        """Keep only the rows where `mask` is true (rows refused after parsing)."""
        raise NotImplementedError

    def columns(self) -> dict[str, Any]:
        """The columns this keeper adds to the events frame, by name (emptied afterwards)."""
        raise NotImplementedError


class _Listed(Keeper):
    """A keeper with one Python object per row."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def keep(self, mask: list[bool]) -> None:
        self.items = list(compress(self.items, mask))

    def columns(self) -> dict[str, Any]:
        # fromiter: assigning a list would make numpy ask each LazyData its length (a decode).
        array = np.fromiter(self.items, dtype=object, count=len(self.items))
        self.items = []
        return {"data": pd.Series(array, dtype=object)}


class Dicts(_Listed):
    """`data` as plain dicts (the default)."""

    checks_utf8 = True

    def block(self, raws: list[Any], lengths: np.ndarray[Any, Any]) -> None:
        self.items += _decode_all(raws)

    def raw(self, raw: Any) -> None:
        self.items.append(decode(raw))

    def value(self, data: dict[str, Any]) -> None:
        self.items.append(data)

    def decoded(self, datas: list[dict[str, Any]]) -> None:
        self.items += datas


class Lazies(_Listed):
    """`data` as `LazyData` (opt-in: a mapping decoded on first use, not a dict)."""

    def block(self, raws: list[Any], lengths: np.ndarray[Any, Any]) -> None:
        self.items += map(LazyData, raws)

    def raw(self, raw: Any) -> None:
        self.items.append(LazyData(raw))

    def value(self, data: dict[str, Any]) -> None:
        self.items.append(LazyData.of(data))


class Texts(Keeper):
    """`data` as its JSON text: an Arrow string column, one chunk per block (no copy of them all).

    A block's texts become one chunk over their joined bytes; rows read one by one wait in a
    small pending chunk, closed before the next block. Every row's text is its `data` as the
    line writes it (spaces, escapes and number forms kept; a lone surrogate escape as `\\ufffd`),
    whatever path read the line.
    """

    keeps_text = True

    def __init__(self) -> None:
        self.chunks: list[Any] = []
        self.pending: list[bytes] = []
        self.mask: list[bool] | None = None

    @staticmethod
    def _chunk(text: bytes, lengths: np.ndarray[Any, Any]) -> Any:
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return pa.LargeStringArray.from_buffers(
            len(lengths), pa.py_buffer(offsets), pa.py_buffer(text)
        )

    def _close_pending(self) -> None:
        if self.pending:
            lengths = np.fromiter(map(len, self.pending), dtype=np.int64, count=len(self.pending))
            self.chunks.append(self._chunk(b"".join(self.pending), lengths))
            self.pending = []

    def block(self, raws: list[Any], lengths: np.ndarray[Any, Any]) -> None:
        self._close_pending()
        self.chunks.append(self._chunk(b"".join(raws), lengths))

    def raw(self, raw: Any) -> None:
        self.pending.append(bytes(raw))

    def value(self, data: dict[str, Any]) -> None:
        self.pending.append(as_text(data))

    def decoded(self, datas: list[dict[str, Any]]) -> None:
        self.pending += map(as_text, datas)

    def keep(self, mask: list[bool]) -> None:
        self.mask = mask

    def columns(self) -> dict[str, Any]:
        self._close_pending()
        text: Any = pa.chunked_array(self.chunks, type=pa.large_string())
        if self.mask is not None:
            text = text.filter(pa.array(self.mask, type=pa.bool_()))
        self.chunks, self.mask = [], None
        return {"data": pd.Series(pd.array(text, dtype="str"))}


class Nothing(Keeper):
    """`data="none"`: no data column (with `columns=`, the extracted paths alone)."""

    def block(self, raws: list[Any], lengths: np.ndarray[Any, Any]) -> None:
        return None

    def raw(self, raw: Any) -> None:
        return None

    def value(self, data: dict[str, Any]) -> None:
        return None

    def keep(self, mask: list[bool]) -> None:
        return None

    def columns(self) -> dict[str, Any]:
        return {}


_MISSING: Any = msgspec.UNSET

INFERRED = "typed by its values (given as a path)"
"""The `doc` of a column given as a bare path: its type is the narrowest that holds its values."""


def column_specs(columns: Sequence[str | ColumnSpec]) -> list[ColumnSpec]:
    """The specs of `read_trace(columns=...)`: a path is relative to `data` (a leading `data.`
    is dropped); a bare path is a column of that name whose type follows its values.

    Raises:
        BadRequestError: an empty path, or two columns of one name.
    """
    specs = []
    for item in columns:
        spec = item if isinstance(item, ColumnSpec) else ColumnSpec(item, item, "object")
        alternatives = [a.removeprefix("data.") for a in spec.path.split("|")]
        if not all(alternatives) or any("" in a.split(".") for a in alternatives):
            raise BadRequestError(
                f"column {spec.name!r} has the path {spec.path!r}, which names no field; "
                "write paths into data with dots, like usage.in or usage.costUsd."
            )
        deepest = max(a.count(".") + 1 for a in alternatives)
        if deepest > MAX_PATH_DEPTH:
            raise BadRequestError(
                f"column {spec.name!r} has a path {deepest} levels deep; at most "
                f"{MAX_PATH_DEPTH} are read (the writer cuts data deeper than four levels, TC-7)."
            )
        specs.append((item, spec, "|".join(alternatives)))
    twice = repeated(s.name for _i, s, _p in specs)
    if twice:
        raise BadRequestError(
            f"columns= names {', '.join(map(repr, twice))} twice; give each column its own name."
        )
    out = []
    for item, spec, path in specs:
        out.append(
            ColumnSpec(spec.name, path, spec.type, spec.default, INFERRED)
            if isinstance(item, str)
            else ColumnSpec(spec.name, path, spec.type, spec.default, spec.doc)
        )
    return out


def _struct_for(tree: dict[str, Any], name: str) -> Any:
    """A msgspec struct type that decodes only the keys of `tree` (nested dicts: sub-structs).

    A leaf takes any value; a parent is a struct or null (anything else refuses the block).
    """
    fields: list[tuple[str, Any, Any]] = []
    rename: dict[str, str] = {}
    for i, (key, sub) in enumerate(tree.items()):
        rename[f"f{i}"] = key
        kind: Any = Any if not sub else (_struct_for(sub, f"{name}_{i}") | None)
        fields.append((f"f{i}", kind, _MISSING))
    return msgspec.defstruct(name, fields, rename=rename, gc=False)


def _attributes(tree: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, ...]:
    """The struct attributes `_struct_for(tree)` gives the path `keys`."""
    names = []
    for key in keys:
        names.append(f"f{list(tree).index(key)}")
        tree = tree[key]
    return tuple(names)


class Paths(Keeper):
    """Chosen paths of `data` as typed columns (`read_trace(columns=...)`), no dict kept.

    A block is decoded by msgspec into structs holding only those paths; a block msgspec
    refuses (a path's parent that is no object, a number past its range) is decoded into
    dicts as `Dicts` decodes them, looked up and dropped. Values of the wrong kind become the spec's default,
    counted by path in `skipped`.
    """

    def __init__(self, specs: Sequence[ColumnSpec]) -> None:
        self.specs = list(specs)
        self.paths = [[tuple(a.split(".")) for a in spec.path.split("|")] for spec in self.specs]
        # A path asked for whole (`usage`) is decoded whole, so a path under it (`usage.in`) is
        # looked up in that value: the struct ends at the shortest path asked for.
        wanted = {keys for alternatives in self.paths for keys in alternatives}
        tree: dict[str, Any] = {}
        for alternatives in self.paths:
            for keys in alternatives:
                node = tree
                for key in keys[: _struct_depth(keys, wanted)]:
                    node = node.setdefault(key, {})
        self.attributes = [
            [
                (_attributes(tree, keys[:depth]), keys[depth:])
                for keys in alts
                for depth in [_struct_depth(keys, wanted)]
            ]
            for alts in self.paths
        ]
        struct = _struct_for(tree, "_Paths")
        self._decode_many = msgspec.json.Decoder(list[struct]).decode  # type: ignore[valid-type]
        self._decode_one = msgspec.json.Decoder(struct).decode
        self.values: list[list[Any]] = [[] for _ in self.specs]
        self.skipped: Counter[str] = Counter()

    def _take(self, items: list[Any], structs: bool) -> None:
        routes: list[list[Any]] = self.attributes if structs else self.paths
        for values, alternatives, spec in zip(self.values, routes, self.specs, strict=True):
            default = spec.default
            if structs and len(alternatives) == 1 and not alternatives[0][1]:
                values += _struct_column(items, alternatives[0][0], default)
                continue
            found_in = _from_struct_route if structs else _lookup
            for item in items:
                found = _MISSING
                for route in alternatives:
                    found = found_in(item, route)
                    if found is not _MISSING:
                        break
                values.append(default if found is _MISSING else found)

    def block(self, raws: list[Any], lengths: np.ndarray[Any, Any]) -> None:
        try:
            items = self._decode_many(b"[" + b",".join(raws) + b"]")
        except (msgspec.DecodeError, RecursionError):
            self._take(_decode_all(raws), structs=False)
            return
        self._take(items, structs=True)

    def raw(self, raw: Any) -> None:
        try:
            item = self._decode_one(raw)
        except (msgspec.DecodeError, RecursionError):
            self._take([decode(raw)], structs=False)
            return
        self._take([item], structs=True)

    def value(self, data: dict[str, Any]) -> None:
        self._take([data], structs=False)

    def decoded(self, datas: list[dict[str, Any]]) -> None:
        self._take(datas, structs=False)

    def keep(self, mask: list[bool]) -> None:
        self.values = [list(compress(values, mask)) for values in self.values]

    def columns(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for spec, values in zip(self.specs, self.values, strict=True):
            kind = _inferred(values) if spec.doc == INFERRED else spec.type
            out[spec.name], odd = column_of(
                values, ColumnSpec(spec.name, spec.path, kind, spec.default)
            )
            if odd:
                self.skipped[f"data.{spec.path}"] += odd
        self.values = [[] for _ in self.specs]
        return out


def _struct_depth(keys: tuple[str, ...], wanted: set[tuple[str, ...]]) -> int:
    """How many of `keys` the struct decodes: up to the shortest path asked for that opens it."""
    return next(depth for depth in range(1, len(keys) + 1) if keys[:depth] in wanted)


def _from_struct_route(item: Any, route: tuple[tuple[str, ...], tuple[str, ...]]) -> Any:
    """The value at a struct route: attributes, then keys looked up in a value decoded whole."""
    attributes, rest = route
    found = _from_struct(item, attributes)
    return found if found is _MISSING or not rest else _lookup(found, rest)


def _from_struct(item: Any, attributes: tuple[str, ...]) -> Any:
    node = item
    for attribute in attributes:
        if node is None:
            return _MISSING
        node = getattr(node, attribute)
        if node is _MISSING:
            return _MISSING
    return node


def _struct_column(items: list[Any], route: tuple[str, ...], default: Any) -> list[Any]:
    """One path's values in decoded structs, as `_from_struct` gives them, without a call per row
    (one `attrgetter` over the rows; rows are looked at one by one only when a parent is missing
    or null somewhere)."""
    try:
        found = list(map(attrgetter(".".join(route)), items))
    except AttributeError:  # a parent missing or null on some row
        found = [_from_struct(item, route) for item in items]
        return [default if v is _MISSING else v for v in found]
    kinds = set(map(type, found))
    if kinds == {_UNSET_TYPE}:
        return [default] * len(found)
    if _UNSET_TYPE in kinds:
        found = [default if v is _MISSING else v for v in found]
    return found


_UNSET_TYPE = type(_MISSING)


def _lookup(item: Any, keys: tuple[str, ...]) -> Any:
    node = item
    for key in keys:
        if not isinstance(node, dict):
            return _MISSING
        node = node.get(key, _MISSING)
        if node is _MISSING:
            return _MISSING
    return node


def _inferred(values: list[Any]) -> ColumnType:
    """The narrowest type that holds every value found (None is no value)."""
    kinds = set(map(type, values)) - {type(None)}
    if not kinds:
        return "object"
    if kinds == {bool}:
        return "bool"
    if kinds == {str}:
        return "str"
    if kinds == {int}:
        numbers = [v for v in values if v is not None]
        if min(numbers) >= -(1 << 63) and max(numbers) < 1 << 63:
            return "int"
    if float in kinds and kinds <= {int, float}:  # what the loop below finds, without a call a row
        whole = [v for v in values if type(v) is int]
        fits_int64 = not whole or (min(whole) >= -(1 << 63) and max(whole) < 1 << 63)
        return "float" if fits_int64 and not any(v != v for v in values) else "object"
    kinds_in_order: tuple[ColumnType, ...] = ("bool", "int", "float", "str")
    for kind in kinds_in_order:
        if kind == "int" and float in kinds:
            continue  # a float written (2.0) makes a float column; an int spec takes it whole
        if all(fits(v, kind) for v in values):
            return kind
    return "object"


def keeper(mode: DataMode) -> Keeper:
    """The keeper of a `data=` mode.

    Raises:
        BadRequestError: an unknown mode.
    """
    if mode == "dict":
        return Dicts()
    if mode == "raw":
        return Texts()
    if mode == "lazy":
        return Lazies()
    if mode == "none":
        return Nothing()
    raise BadRequestError(
        f"data={mode!r} is not a way to keep data; use one of {', '.join(DATA_MODES)}."
    )
