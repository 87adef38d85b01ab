"""The rows the reader keeps (`Parsed`), and the checks that make a decoded line one of them.

A line decoded whole is a row when it is an object of the seven `FIELDS` in order and its
`data` is an object (`_checked`): its `ts` and key go to `Parsed`, its `data` to the keepers.
Otherwise it is a broken line, a `TraceLineError` whose reason says in words what was found
(`reason` for a line that did not decode, `_shape` for one that is not an event).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from trackerkit.errors import TraceLineError
from trackerkit.trace._data import Dicts, Keeper
from trackerkit.trace._keys import KeyTable, key_values
from trackerkit.trace._lazy import loads
from trackerkit.trace._stamps import Stamps

__all__ = ["FIELDS", "Parsed", "reason"]

FIELDS: tuple[str, ...] = ("ts", "turn", "session", "source", "kind", "name", "data")
"""The seven fields of an event line, in the order the contract fixes (TC-4)."""

_EXPECTED = ", ".join(FIELDS)
_BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte order mark: the writer never puts one, an editor may; JSON readers may ignore
it (RFC 8259, 8.1), so one opening a file is skipped and line 1 is read as written after it."""


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
