"""The five key fields of event lines, interned: (turn, session, source, kind, name) -> code.

A day has far fewer distinct keys than lines, so the reader looks each line's key up here and
works on the distinct keys afterwards: type checks, categories, where the field names sit on a
compact line. Each field's values are interned too, so the categoricals come from small arrays.
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

    For each code, `fields()` gives the codes of its five values in `interned[i]` (field i's
    value -> code), and `offsets()` where, on a compact line, `,"session` … `,"data":` sit
    after `,"turn":`. `plain` tells whether every key holds five strings: keys that may hold
    other values come in through `code()`, which keeps it exact; `table[key]` is for keys known
    to be five strings (decoded as such by msgspec).
    """

    def __init__(self) -> None:
        super().__init__(count().__next__)
        self.plain = True
        self.interned: list[defaultdict[Any, int]] = [defaultdict(count().__next__) for _ in STEPS]
        self._rows = np.zeros((1024, 2 * len(STEPS)), dtype=np.int64)  # field codes, offsets
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

    def _sync(self) -> np.ndarray[Any, Any]:
        """The rows of every key, computed for the keys learned since the last call."""
        total = len(self)
        if total > self._known:
            fresh = total - self._known
            flat = list(chain.from_iterable(list(islice(reversed(self), fresh))[::-1]))
            if self.plain:  # kept exact by every insertion: all strings
                lengths: Iterable[int] = map(len, flat)
            else:
                lengths = (len(v) if type(v) is str else 0 for v in flat)
            if total > len(self._rows):
                grown = np.zeros((2 * total, self._rows.shape[1]), dtype=np.int64)
                grown[: self._known] = self._rows[: self._known]
                self._rows = grown
            rows = self._rows[self._known : total]
            widths = np.fromiter(lengths, dtype=np.int64, count=len(flat)).reshape(fresh, -1)
            rows[:, len(STEPS) :] = np.cumsum(widths + STEPS, axis=1)
            for i, values in enumerate(self.interned):
                rows[:, i] = np.fromiter(map(values.__getitem__, flat[i :: len(STEPS)]), np.int64)
            self._known = total
        return self._rows

    def fields(self) -> np.ndarray[Any, Any]:
        """(keys, 5): the code of each key's value of each field, in `interned[field]`."""
        return self._sync()[: len(self), : len(STEPS)]

    def offsets(self) -> np.ndarray[Any, Any]:
        """(at least keys, 5): where each later field name sits after `,"turn":`, per key."""
        return self._sync()[:, len(STEPS) :]
