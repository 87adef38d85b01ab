"""A trace line read alone: the compact test on its own bytes, else one full decode and the checks.

A block that cannot be taken at once (`trackerkit.trace._block`) is read line by line. A line is
taken alone when its length is that of the compact text of its values, with each field name
where the compact layout puts it (`_one`; why that suffices: `_block.py`'s docstring), and
otherwise goes to one full decode (`_lazy.loads`) with the checks and the reasons of
`trackerkit.trace._rows` (`_slow`). A kept line's `data` is kept as written (`_written`).
"""

from __future__ import annotations

import re
from operator import attrgetter
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed

from trackerkit.errors import TraceLineError
from trackerkit.trace._keys import STEPS
from trackerkit.trace._lazy import as_text, loads
from trackerkit.trace._rows import _BOM, Parsed, _checked, reason

__all__: list[str] = []  # its helpers serve the reader (`_lines.py`, `_block.py`) only

_TOO_DEEP = (
    "nested deeper than the reader follows ({exc}); the writer cuts data deeper than four "
    "levels to …[deep] (TC-7)"
)
# What a decoder may raise on hostile bytes besides its own error: nesting past the stack.
_DECODE_ERRORS = (msgspec.DecodeError, RecursionError)

_OPENING = b'{"ts":"'
# The field names after ts, each as the 8 bytes that open it on a compact line.
_NAMES = (b',"turn":', b',"sessio', b',"source', b',"kind":', b',"name":', b',"data":')
_STEP_LIST = tuple(STEPS.tolist())
_OPEN_BRACE = ord("{")


class _Event(msgspec.Struct, gc=False):
    """A line as msgspec reads it: six strings and `data` left as raw bytes."""

    ts: str
    turn: str
    session: str
    source: str
    kind: str
    name: str
    data: msgspec.Raw


_decode_event = msgspec.json.Decoder(_Event).decode
_decode_events = msgspec.json.Decoder(_Event).decode_lines
_key_of = attrgetter("turn", "session", "source", "kind", "name")
_ts_of = attrgetter("ts")


def _slow(parsed: Parsed, raw: bytes, number: int, label: str) -> TraceLineError | None:
    """One line decoded whole (`_lazy.loads`) with the full checks; the error, or None when kept."""
    try:
        if raw.startswith(_BOM):  # `loads` skips one, as `json` does; only the file's is skipped
            raise ValueError("a byte order mark opens the line")
        obj = loads(raw)
    except ValueError as exc:
        return TraceLineError(label, number, reason(raw, exc))
    except RecursionError as exc:
        return TraceLineError(label, number, _TOO_DEEP.format(exc=exc))
    data = _checked(parsed, obj, number, label)
    if isinstance(data, TraceLineError):
        return data
    for keeper in parsed.keepers:
        if keeper.keeps_text:
            keeper.raw(_written(raw, data))
        else:
            keeper.value(data)
    return None


def _written(line: bytes | memoryview, data: dict[str, Any]) -> bytes:
    """A kept line's `data` as the line writes it: the text of its value, as msgspec finds it
    (the last `data`, as the decoders read it).

    A lone surrogate escape (`"\\ud800"`, a reply cut inside an emoji) is written `\\ufffd`, the
    replacement character the other modes read (msgspec refuses the half, and so do JSON readers
    such as DuckDB's, which would fail a whole query on it); all else stays as written. The
    compact text of `data` is the last resort (a number only the standard library reads).
    """
    try:
        return bytes(_decode_event(line).data)
    except _DECODE_ERRORS:
        pass
    try:
        return bytes(_decode_event(_LONE_SURROGATE.sub(_keep_pairs, bytes(line))).data)
    except _DECODE_ERRORS:
        return as_text(data)


# Read left to right as a JSON string's escapes are: an escaped backslash, a surrogate pair,
# then a surrogate escape left alone (a half).
_LONE_SURROGATE = re.compile(
    rb"(\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)


def _keep_pairs(match: re.Match[bytes]) -> bytes:
    return match.group(1) or rb"\ufffd"


_ARROW_UTF8_FROM = 4096
"""From this many bytes UTF-8 is checked by Arrow (no string built: several times faster on
non-ASCII text than decoding it)."""


def _utf8(raw: bytes | memoryview) -> bool:
    """Whether `raw` is valid UTF-8 (the same verdict as Python's decoder)."""
    if len(raw) >= _ARROW_UTF8_FROM:
        offsets = pa.py_buffer(np.array([0, len(raw)], dtype=np.int64))
        text = pa.LargeStringArray.from_buffers(1, offsets, pa.py_buffer(raw))
        try:
            text.validate(full=True)
        except pa.ArrowInvalid:
            return False
        return True
    try:
        str(raw, "utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _one(parsed: Parsed, raw: bytes, number: int, label: str) -> TraceLineError | None:
    """One line (without its newline): the compact test, else the slow path."""
    try:
        event = _decode_event(raw)
    except msgspec.DecodeError:
        return _slow(parsed, raw, number, label)
    except RecursionError as exc:
        return TraceLineError(label, number, _TOO_DEEP.format(exc=exc))
    key = _key_of(event)
    # Where each name sits on the compact line of these values (see `_block.py`'s docstring).
    at = 8 + len(event.ts)
    places = [at]
    for step, value in zip(_STEP_LIST, key, strict=True):
        at += step + len(value)
        places.append(at)
    if (
        len(raw) == at + 9 + len(event.data)
        and raw.startswith(_OPENING)
        and all(raw.startswith(name, place) for name, place in zip(_NAMES, places, strict=True))
        and raw[at + 8] == _OPEN_BRACE
        and (raw.isascii() or _utf8(raw))
    ):
        parsed.stamps.append(event.ts)
        parsed.keys.append(parsed.table[key])
        for keeper in parsed.keepers:
            keeper.raw(event.data)
        return None
    return _slow(parsed, raw, number, label)
