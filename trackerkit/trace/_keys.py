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
import pyarrow.compute as pc  # type: ignore[import-untyped]

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


_OPENINGS = (10, 13, 12, 10, 10)
"""On a key span, `","turn":"…","session":"…",…,"name":"…","data":` (its values hold no quote),
the bytes from the span's start or a value's closing quote to the next value: `","turn":"`,
`","session":"`, `","source":"`, `","kind":"`, `","name":"`."""


def _span_values(spans: Any) -> list[Any]:
    """The five values of each key span, as five Arrow string arrays (no Python string made).

    Each value opens a fixed number of bytes after the previous one's closing quote and runs
    to the next quote, found by Arrow in the value's own bytes only.
    """
    spans = spans.combine_chunks() if isinstance(spans, pa.ChunkedArray) else spans
    offsets = np.frombuffer(spans.buffers()[1], dtype=np.int64)[
        spans.offset : spans.offset + len(spans) + 1
    ]
    data = spans.buffers()[2]
    rows = len(spans)
    even = pa.array(np.arange(0, 2 * rows, 2))
    edges = np.empty(2 * rows, dtype=np.int64)
    edges[1::2] = offsets[1:]  # each piece runs to its span's end, then to the next piece
    at = offsets[:-1].copy()  # the closing quote of `ts`, where a span opens
    columns = []
    for opening in _OPENINGS:
        at += opening
        edges[0::2] = at
        tails = pa.Array.from_buffers(
            pa.large_string(), 2 * rows - 1, [None, pa.py_buffer(edges), data]
        )
        width = pc.find_substring(tails, '"').to_numpy()[0::2]  # odd pieces lie between spans
        edges[1::2] = at + width
        pieces = pa.Array.from_buffers(
            pa.large_string(), 2 * rows - 1, [None, pa.py_buffer(edges), data]
        )
        columns.append(pieces.take(even))
        at += width
        edges[1::2] = offsets[1:]
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
        spans = pa.chunked_array(blocks, type=pa.large_string())
        # Every block key used (no row refused): the spans in order, without a take per key.
        spans = spans.combine_chunks() if len(from_blocks) == first else spans.take(from_blocks)
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
