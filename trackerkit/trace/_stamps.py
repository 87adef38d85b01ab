"""Every row's `ts`, kept as 24 bytes and parsed all at once.

The writer writes `ts` as `2026-11-28T10:00:00.123Z`: 24 ASCII bytes. The reader keeps each row's
`ts` as three little-endian 64-bit words (read straight out of a block, or encoded from a
string read line by line), checks the shape of all of them at once (marks where the marks go,
digits elsewhere) and that they name a real moment (a month of the year, a day of that month in
that year, an hour, a minute and a second of the clock), and lets numpy parse only the ones that
pass both: numpy's string cast is never handed a value it has not been proven to accept (an
impossible day in a large array crashes it instead of raising). Any other value (an offset,
another precision, escapes, an impossible moment, not a string) is kept as written and parsed
by pandas, which refuses what is not a time: that row becomes a broken line (TC-19). A comma
before the seconds' fraction (ISO-8601's other decimal sign, `10:00:00,5Z`) is read as the dot;
an ISO-8601 time outside the years 1 to 9999 in UTC (`0001-01-01T00:30:00+01:00`) is refused
saying so, in the writer's words.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["WIDTH", "Stamps", "shaped"]

WIDTH = 24
"""The length of a `ts` in the writer's form, `2026-11-28T10:00:00.123Z`."""

_MARKS = {4: "-", 7: "-", 10: "T", 13: ":", 16: ":", 19: ".", 23: "Z"}


# Each byte minus its base is at most its limit: 0-9 for a digit, exactly 0 for a mark.
_BASE = np.array([ord(_MARKS.get(i, "0")) for i in range(WIDTH)], dtype=np.uint8)
_LIMIT = np.array([0 if i in _MARKS else 9 for i in range(WIDTH)], dtype=np.uint8)
_EIGHT_TRUE = np.uint64(0x0101010101010101)  # eight True bytes read as one word
_NO_SUCH_MOMENT = (
    "names no real moment; a ts needs a year 0001-9999, a month 1-12, a day of that month, "
    "an hour 0-23 and a minute and second 0-59"
)
# In the words of the writer (`write.format_ts`), which refuses such a moment.
_OUTSIDE = (
    "falls {side} in UTC, which no trace timestamp can name (a ts lies between 0001-01-01 and "
    "9999-12-31 UTC)"
)
# ISO-8601 allows a comma as the decimal sign; pandas reads the dot only. After the seconds
# only: extended (`10:00:00,5`) or basic (`T100000,5`) form.
_COMMA = re.compile(r"(?<=\d\d:\d\d:\d\d),(?=\d)|(?<=T\d{6}),(?=\d)")
# Days of each month, indexed by the month's number; 0 outside 1-12 (no day fits).
_MONTH_DAYS = np.array([0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 0], dtype=np.uint8)


def shaped(words: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Which rows are in the writer's form: digits and marks where they go."""
    fits = ((words.view(np.uint8) - _BASE) <= _LIMIT).view("<u8")
    fit: np.ndarray[Any, Any] = fits[:, 0] == _EIGHT_TRUE
    fit &= fits[:, 1] == _EIGHT_TRUE
    fit &= fits[:, 2] == _EIGHT_TRUE
    return fit


def _number(grid: np.ndarray[Any, Any], first: int, width: int, dtype: Any) -> np.ndarray[Any, Any]:
    """The digits at `grid[:, first:first + width]` as numbers (garbage where not digits: those
    rows are not shaped, and `dtype` may wrap around on them)."""
    value = grid[:, first].astype(dtype) - 48
    for column in range(first + 1, first + width):
        value = value * 10 + (grid[:, column].astype(dtype) - 48)
    return value


def _real(grid: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Which shaped rows name a real moment: month 1-12, a day of that month (leap years
    counted), hour 0-23, minute and second 0-59 (numpy takes nothing else, see the docstring).
    """
    month = _number(grid, 5, 2, np.uint8)  # two digits fit a byte
    day = _number(grid, 8, 2, np.uint8)
    real: np.ndarray[Any, Any] = (day >= 1) & (day <= np.take(_MONTH_DAYS, month, mode="clip"))
    real &= _number(grid, 11, 2, np.uint8) < 24
    real &= _number(grid, 14, 2, np.uint8) < 60
    real &= _number(grid, 17, 2, np.uint8) < 60
    real &= _number(grid, 0, 4, np.int32) >= 1  # no year 0: Python's dates start at year 1
    leap_days = np.flatnonzero((month == 2) & (day == 29))
    if len(leap_days):  # the 29th of February is real in leap years only
        year = _number(grid[leap_days], 0, 4, np.int32)
        real[leap_days] &= (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    return real


class Stamps:
    """The `ts` of every row, in row order: 24-byte rows, plus the values not in that form."""

    def __init__(self) -> None:
        self._chunks: list[np.ndarray[Any, Any]] = []  # (n, 3) little-endian words
        self._written: list[np.ndarray[Any, Any]] = []  # each chunk's rows: `shaped`
        self._pending: list[Any] = []  # values read line by line, not yet in a chunk
        self._rows = 0  # rows in the chunks
        self.odd: dict[int, Any] = {}  # row -> value as written, when not 24 ASCII characters

    def append(self, value: Any) -> None:
        """One row's `ts` as decoded from its line (any JSON value)."""
        self._pending.append(value)

    def add_words(
        self, words: np.ndarray[Any, Any], odd: dict[int, str], written: np.ndarray[Any, Any]
    ) -> None:
        """A block's rows: `words` (n, 3) read at each `ts`, good except at the rows of `odd`,
        whose `ts` is not 24 bytes long (row in the block -> the value); `written`: `shaped`
        of `words`, as the block reader found it."""
        self._flush()
        for row, value in odd.items():
            words[row] = 0
            written[row] = False
            self.odd[self._rows + row] = value
        self._chunks.append(words)
        self._written.append(written)
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
        self._written.append(shaped(self._chunks[-1]))
        self._rows += len(pending)
        self._pending = []

    def words(self) -> np.ndarray[Any, Any]:
        """All rows as (n, 3) little-endian words."""
        self._flush()
        if not self._chunks:
            return np.zeros((0, 3), dtype="<u8")
        if len(self._chunks) > 1:
            self._chunks = [np.concatenate(self._chunks)]
            self._written = [np.concatenate(self._written)]
        return self._chunks[0]

    def parse(self, bad: dict[int, str]) -> pd.DatetimeIndex:
        """Every row's `ts` as a UTC time; rows whose `ts` is not an ISO-8601 string join `bad`."""
        words = self.words()
        grid = words.view(np.uint8)
        written = self._written[0] if self._written else shaped(words)  # the writer's form
        good = written & _real(grid)  # and a real moment: numpy may parse these
        micros = np.zeros(len(words), dtype=np.int64)
        every = bool(good.all())
        text = np.ascontiguousarray(grid[:, : WIDTH - 1] if every else grid[good, : WIDTH - 1])
        try:
            moments = text.view("S23").ravel().astype("datetime64[ms]").astype("datetime64[us]")
        except ValueError:  # not expected after `_real`; should numpy refuse one, pandas reads all
            good[:] = False
        else:
            if every:
                micros = moments.view(np.int64)
            else:
                micros[good] = moments.view(np.int64)
        rest = np.flatnonzero(~good).tolist()
        if rest:  # other forms (offsets, other precisions) and broken values: pandas
            odd = self.odd
            raw = [odd[r] if r in odd else grid[r].tobytes().decode("ascii") for r in rest]
            for row, value in zip(rest, raw, strict=True):
                if type(value) is not str:
                    bad.setdefault(row, f"field ts is a {type(value).__name__}, not a string")
            # An ISO-8601 time opens with a digit; pandas would also read "now" and "today",
            # the clock of the machine reading, not a moment of the journal.
            # RFC 3339 lets `t` and `z` be written small; pandas reads them capital only.
            texts: list[Any] = [
                _decimal_dot(v.upper()) if type(v) is str and "0" <= v[:1] <= "9" else None
                for v in raw
            ]
            parsed = _far_years_alone(
                texts,
                pd.DatetimeIndex(
                    pd.to_datetime(texts, utc=True, format="ISO8601", errors="coerce")
                ).as_unit("us"),
            )
            # Year 0 and years past 9999 parse, but no Python date holds them (pandas then
            # fails to print them): they name no moment a journal was written at.
            before = np.asarray(parsed.year < 1)
            outside = before | np.asarray(parsed.year > 9999)
            if outside.any():
                parsed = pd.DatetimeIndex(parsed.where(~outside))
            for missing in np.flatnonzero(pd.isna(parsed)).tolist():
                row = rest[missing]
                if written[row]:
                    why = _NO_SUCH_MOMENT
                elif outside[missing]:
                    why = _OUTSIDE.format(
                        side="before 0001-01-01" if before[missing] else "after 9999-12-31"
                    )
                else:
                    why = "is not an ISO-8601 time"
                bad.setdefault(row, f"field ts {raw[missing]!r} {why}")
            micros[rest] = parsed.as_unit("us").asi8
        return pd.DatetimeIndex(micros.view("datetime64[us]")).tz_localize("UTC")


def _far_years_alone(texts: list[Any], parsed: pd.DatetimeIndex) -> pd.DatetimeIndex:
    """`parsed` with each time of a year nanoseconds cannot hold (before 1678, after 2261) that
    the batch left NaT read again alone: pandas gives a batch one resolution, and a 7-digit
    fraction in one value makes it nanoseconds, which would refuse the year 2300 of another."""
    again = [
        row
        for row in np.flatnonzero(pd.isna(parsed)).tolist()
        if texts[row] is not None
        and texts[row][:4].isdigit()
        and not 1678 <= int(texts[row][:4]) <= 2261
    ]
    if not again:
        return parsed
    micros = parsed.asi8.copy()
    for row in again:
        alone = pd.to_datetime([texts[row]], utc=True, format="ISO8601", errors="coerce")
        if not pd.isna(alone[0]):
            micros[row] = alone.as_unit("us").asi8[0]
    return pd.DatetimeIndex(micros.view("datetime64[us]")).tz_localize("UTC")


def _decimal_dot(text: str) -> str:
    """`text` with a comma before the seconds' fraction written as the dot pandas reads."""
    return _COMMA.sub(".", text, count=1) if "," in text else text
