"""The hot loop of the reader: trace lines into plain lists, broken lines into errors.

Most lines are the writer's own compact form, `{"ts":T,"turn":…,"name":N,"data":{…}}` +
newline. One `msgspec` decode per line checks the whole line's JSON syntax and hands back the
raw bytes of `ts` and `data` without building anything inside them. The bytes between the
two (`,"turn":…,"data":{`, the *region*) hold the five string fields; a day has a few
thousand distinct regions, so each is decoded and checked once and then looked up by its
bytes. A region known to be exactly `turn, session, source, kind, name`, sitting right after
`{"ts":T` and right before a `data` value of the decoded length, proves the seven fields are
present, in order (TC-4), with nothing else and no duplicate, and that `data` is an object.
Every other line (spaces, other orders, missing fields, not JSON) takes the slow path: one
`orjson.loads`, with the same checks and reasons as before. `data` becomes a `LazyData`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import orjson

from trackerkit.errors import NotFoundError, TraceLineError
from trackerkit.trace._lazy import LazyData

__all__ = ["FIELDS", "Parsed", "parse_into", "reason"]

FIELDS: tuple[str, ...] = ("ts", "turn", "session", "source", "kind", "name", "data")
"""The seven fields of an event line, in the order the contract fixes (TC-4)."""

_EXPECTED = ", ".join(FIELDS)
_MIDDLE = FIELDS[1:6]
_REGION_END = b',"data":{'


class _Head(msgspec.Struct):
    """The two fields the fast path needs; the others are checked (skipped) by msgspec."""

    ts: str
    data: msgspec.Raw


_decode_head = msgspec.json.Decoder(_Head).decode


@dataclass
class Parsed:
    """The good lines of one or more files as plain lists, plus their errors.

    The five string fields of a line are interned as one key tuple: `keys` holds each row's
    code into `table`, so type checks and categoricals work on the few distinct keys only.
    `stamps` holds each row's `ts` as written (parsed all at once at the end).
    """

    stamps: list[Any] = field(default_factory=list)
    keys: list[int] = field(default_factory=list)
    data: list[LazyData] = field(default_factory=list)
    chunks: list[np.ndarray[Any, Any]] = field(default_factory=list)  # line numbers, by file
    table: dict[tuple[Any, ...], int] = field(default_factory=dict)
    regions: dict[bytes, int] = field(default_factory=dict)
    files: list[tuple[str, str | None, int]] = field(default_factory=list)  # (file, day, rows)
    errors: list[TraceLineError] = field(default_factory=list)

    def line_numbers(self) -> np.ndarray[Any, Any]:
        """The 1-based line number of every kept row, in row order."""
        if not self.chunks:
            return np.empty(0, dtype=np.int64)
        return np.concatenate(self.chunks)

    def code(self, key: tuple[Any, ...]) -> int:
        """The code of a (turn, session, source, kind, name) tuple; -1 when unhashable."""
        table = self.table
        try:
            found = table.get(key)
        except TypeError:  # a list or an object where a string belongs
            return -1
        if found is None:
            found = table[key] = len(table)
        return found


def reason(raw: bytes, exc: Exception | None, obj: Any) -> str:
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


def _learn(parsed: Parsed, region: bytes) -> int | None:
    """The code of a region not seen before, or None when it is not the compact middle."""
    if not region.endswith(_REGION_END) or region[:1] != b",":
        return None
    try:
        middle = orjson.loads(b"{%b}" % region[1 : -len(_REGION_END)])
    except orjson.JSONDecodeError:
        return None
    if type(middle) is not dict or tuple(middle) != _MIDDLE:
        return None
    key = tuple(middle.values())
    table = parsed.table
    try:
        code = table.get(key)
    except TypeError:  # a list or an object where a string belongs
        code = -1
    if code is None:
        code = table[key] = len(table)
    parsed.regions[region] = code
    return code


def _slow(parsed: Parsed, raw: bytes, number: int, label: str) -> TraceLineError | None:
    """One line by `orjson.loads` and the full checks; the error, or None when it was kept."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return TraceLineError(label, number, reason(raw, exc, None))
    if type(obj) is not dict or tuple(obj) != FIELDS:
        return TraceLineError(label, number, reason(raw, None, obj))
    ts, turn, session, source, kind, name, data = obj.values()
    if type(data) is not dict:
        return TraceLineError(
            label, number, f"field data is a {type(data).__name__}, not an object"
        )
    parsed.stamps.append(ts)
    parsed.keys.append(parsed.code((turn, session, source, kind, name)))
    parsed.data.append(LazyData.of(data))
    return None


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def parse_into(path: Path, label: str, day: str | None, parsed: Parsed, strict: bool) -> None:
    """Append the lines of one file to `parsed`: the hot loop of every reader."""
    decode_head = _decode_head
    decode_error = msgspec.DecodeError
    regions = parsed.regions
    add_stamp = parsed.stamps.append
    add_key = parsed.keys.append
    add_data = parsed.data.append
    lazy = LazyData
    errors = parsed.errors
    first_error = len(errors)
    number = 0
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise NotFoundError(f"{path} does not exist.") from None
    with handle:
        for number, raw in enumerate(handle, 1):
            try:
                head = decode_head(raw)
            except decode_error:
                pass
            else:
                ts = head.ts
                data = head.data
                # `{"ts":"` is 7 bytes; the region ends with data's first byte, `{`. A `ts`
                # with escapes or non-ASCII is longer in bytes than in characters: its slice
                # then starts inside the string, cannot match a region, and goes slow.
                region = raw[8 + len(ts) : -1 - len(data)]
                code = regions.get(region)
                if code is None:
                    code = _learn(parsed, region)
                if code is not None and (raw.isascii() or _utf8(raw)):
                    add_stamp(ts)
                    add_key(code)
                    add_data(lazy(data))
                    continue
            error = _slow(parsed, raw, number, label)
            if error is not None:
                if strict:
                    raise error
                errors.append(error)
    # Every line read is a row unless it was refused: the rows' numbers need no list.
    numbers = np.arange(1, number + 1, dtype=np.int64)
    refused = [e.line - 1 for e in errors[first_error:]]
    if refused:
        numbers = np.delete(numbers, refused)
    parsed.chunks.append(numbers)
    parsed.files.append((label, day, len(numbers)))
