"""The five key fields of event lines, interned: (turn, session, source, kind, name) -> code.

A day has far fewer distinct keys than lines, so the reader works on the distinct keys: type
checks, categories. Keys come two ways. A block taken at once gives its distinct keys as Arrow
string columns (`_lines.py` finds them by their bytes, all at once), and each row a code into
them; a line read on its own looks its key tuple up in `KeyTable`. `key_fields` puts both
together at the end, so the categoricals come from small arrays.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import count
from typing import Any

import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed
import pyarrow.compute as pc  # type: ignore[import-untyped]

__all__ = ["KEY_FIELDS", "STEPS", "KeyTable", "key_fields"]

KEY_FIELDS = ("turn", "session", "source", "kind", "name")
"""The five key fields, in the order of the line (TC-4)."""

STEPS = np.array([10, 13, 12, 10, 10], dtype=np.int64)
"""On a compact line, the bytes from each of `,"turn":`, `,"session":`, `,"source":`, `,"kind":`
and `,"name":` to the next field name, less the value's length: the name, `:`, two quotes."""


class KeyTable(defaultdict[tuple[Any, ...], int]):
    """Key -> code for lines read one by one, learning a new key (the next number) on first lookup.

    `plain` tells whether every key holds five strings: keys that may hold other values come in
    through `code()`, which keeps it exact; `table[key]` is for keys known to be five strings
    (decoded as such by msgspec).
    """

    def __init__(self) -> None:
        super().__init__(count().__next__)
        self.plain = True

    def code(self, key: tuple[Any, ...]) -> int:
        """The code of any key (-1 when unhashable: a list or an object in a string's place)."""
        try:
            code = self[key]
        except TypeError:
            self.plain = False
            return -1
        # A key's kinds are looked at once, when it is learned (it is then the newest).
        if self.plain and code == len(self) - 1 and not all(type(v) is str for v in key):
            self.plain = False
        return code


def key_fields(
    blocks: Sequence[Any], table: KeyTable
) -> tuple[np.ndarray[Any, Any], list[np.ndarray[Any, Any]]]:
    """Every key's five values as codes, and each field's distinct values the codes index.

    Keys are numbered as the rows' codes number them: the blocks' keys first (per block, an
    Arrow string array of key spans, `","turn":"…","session":"…",…,"name":"…","data":`, each
    proven to hold five strings without escapes or quotes), then the table's. Returns a
    (keys, 5) array of codes and, per field, an object array of its distinct values.
    """
    spans = pa.concat_arrays(blocks) if blocks else None
    first = len(spans) if spans is not None else 0
    # Split at the quotes, a span's five values are its pieces 4, 8, 12, 16 and 20.
    pieces = pc.split_pattern(spans, '"') if spans is not None else None
    lined = list(table)
    codes = np.empty((first + len(lined), len(KEY_FIELDS)), dtype=np.int64)
    values = []
    for i in range(len(KEY_FIELDS)):
        distinct: dict[Any, int] = {}
        if pieces is not None:
            encoded = pc.dictionary_encode(pc.list_element(pieces, 4 * i + 4))
            codes[:first, i] = encoded.indices.to_numpy(zero_copy_only=False)
            distinct = dict(zip(encoded.dictionary.to_pylist(), count(), strict=False))
        column = [key[i] for key in lined]
        codes[first:, i] = np.fromiter(
            (distinct.setdefault(v, len(distinct)) for v in column), np.int64, len(column)
        )
        found = np.empty(len(distinct), dtype=object)
        found[:] = list(distinct)
        values.append(found)
    return codes, values
