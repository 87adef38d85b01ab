"""A block of trace lines taken at once: one decoder call, then the lines proven from the bytes.

Why a block may be taken at once. Every newline of the block sits between a `}` (maybe with a
carriage return) and a line opening with `{"ts":"` (or ends the block). A `}` followed by `{` can only end one JSON value
and start the next (inside a value, `}` is followed by `,`, `}` or `]`), so each newline ends
a value; the decoder found as many values as there are lines, so each line is exactly one
value, an object. Then each line's bytes are read as the compact layout says: `ts` is the
string opening the line (without escapes); from its closing quote to `data`, the *key span*
`","turn":"…","session":"…","source":"…","kind":"…","name":"…","data":` holds five strings
without escapes or control characters (matched on the block's distinct spans by one Arrow
regex, which also gives the five values); and `data` (the value msgspec gave, which is the
last `data` of the line) opens right after it and runs to the line's closing `}`. A repeated
field would need room that the line does not have, so the seven fields are present once each,
in order (TC-4), with the values decoded from these bytes.

Any other block (spaced lines, an odd line among compact ones) is decoded whole into plain
values when the same newline test shows one value per line, and each value is checked as a
line read alone is (`_loose_block`). A block that fails that is read line by line
(`trackerkit.trace._one_line`): a line is taken alone when its length is that of the compact
text of its values, and otherwise goes to one full decode with the checks and the reasons.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed
import pyarrow.compute as pc  # type: ignore[import-untyped]

from trackerkit.errors import TraceLineError
from trackerkit.trace._data import Refused
from trackerkit.trace._keys import KEY_FIELDS
from trackerkit.trace._one_line import (
    _DECODE_ERRORS,
    _OPEN_BRACE,
    _OPENING,
    _decode_events,
    _utf8,
    _written,
)
from trackerkit.trace._rows import Parsed, _checked
from trackerkit.trace._stamps import WIDTH, shaped

__all__: list[str] = []  # its helpers serve the reader's loop (`_lines.py`) only


def _word(text: bytes) -> np.uint64:
    """Eight bytes as the little-endian number a strided `<u8` view reads."""
    return np.frombuffer(text.ljust(8, b"\0"), dtype="<u8")[0]  # type: ignore[no-any-return]


_OPENING_WORD = _word(_OPENING)
_SEVEN_BYTES = np.uint64((1 << 56) - 1)
_TURN_WORD = _word(b'","turn"')  # where a 24-byte `ts` ends: its closing quote, then `,"turn"`
_STAMP_END = len(_OPENING) + WIDTH  # from a line's start
_CLOSE_BRACE = ord("}")
_NEWLINE = ord("\n")
_RETURN = ord("\r")
_TEXT = r'[^"\\\x00-\x1f]*'  # a JSON string's text with no escape and no control character
_KEY_SPAN = "^" + "".join(f'","{name}":"{_TEXT}' for name in KEY_FIELDS) + '","data":$'
_SHORTEST_SPAN = len('","turn":"","session":"","source":"","kind":"","name":"","data":')


class _Data(msgspec.Struct, gc=False):
    """A line as the block reader decodes it: `data` as raw bytes (the other fields are checked
    for syntax and skipped; their bytes are read in place)."""

    data: msgspec.Raw


_decode_data_lines = msgspec.json.Decoder(_Data).decode_lines
_decode_values = msgspec.json.Decoder().decode_lines
_data_of = attrgetter("data")


def _loose_block(
    parsed: Parsed, block: bytes, start: int, stop: int, first: int, label: str
) -> tuple[int, list[TraceLineError]] | None:
    """The lines of `block[start:stop]` (numbered from `first`) decoded by one msgspec call, each
    checked as `_slow` checks it: for blocks not in the compact form (spaces, an odd line).

    Each line is one value when every newline sits between a `}` and a `{` (as in `_block`) and
    the values number the lines. Returns how many lines it read and the errors of those the
    checks refused, or None when the block must be read line by line (a line that does not
    decode: its reason).
    """
    lined = _by_line(memoryview(block)[start:stop], _decode_values)
    if lined is None:
        return None
    values, _octets, starts, closes = lined
    errors = []
    kept = []
    rows = []
    for row, obj in enumerate(values):
        data = _checked(parsed, obj, first + row, label)
        if isinstance(data, TraceLineError):
            errors.append(data)
        else:
            kept.append(data)
            rows.append(row)
    view = memoryview(block)[start:stop]
    texts: list[bytes] | None = None
    for keeper in parsed.keepers:
        if not keeper.keeps_text:
            keeper.decoded(kept)
            continue
        if texts is None:
            texts = _written_all(view, starts, closes, rows, kept)
        for text in texts:
            keeper.raw(text)
    return len(values), errors


def _written_all(
    view: memoryview, starts: Any, closes: Any, rows: list[int], kept: list[dict[str, Any]]
) -> list[bytes]:
    """The kept lines' `data` as written (`_written`): for the whole block by one msgspec call
    when it reads every line (each line one value, as `_by_line` proved), else line by line."""
    try:
        events = _decode_events(view)
    except _DECODE_ERRORS:  # a line of other kinds (refused) or a half surrogate: one by one
        return [
            _written(view[starts[row] : closes[row] + 1], data)
            for row, data in zip(rows, kept, strict=True)
        ]
    return [bytes(events[row].data) for row in rows]


def _odd_stamps(
    block: bytes,
    starts: np.ndarray[Any, Any],
    rows: np.ndarray[Any, Any],
    ends: np.ndarray[Any, Any],
) -> dict[int, tuple[str, int]] | None:
    """The `ts` of the rows whose `ts` is not 24 bytes long: row -> (value, where it closes).

    None when one is not plain printable ASCII without escapes (then the block is read line by
    line, where the decoder reads what it holds).
    """
    odd = {}
    for row in rows.tolist():
        start = int(starts[row]) + len(_OPENING)
        close = block.find(b'"', start, int(ends[row]))
        if close < 0:
            return None
        text = block[start:close].decode("ascii", "replace")
        if "\\" in text or not text.isprintable() or not text.isascii():
            return None
        odd[row] = (text, close)
    return odd


def _key_spans(
    view: memoryview, spans_at: np.ndarray[Any, Any], data_at: np.ndarray[Any, Any]
) -> tuple[Any, np.ndarray[Any, Any]] | None:
    """The distinct key spans of a block's lines (an Arrow string array), and each line's code
    into them; None when a span is not five plain strings in order (see the module docstring).

    Only matched here (a regular expression without groups is fast); `_keys.key_values` reads
    the five values out of the spans of every block at once.
    """
    lines = len(spans_at)
    bounds = np.empty(2 * lines, dtype=np.int64)
    bounds[0::2] = spans_at
    bounds[1::2] = data_at
    # Every other element of this array is a line's key span (between: data and the next ts).
    pieces = pa.Array.from_buffers(
        pa.large_binary(), 2 * lines - 1, [None, pa.py_buffer(bounds), pa.py_buffer(view)]
    )
    encoded = pc.dictionary_encode(pieces.take(pa.array(np.arange(0, 2 * lines, 2))))
    try:
        texts = encoded.dictionary.cast(pa.large_string())  # checks their UTF-8
    except pa.ArrowInvalid:
        return None
    if not pc.all(pc.match_substring_regex(texts, _KEY_SPAN)).as_py():
        return None
    return texts, encoded.indices.to_numpy().astype(np.int64)


def _by_line(view: memoryview, decode: Callable[[Any], list[Any]]) -> tuple[Any, ...] | None:
    """The values of a block decoded at once, when each line is exactly one of them:
    `(values, octets, starts, closes)` with where each line starts and where its closing brace
    sits; otherwise None.

    Each newline must sit between a `}` (and maybe a carriage return) and a `{` (or end the
    block), and the values number the lines (why that suffices: the module's docstring).
    """
    try:
        values = decode(view)
    except _DECODE_ERRORS:
        return None
    octets = np.frombuffer(view, dtype=np.uint8)
    ends = np.flatnonzero(octets == _NEWLINE)
    if not values or len(ends) != len(values):
        return None
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    closes = ends - 1  # each line's closing brace, before a carriage return if one is there
    closes -= octets[closes] == _RETURN
    if not ((octets[starts] == _OPEN_BRACE).all() and (octets[closes] == _CLOSE_BRACE).all()):
        return None
    return values, octets, starts, closes


def _stamps_of(
    block: bytes, start: int, words: np.ndarray[Any, Any], starts: Any, closes: Any, data_at: Any
) -> tuple[Any, Any, dict[int, str], Any] | None:
    """Each line's `ts` (as words, which of them are `shaped`, and the values of those not 24
    long) and where its key span opens; None when a `ts` is not plain text without escapes (the
    block goes line by line)."""
    spans_at = starts + _STAMP_END  # where `","turn":"` opens, when `ts` is 24 long
    stamp_at = starts + len(_OPENING)
    stamps = np.stack([words[stamp_at], words[stamp_at + 8], words[stamp_at + 16]], axis=1)
    # Rows whose `ts` is not 24 long (their key span opens elsewhere) or not in the writer's form.
    other = words[spans_at] != _TURN_WORD
    written = shaped(stamps)
    unusual = np.flatnonzero(other | ~written)
    odd: dict[int, str] = {}
    if not len(unusual):
        return stamps, written, odd, spans_at
    found = _odd_stamps(block, starts + start, unusual, closes + start)
    if found is None:
        return None
    for row, (value, close) in found.items():
        if other[row]:
            odd[row] = value
            spans_at[row] = close - start
        elif close - start != spans_at[row]:
            return None
    if not (data_at >= spans_at + _SHORTEST_SPAN).all():
        return None
    return stamps, written, odd, spans_at


def _block(parsed: Parsed, block: bytes, start: int, stop: int) -> int | None:
    """Take the whole lines of `block[start:stop]` (it ends with a newline) at once.

    Returns how many lines it took, or None when the block must be read line by line (then
    nothing was added). Why the checks suffice: the module's docstring.
    """
    if not block.startswith(_OPENING, start):  # not the compact form: spare the decoding
        return None
    view = memoryview(block)[start:stop]
    first = parsed.keepers[0]
    # UTF-8: `ts` and the key spans are checked here; `data` here or by a keeper decoding it.
    if not first.checks_utf8 and not block.isascii() and not _utf8(view):
        return None
    lined = _by_line(view, _decode_data_lines)
    if lined is None:
        return None
    events, octets, starts, closes = lined
    raws = list(map(_data_of, events))
    sizes = np.fromiter(map(len, raws), dtype=np.int64, count=len(raws))
    data_at = closes - sizes  # where `data` opens if it runs to the line's closing brace
    if not (data_at >= starts + _STAMP_END + _SHORTEST_SPAN).all():
        return None
    words = np.ndarray((stop - start - 7,), dtype="<u8", buffer=view, strides=(1,))
    if not (
        ((words[starts] & _SEVEN_BYTES) == _OPENING_WORD).all()
        and (octets[data_at] == _OPEN_BRACE).all()
    ):
        return None
    stamped = _stamps_of(block, start, words, starts, closes, data_at)
    if stamped is None:
        return None
    stamps, written, odd, spans_at = stamped
    spans = _key_spans(view, spans_at, data_at)
    if spans is None:
        return None
    try:
        first.block(raws, sizes)  # first: it may refuse the block, before anything is kept
    except Refused:
        return None
    for keeper in parsed.keepers[1:]:
        keeper.block(raws, sizes)
    parsed.stamps.add_words(stamps, odd, written)
    parsed.add_block(*spans)
    return len(raws)
