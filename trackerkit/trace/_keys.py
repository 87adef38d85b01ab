"""The five key fields of event lines, interned: (turn, session, source, kind, name) -> code.

A day has far fewer distinct keys than lines, so the reader looks each line's key up here and
works on the distinct keys afterwards: type checks, categories, where the field names sit on a
compact line. Each field's distinct values are found once, at the end, so the categoricals
come from small arrays.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import chain, count, islice
from typing import Any

import numpy as np

__all__ = ["STEPS", "KeyTable"]

STEPS = np.array([10, 13, 12, 10, 10], dtype=np.int64)
"""On a compact line, the bytes from each of `,"turn":`, `,"session":`, `,"source":`, `,"kind":`
and `,"name":` to the next field name, less the value's length: the name, `:`, two quotes."""


class KeyTable(defaultdict[tuple[Any, ...], int]):
    """Key -> code, learning a new key (the next number, from a C counter) on first lookup.

    `offsets()` gives, for each code, where `,"session` … `,"data":` sit after `,"turn":` on a
    compact line (kept up to date block by block, from the new keys' lengths alone);
    `fields()` and `values()` give each key's five values as codes into each field's distinct
    values (worked out once, when the frame is built). `plain` tells whether every key holds
    five strings: keys that may hold other values come in through `code()`, which keeps it
    exact; `table[key]` is for keys known to be five strings (decoded as such by msgspec).
    """

    def __init__(self) -> None:
        super().__init__(count().__next__)
        self.plain = True
        self._offsets = np.zeros((1024, len(STEPS)), dtype=np.int64)
        self._known = 0

    def code(self, key: tuple[Any, ...]) -> int:
        """The code of any key (-1 when unhashable: a list or an object in a string's place)."""
        try:
            code = self[key]
        except TypeError:
            self.plain = False
            return -1
        if self.plain and not all(type(v) is str for v in key):
            self.plain = False
        return code

    def offsets(self) -> np.ndarray[Any, Any]:
        """(at least keys, 5): where each later field name sits after `,"turn":`, per key."""
        total = len(self)
        if total > self._known:
            fresh = total - self._known
            flat = list(chain.from_iterable(list(islice(reversed(self), fresh))[::-1]))
            if self.plain:  # kept exact by every insertion: all strings
                lengths: Iterable[int] = map(len, flat)
            else:
                lengths = (len(v) if type(v) is str else 0 for v in flat)
            if total > len(self._offsets):
                grown = np.zeros((2 * total, len(STEPS)), dtype=np.int64)
                grown[: self._known] = self._offsets[: self._known]
                self._offsets = grown
            widths = np.fromiter(lengths, dtype=np.int64, count=len(flat)).reshape(fresh, -1)
            self._offsets[self._known : total] = np.cumsum(widths + STEPS, axis=1)
            self._known = total
        return self._offsets

    def fields(self) -> tuple[np.ndarray[Any, Any], list[np.ndarray[Any, Any]]]:
        """(keys, 5) codes of each key's values, and each field's distinct values they index."""
        codes = np.empty((len(self), len(STEPS)), dtype=np.int64)
        values = []
        for i, column in enumerate(zip(*self, strict=True) if len(self) else [()] * len(STEPS)):
            distinct = dict(zip(dict.fromkeys(column), count(), strict=False))
            codes[:, i] = np.fromiter(map(distinct.__getitem__, column), np.int64, len(column))
            found = np.empty(len(distinct), dtype=object)
            found[:] = list(distinct)
            values.append(found)
        return codes, values
