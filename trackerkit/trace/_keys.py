"""The five key fields of event lines, interned: (turn, session, source, kind, name) -> code.

A day has fewer distinct keys than lines, so the reader works on the distinct keys: type
checks, categories. Keys come two ways. A block taken at once gives its distinct key spans as
an Arrow string array (`_lines.py` finds them by their bytes, all at once), and each row a code
into them; a line read on its own looks its key tuple up in `KeyTable`. `key_values` puts both
together at the end as five Arrow string columns, so the categoricals are built by Arrow.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import count
from typing import Any

import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed

__all__ = ["KEY_FIELDS", "STEPS", "KeyTable", "key_values"]

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


_QUOTE = ord('"')
_QUOTES = 23
"""The quotes of a key span, `","turn":"…","session":"…",…,"name":"…","data":` (its values hold
none): value i sits between quotes 3 + 4i and 4 + 4i."""


def _span_values(spans: Any) -> list[Any]:
    """The five values of each key span, as five Arrow string arrays (no Python string made)."""
    spans = spans.combine_chunks() if isinstance(spans, pa.ChunkedArray) else spans
    offsets = np.frombuffer(spans.buffers()[1], dtype=np.int64)[
        spans.offset : spans.offset + len(spans) + 1
    ]
    data = spans.buffers()[2]
    octets = np.frombuffer(data, dtype=np.uint8)[offsets[0] : offsets[-1]]
    found = np.flatnonzero(octets == _QUOTE)
    found += offsets[0]
    quotes = found.reshape(len(spans), _QUOTES)
    columns = []
    for i in range(len(KEY_FIELDS)):
        edges = np.empty(2 * len(spans), dtype=np.int64)
        edges[0::2] = quotes[:, 3 + 4 * i] + 1
        edges[1::2] = quotes[:, 4 + 4 * i]
        pieces = pa.Array.from_buffers(
            pa.large_string(), 2 * len(spans) - 1, [None, pa.py_buffer(edges), data]
        )
        columns.append(pieces.take(pa.array(np.arange(0, 2 * len(spans), 2))))
    return columns


def key_values(blocks: Sequence[Any], table: KeyTable, used: np.ndarray[Any, Any]) -> list[Any]:
    """The five values of the keys numbered `used` (ascending), as five Arrow string arrays.

    Keys are numbered as the rows' codes number them: the blocks' keys first (per block, an
    Arrow string array of key spans, each proven to hold five strings without escapes or
    quotes), then the table's. Used keys are all strings (rows with others were refused).
    """
    first = sum(len(b) for b in blocks)
    from_blocks = used[used < first]
    from_table = used[used >= first] - first
    parts: list[list[Any]] = [[] for _ in KEY_FIELDS]
    if len(from_blocks):
        spans = pa.chunked_array(blocks, type=pa.large_string()).take(pa.array(from_blocks))
        for part, values in zip(parts, _span_values(spans), strict=True):
            part.append(values)
    if len(from_table):
        lined = list(table)
        keys = [lined[k] for k in from_table.tolist()]
        for i, part in enumerate(parts):
            part.append(pa.array([key[i] for key in keys], type=pa.large_string()))
    return [
        pa.concat_arrays(part) if part else pa.array([], type=pa.large_string()) for part in parts
    ]
