"""The hot loop of the reader: trace lines into plain lists, broken lines into errors.

Most lines are the writer's own compact form, `{"ts":T,"turn":…,"name":N,"data":{…}}`. A file is
read in blocks of about a megabyte, and each block's whole lines are decoded by one `msgspec`
call (`decode_lines`) that checks their JSON syntax and gives each line's `data` as raw bytes
(the other fields are checked and skipped). The rest is proven from the block's bytes at once.

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
line read alone is (`_loose_block`). A block that fails that is read line by line: a line is
taken alone when its length is that of the compact text of its values, and otherwise goes to
one full decode with the checks and the reasons.

Values. Every path reads `data` as `_lazy.loads` does (msgspec; the standard library for what
it refuses that is still JSON), so a file reads alike however it is split into blocks.

Nesting. Both decoders follow nested values by recursion and stop with an error past about a
thousand levels. Any error a decoder raises, `RecursionError` included, refuses the block (it
is read line by line) and then the one line, which becomes a broken line with the reason; its
neighbours are read (TC-19).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import IO, Any

import msgspec
import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed
import pyarrow.compute as pc  # type: ignore[import-untyped]

from trackerkit.errors import NotFoundError, TraceLineError
from trackerkit.trace._data import Dicts, Keeper, Refused
from trackerkit.trace._keys import KEY_FIELDS, STEPS, KeyTable, key_values
from trackerkit.trace._lazy import as_text, loads
from trackerkit.trace._stamps import WIDTH, Stamps, shaped

__all__ = ["BLOCK_BYTES", "BLOCK_MIN", "FIELDS", "Parsed", "parse_into", "reason"]

FIELDS: tuple[str, ...] = ("ts", "turn", "session", "source", "kind", "name", "data")
"""The seven fields of an event line, in the order the contract fixes (TC-4)."""

BLOCK_BYTES = 1 << 20
"""How much of a file is read and decoded at once (about 2,000 lines of 450 bytes)."""

BLOCK_MIN = 1 << 12
"""Shorter stretches of lines are read line by line (a block's fixed costs would not pay)."""

_EXPECTED = ", ".join(FIELDS)
_BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte order mark: the writer never puts one, an editor may; JSON readers may ignore
it (RFC 8259, 8.1), so one opening a file is skipped and line 1 is read as written after it."""
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
_TURN_WORD = _word(b'","turn"')  # where a 24-byte `ts` ends: its closing quote, then `,"turn"`
_STAMP_END = len(_OPENING) + WIDTH  # from a line's start
# The field names after ts, each as the 8 bytes that open it on a compact line.
_NAMES = (b',"turn":', b',"sessio', b',"source', b',"kind":', b',"name":', b',"data":')
_STEP_LIST = tuple(STEPS.tolist())
_OPEN_BRACE = ord("{")
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

    The five string fields of a line are interned as one key: each row has a code (`codes()`)
    into the keys, numbered as `key_values()` numbers them: the distinct keys of each block
    taken at once (`blocks`, Arrow structs of five strings), then the keys of lines read one
    by one (`table`, which may hold keys of lines later refused: count codes before using keys).
    `stamps` holds each row's `ts` (parsed all at once at the end); each of `keepers` keeps
    what it keeps of every row's `data` (`_data.py`: dicts by default).
    """

    stamps: Stamps = field(default_factory=Stamps)
    keys: list[int] = field(default_factory=list)  # codes of rows read line by line, pending
    keepers: list[Keeper] = field(default_factory=lambda: [Dicts()])
    chunks: list[np.ndarray[Any, Any]] = field(default_factory=list)  # line numbers, by file
    table: KeyTable = field(default_factory=KeyTable)
    blocks: list[Any] = field(default_factory=list)  # each taken block's distinct keys
    block_keys: int = 0  # how many keys `blocks` hold
    files: list[tuple[str, str | None, int]] = field(default_factory=list)  # (file, day, rows)
    errors: list[TraceLineError] = field(default_factory=list)
    _codes: list[tuple[np.ndarray[Any, Any], bool]] = field(default_factory=list)

    def add_block(self, keys: Any, codes: np.ndarray[Any, Any]) -> None:
        """A block's distinct keys and its rows' codes into them, after the pending rows."""
        self._close_pending()
        self._codes.append((codes + self.block_keys, True))
        self.blocks.append(keys)
        self.block_keys += len(keys)

    def _close_pending(self) -> None:
        if self.keys:
            self._codes.append((np.array(self.keys, dtype=np.int64), False))
            self.keys = []

    def codes(self) -> np.ndarray[Any, Any]:
        """Every row's code into the keys of `key_values()` (-1: a key that is no key), in row order."""
        self._close_pending()
        shift = self.block_keys
        parts = [c if taken else np.where(c >= 0, c + shift, -1) for c, taken in self._codes]
        if not parts:
            return np.empty(0, dtype=np.int64)
        return np.concatenate(parts)

    def key_count(self) -> int:
        """How many keys the rows' codes number."""
        return self.block_keys + len(self.table)

    def key_values(self, used: np.ndarray[Any, Any]) -> list[Any]:
        """The five values of the keys numbered `used` (ascending), as Arrow string arrays."""
        return key_values(self.blocks, self.table, used)

    def line_numbers(self) -> np.ndarray[Any, Any]:
        """The 1-based line number of every kept row, in row order."""
        if not self.chunks:
            return np.empty(0, dtype=np.int64)
        return np.concatenate(self.chunks)


def reason(raw: bytes, exc: Exception) -> str:
    """Why a line that did not decode was refused, in words."""
    if not raw.strip():
        return "empty line"
    if raw.startswith(_BOM):
        return "a UTF-8 byte order mark opens the line (only one opening the file is skipped)"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"invalid UTF-8 at byte {bad.start}"
    if raw.endswith(b"\r"):  # a CRLF file: worded as the line without its line ending
        try:
            loads(raw[:-1])
        except (ValueError, RecursionError) as bare:
            exc = bare
    return f"not valid JSON ({exc})"


def _shape(obj: Any) -> str:
    """Why a decoded line is not an event (not an object of the seven fields in order)."""
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


def _checked(parsed: Parsed, obj: Any, number: int, label: str) -> TraceLineError | dict[str, Any]:
    """A decoded line with the full checks: its `ts` and key are kept and its `data` returned
    (for the keepers), or the error that says why it is not an event."""
    if type(obj) is not dict or tuple(obj) != FIELDS:
        return TraceLineError(label, number, _shape(obj))
    ts, turn, session, source, kind, name, data = obj.values()
    if type(data) is not dict:
        return TraceLineError(
            label, number, f"field data is a {type(data).__name__}, not an object"
        )
    parsed.stamps.append(ts)
    parsed.keys.append(parsed.table.code((turn, session, source, kind, name)))
    return data


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
) -> tuple[Any, dict[int, str], Any] | None:
    """Each line's `ts` (as words, plus the values of those not 24 long) and where its key span
    opens; None when a `ts` is not plain text without escapes (the block goes line by line)."""
    spans_at = starts + _STAMP_END  # where `","turn":"` opens, when `ts` is 24 long
    stamp_at = starts + len(_OPENING)
    stamps = np.stack([words[stamp_at], words[stamp_at + 8], words[stamp_at + 16]], axis=1)
    # Rows whose `ts` is not 24 long (their key span opens elsewhere) or not in the writer's form.
    other = words[spans_at] != _TURN_WORD
    unusual = np.flatnonzero(other | ~shaped(stamps))
    odd: dict[int, str] = {}
    if not len(unusual):
        return stamps, odd, spans_at
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
    return stamps, odd, spans_at


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
    stamps, odd, spans_at = stamped
    spans = _key_spans(view, spans_at, data_at)
    if spans is None:
        return None
    try:
        first.block(raws, sizes)  # first: it may refuse the block, before anything is kept
    except Refused:
        return None
    for keeper in parsed.keepers[1:]:
        keeper.block(raws, sizes)
    parsed.stamps.add_words(stamps, odd)
    parsed.add_block(*spans)
    return len(raws)


def _blocks(handle: IO[bytes]) -> Iterator[tuple[bytes, int, int]]:
    """The file as (block, start, stop): whole lines, each slice ending with a newline.

    A line cut by a block's end is given alone (its head from the last block, its tail from
    the next) so that blocks need no copying; the file's last line may lack its newline.
    """
    tail = b""
    pieces: list[bytes] = []  # of a line longer than a block (joined once: no copy per block)
    while block := handle.read(BLOCK_BYTES):
        first = block.find(b"\n") + 1
        if not first:
            pieces.append(block)
            continue
        if pieces:
            tail = b"".join([tail, *pieces])
            pieces = []
        yield tail + block[:first], 0, len(tail) + first
        last = block.rfind(b"\n") + 1
        if last > first:
            yield block, first, last
        tail = block[last:]
    if pieces:
        tail = b"".join([tail, *pieces])
    if tail:
        yield tail, 0, len(tail)


def parse_into(
    path: Path,
    label: str,
    day: str | None,
    parsed: Parsed,
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
        if handle.read(len(_BOM)) != _BOM:  # a byte order mark opening the file is not a line's
            handle.seek(0)
        for block, start, stop in _blocks(handle):
            if advance is not None:
                advance(stop - start)
            taken = _block(parsed, block, start, stop) if stop - start > BLOCK_MIN else None
            if taken is not None:
                number += taken
                continue
            loose = (
                _loose_block(parsed, block, start, stop, number + 1, label)
                if stop - start > BLOCK_MIN
                else None
            )
            if loose is not None:
                read, bad = loose
                errors += bad
                number += read
                continue
            lines = block[start:stop].split(b"\n")
            if lines[-1] == b"":
                lines.pop()
            for number, raw in enumerate(lines, number + 1):  # noqa: B020 (numbering goes on)
                error = _one(parsed, raw, number, label)
                if error is not None:
                    errors.append(error)
    # Every line read is a row unless it was refused: the rows' numbers need no list.
    numbers = np.arange(1, number + 1, dtype=np.int64)
    refused = [e.line - 1 for e in errors[first_error:]]
    if refused:
        numbers = np.delete(numbers, refused)
    parsed.chunks.append(numbers)
    parsed.files.append((label, day, len(numbers)))
