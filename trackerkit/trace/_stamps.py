"""Every row's `ts`, kept as 24 bytes and parsed all at once.

The writer writes `ts` as `2026-11-28T10:00:00.123Z`: 24 ASCII bytes. The reader keeps each row's
`ts` as three little-endian 64-bit words (read straight out of a block, or encoded from a
string read line by line), checks the shape of all of them at once (marks where the marks go,
digits elsewhere) and lets numpy parse the ones that fit. Any other value (an
offset, another precision, escapes, not a string) is kept as written and parsed by pandas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["WIDTH", "Stamps"]

WIDTH = 24
"""The length of a `ts` in the writer's form, `2026-11-28T10:00:00.123Z`."""

_MARKS = {4: "-", 7: "-", 10: "T", 13: ":", 16: ":", 19: ".", 23: "Z"}


# Each byte minus its base is at most its limit: 0-9 for a digit, exactly 0 for a mark.
_BASE = np.array([ord(_MARKS.get(i, "0")) for i in range(WIDTH)], dtype=np.uint8)
_LIMIT = np.array([0 if i in _MARKS else 9 for i in range(WIDTH)], dtype=np.uint8)
_EIGHT_TRUE = np.uint64(0x0101010101010101)  # eight True bytes read as one word


def _shaped(words: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Which rows are in the writer's form: digits and marks where they go."""
    fits = ((words.view(np.uint8) - _BASE) <= _LIMIT).view("<u8")
    shaped: np.ndarray[Any, Any] = fits[:, 0] == _EIGHT_TRUE
    shaped &= fits[:, 1] == _EIGHT_TRUE
    shaped &= fits[:, 2] == _EIGHT_TRUE
    return shaped


class Stamps:
    """The `ts` of every row, in row order: 24-byte rows, plus the values not in that form."""

    def __init__(self) -> None:
        self._chunks: list[np.ndarray[Any, Any]] = []  # (n, 3) little-endian words
        self._pending: list[Any] = []  # values read line by line, not yet in a chunk
        self._rows = 0  # rows in the chunks
        self.odd: dict[int, Any] = {}  # row -> value as written, when not 24 ASCII characters

    def append(self, value: Any) -> None:
        """One row's `ts` as decoded from its line (any JSON value)."""
        self._pending.append(value)

    def add_words(
        self, words: np.ndarray[Any, Any], lengths: np.ndarray[Any, Any], events: Sequence[Any]
    ) -> None:
        """A block's rows: `words` (n, 3) read at each `ts`, good where the value is 24 long.

        `lengths` are the values' lengths (ASCII: in bytes too); `events[row].ts` is the value
        of a row whose `ts` is not 24 long.
        """
        self._flush()
        for row in np.flatnonzero(lengths != WIDTH).tolist():
            words[row] = 0
            self.odd[self._rows + row] = events[row].ts
        self._chunks.append(words)
        self._rows += len(words)

    def _flush(self) -> None:
        pending = self._pending
        if not pending:
            return
        good = [type(v) is str and len(v) == WIDTH and v.isascii() for v in pending]
        if all(good):
            grid = np.frombuffer("".join(pending).encode("ascii"), dtype=np.uint8).copy()
            grid = grid.reshape(-1, WIDTH)
        else:
            grid = np.zeros((len(pending), WIDTH), dtype=np.uint8)
            kept = [v for v, ok in zip(pending, good, strict=True) if ok]
            if kept:
                joined = "".join(kept).encode("ascii")
                grid[np.flatnonzero(good)] = np.frombuffer(joined, np.uint8).reshape(-1, WIDTH)
            for row, ok in enumerate(good):
                if not ok:
                    self.odd[self._rows + row] = pending[row]
        self._chunks.append(grid.view("<u8"))
        self._rows += len(pending)
        self._pending = []

    def words(self) -> np.ndarray[Any, Any]:
        """All rows as (n, 3) little-endian words."""
        self._flush()
        if not self._chunks:
            return np.zeros((0, 3), dtype="<u8")
        if len(self._chunks) > 1:
            self._chunks = [np.concatenate(self._chunks)]
        return self._chunks[0]

    def parse(self, bad: dict[int, str]) -> pd.DatetimeIndex:
        """Every row's `ts` as a UTC time; rows whose `ts` is not an ISO-8601 string join `bad`."""
        words = self.words()
        shaped = _shaped(words)
        micros = np.zeros(len(words), dtype=np.int64)
        grid = words.view(np.uint8)
        every = bool(shaped.all())
        text = np.ascontiguousarray(grid[:, : WIDTH - 1] if every else grid[shaped, : WIDTH - 1])
        try:
            moments = text.view("S23").ravel().astype("datetime64[ms]").astype("datetime64[us]")
        except ValueError:  # numpy refuses a day or an hour out of range: pandas reads them all
            shaped[:] = False
        else:
            if every:
                micros = moments.view(np.int64)
            else:
                micros[shaped] = moments.view(np.int64)
        rest = np.flatnonzero(~shaped).tolist()
        if rest:  # other forms (offsets, other precisions) and broken values: pandas
            odd = self.odd
            raw = [odd[r] if r in odd else grid[r].tobytes().decode("ascii") for r in rest]
            for row, value in zip(rest, raw, strict=True):
                if type(value) is not str:
                    bad.setdefault(row, f"field ts is a {type(value).__name__}, not a string")
            texts: list[Any] = [v if type(v) is str else None for v in raw]
            parsed = pd.to_datetime(texts, utc=True, format="ISO8601", errors="coerce")
            for missing in np.flatnonzero(pd.isna(parsed)).tolist():
                row = rest[missing]
                bad.setdefault(row, f"field ts {raw[missing]!r} is not an ISO-8601 time")
            micros[rest] = pd.DatetimeIndex(parsed).as_unit("us").asi8
        return pd.DatetimeIndex(micros.view("datetime64[us]")).tz_localize("UTC")
