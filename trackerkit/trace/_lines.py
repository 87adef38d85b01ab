"""The hot loop of the reader: trace lines into plain lists, broken lines into errors.

Most lines are the writer's own compact form, `{"ts":T,"turn":…,"name":N,"data":{…}}`. A file is
read in blocks of about a megabyte, and each block's whole lines are decoded by one `msgspec`
call (`decode_lines`) that checks their JSON syntax, gives the six strings and leaves `data` as
raw bytes. The five key strings of a line are interned as one tuple (`KeyTable`), which also keeps
where each key's field names must sit on a compact line.

Why a block may be taken at once. The compact form of an event is the shortest JSON text of its
seven values, and its length follows from theirs: `72 + len(ts) + len(turn) + … + len(data)`.
Any other text of the same values (spaces, escapes, non-ASCII strings, a repeated or an extra
field) is longer. Laying the decoded events end to end at their compact lengths, a block is
taken when that layout lands exactly on the block's end, every line opening with `{"ts":"`,
ending with `}` and a newline, and each field name sitting where the compact order puts it.
Then each event is its line (a line that ends in `}` leaves the decoder outside any value, as
the next one opens with `{`, so no event spans two lines, and none is shorter than its compact
form, so each is exactly it): the seven fields are present once each, in order (TC-4), and
`data` is an object. Any other block is read line by line with the same test, and each line
that fails it goes to one `orjson.loads` with the full checks and the reasons.

Nesting. Both decoders follow nested values by recursion and stop with an error past about a
thousand levels (msgspec at Python's recursion limit, orjson at 1,024). Any error a decoder
raises, `RecursionError` included, refuses the block (it is read line by line) and then the one
line, which becomes a broken line with the reason; its neighbours are read (TC-19).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import IO, Any

import msgspec
import numpy as np
import orjson
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed

from trackerkit.errors import NotFoundError, TraceLineError
from trackerkit.trace._data import Dicts, Keeper, Refused
from trackerkit.trace._keys import STEPS, KeyTable
from trackerkit.trace._stamps import Stamps

__all__ = ["BLOCK_BYTES", "BLOCK_MIN", "FIELDS", "Parsed", "parse_into", "reason"]

FIELDS: tuple[str, ...] = ("ts", "turn", "session", "source", "kind", "name", "data")
"""The seven fields of an event line, in the order the contract fixes (TC-4)."""

BLOCK_BYTES = 1 << 20
"""How much of a file is read and decoded at once (about 2,000 lines of 450 bytes)."""

BLOCK_MIN = 1 << 12
"""Shorter stretches of lines are read line by line (a block's fixed costs would not pay)."""

_EXPECTED = ", ".join(FIELDS)
_TOO_DEEP = (
    "nested deeper than the reader follows ({exc}); the writer cuts data deeper than four "
    "levels to …[deep] (TC-7)"
)
# What a decoder may raise on hostile bytes besides its own error: nesting past the stack.
_DECODE_ERRORS = (msgspec.DecodeError, RecursionError)


def _word(text: bytes) -> np.uint64:
    """Eight bytes as the little-endian number a strided `<u8` view reads."""
    return np.frombuffer(text.ljust(8, b"\0"), dtype="<u8")[0]  # type: ignore[no-any-return]


_OPENING = b'{"ts":"'
_OPENING_WORD = _word(_OPENING)
_SEVEN_BYTES = np.uint64((1 << 56) - 1)
# The field names after ts, each as the 8 bytes that open it on a compact line: enough to tell
# the seven apart (a line of compact length holds exactly the seven, see the docstring).
_NAMES = (b',"turn":', b',"sessio', b',"source', b',"kind":', b',"name":', b',"data":')
_NAME_WORDS = tuple(_word(name) for name in _NAMES)
_LATER_NAME_WORDS = np.array(_NAME_WORDS[1:], dtype="<u8")
_STEP_LIST = tuple(STEPS.tolist())
_OPEN_BRACE = ord("{")
_CLOSE_BRACE = ord("}")
_NEWLINE = ord("\n")


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
_data_of = attrgetter("data")


@dataclass
class Parsed:
    """The good lines of one or more files, in row order, plus their errors.

    The five string fields of a line are interned as one key tuple: each row has a code into
    `table` (`codes()`), so type checks and categoricals work on the few distinct keys only
    (`table` may hold keys of lines later refused: count codes before using its keys).
    `stamps` holds each row's `ts` (parsed all at once at the end); each of `keepers` keeps
    what it keeps of every row's `data` (`_data.py`: dicts by default).
    """

    stamps: Stamps = field(default_factory=Stamps)
    keys: list[int] = field(default_factory=list)  # codes of rows read line by line, pending
    keepers: list[Keeper] = field(default_factory=lambda: [Dicts()])
    chunks: list[np.ndarray[Any, Any]] = field(default_factory=list)  # line numbers, by file
    table: KeyTable = field(default_factory=KeyTable)
    files: list[tuple[str, str | None, int]] = field(default_factory=list)  # (file, day, rows)
    errors: list[TraceLineError] = field(default_factory=list)
    _codes: list[np.ndarray[Any, Any]] = field(default_factory=list)

    def add_codes(self, codes: np.ndarray[Any, Any]) -> None:
        """A block's codes, after the pending ones."""
        if self.keys:
            self._codes.append(np.array(self.keys, dtype=np.int64))
            self.keys = []
        self._codes.append(codes)

    def codes(self) -> np.ndarray[Any, Any]:
        """Every row's code into `table`, in row order."""
        if self.keys or not self._codes:
            self._codes.append(np.array(self.keys, dtype=np.int64))
            self.keys = []
        if len(self._codes) > 1:
            self._codes = [np.concatenate(self._codes)]
        return self._codes[0]

    def line_numbers(self) -> np.ndarray[Any, Any]:
        """The 1-based line number of every kept row, in row order."""
        if not self.chunks:
            return np.empty(0, dtype=np.int64)
        return np.concatenate(self.chunks)


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


def _slow(parsed: Parsed, raw: bytes, number: int, label: str) -> TraceLineError | None:
    """One line by `orjson.loads` and the full checks; the error, or None when it was kept."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return TraceLineError(label, number, reason(raw, exc, None))
    except RecursionError as exc:
        return TraceLineError(label, number, _TOO_DEEP.format(exc=exc))
    if type(obj) is not dict or tuple(obj) != FIELDS:
        return TraceLineError(label, number, reason(raw, None, obj))
    ts, turn, session, source, kind, name, data = obj.values()
    if type(data) is not dict:
        return TraceLineError(
            label, number, f"field data is a {type(data).__name__}, not an object"
        )
    parsed.stamps.append(ts)
    parsed.keys.append(parsed.table.code((turn, session, source, kind, name)))
    for keeper in parsed.keepers:
        keeper.value(data)
    return None


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
    # Where each name sits on the compact line of these values (see the module's docstring).
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


def _block(parsed: Parsed, block: bytes, start: int, stop: int) -> int | None:
    """Take the whole lines of `block[start:stop]` (it ends with a newline) at once.

    Returns how many lines it took, or None when the block must be read line by line (then
    no row was added, though keys may have been learned).
    """
    view = memoryview(block)[start:stop]
    first = parsed.keepers[0]
    # UTF-8: msgspec checks the six strings; `data` is checked here or by a keeper decoding it.
    if not first.checks_utf8 and not block.isascii() and not _utf8(view):
        return None
    try:
        events = _decode_events(view)
    except _DECODE_ERRORS:
        return None
    lines = len(events)
    if not lines:
        return None
    table = parsed.table
    codes = np.fromiter(map(table.__getitem__, map(_key_of, events)), np.int64, count=lines)
    stamp_lengths = np.fromiter(map(len, map(_ts_of, events)), dtype=np.int64, count=lines)
    raws = list(map(_data_of, events))
    turn_at = stamp_lengths + 8  # on each line, from its start
    names_at = turn_at[:, None] + table.offsets()[codes]  # `,"session` … `,"data":`
    sizes = np.fromiter(map(len, raws), dtype=np.int64, count=lines)
    lengths = names_at[:, -1] + sizes + 10
    ends = np.cumsum(lengths)  # one past each line's newline
    if int(ends[-1]) != stop - start:
        return None
    starts = ends - lengths
    turn_at += starts  # in the block from here on
    names_at += starts[:, None]
    words = np.ndarray((stop - start - 7,), dtype="<u8", buffer=view, strides=(1,))
    octets = np.frombuffer(view, dtype=np.uint8)
    if not (
        ((words[starts] & _SEVEN_BYTES) == _OPENING_WORD).all()
        and (words[turn_at] == _NAME_WORDS[0]).all()
        and (words[names_at] == _LATER_NAME_WORDS).all()
        and (octets[names_at[:, -1] + 8] == _OPEN_BRACE).all()
        and (octets[ends - 2] == _CLOSE_BRACE).all()
        and (octets[ends - 1] == _NEWLINE).all()
    ):
        return None
    try:
        first.block(raws, sizes)  # first: it may refuse the block, before anything is kept
    except Refused:
        return None
    for keeper in parsed.keepers[1:]:
        keeper.block(raws, sizes)
    ts_at = starts + 7
    parsed.stamps.add_words(
        np.stack([words[ts_at], words[ts_at + 8], words[ts_at + 16]], axis=1),
        stamp_lengths,
        events,
    )
    parsed.add_codes(codes)
    return lines


def _blocks(handle: IO[bytes]) -> Iterator[tuple[bytes, int, int]]:
    """The file as (block, start, stop): whole lines, each slice ending with a newline.

    A line cut by a block's end is given alone (its head from the last block, its tail from
    the next) so that blocks need no copying; the file's last line may lack its newline.
    """
    tail = b""
    while block := handle.read(BLOCK_BYTES):
        first = block.find(b"\n") + 1
        if not first:
            tail += block
            continue
        yield tail + block[:first], 0, len(tail) + first
        last = block.rfind(b"\n") + 1
        if last > first:
            yield block, first, last
        tail = block[last:]
    if tail:
        yield tail, 0, len(tail)


def parse_into(
    path: Path,
    label: str,
    day: str | None,
    parsed: Parsed,
    strict: bool,
    advance: Callable[[int], object] | None = None,
) -> None:
    """Append the lines of one file to `parsed`: the hot loop of every reader.

    `advance(n)` is called with the bytes of each stretch read (for a progress bar).
    """
    errors = parsed.errors
    first_error = len(errors)
    number = 0
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise NotFoundError(f"{path} does not exist.") from None
    with handle:
        for block, start, stop in _blocks(handle):
            if advance is not None:
                advance(stop - start)
            taken = _block(parsed, block, start, stop) if stop - start > BLOCK_MIN else None
            if taken is not None:
                number += taken
                continue
            lines = block[start:stop].split(b"\n")
            if lines[-1] == b"":
                lines.pop()
            for number, raw in enumerate(lines, number + 1):  # noqa: B020 (numbering goes on)
                error = _one(parsed, raw, number, label)
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
