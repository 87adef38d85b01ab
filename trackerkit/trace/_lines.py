"""The hot loop of the reader: trace lines into plain lists, broken lines into errors.

Most lines are the writer's own compact form, `{"ts":T,"turn":…,"name":N,"data":{…}}`. A file is
read in blocks of about a megabyte, and each block's whole lines are decoded by one `msgspec`
call (`decode_lines`) that checks their JSON syntax and gives each line's `data` as raw bytes
(the other fields are checked and skipped). The rest is proven from the block's bytes at once.

The parts live in their own modules: `trackerkit.trace._block` (a block taken at once, and why
it may be: its docstring; a block of other lines decoded whole), `._one_line` (a line read
alone: the compact test, else one full decode) and `._rows` (`Parsed`, the rows kept, and the
checks and reasons that make a decoded line a row or a broken line). This module reads a file
in blocks and hands each to them (`parse_into`); `FIELDS`, `Parsed` and `reason` are
importable from here.

Values. Every path reads `data` as `_lazy.loads` does (msgspec; the standard library for what
it refuses that is still JSON), so a file reads alike however it is split into blocks.

Nesting. Both decoders follow nested values by recursion and stop with an error past about a
thousand levels. Any error a decoder raises, `RecursionError` included, refuses the block (it
is read line by line) and then the one line, which becomes a broken line with the reason; its
neighbours are read (TC-19).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import numpy as np

from trackerkit.errors import NotFoundError
from trackerkit.trace._block import _block, _loose_block
from trackerkit.trace._one_line import _one
from trackerkit.trace._one_line import _slow as _slow
from trackerkit.trace._one_line import _utf8 as _utf8
from trackerkit.trace._one_line import _written as _written
from trackerkit.trace._rows import _BOM, FIELDS, Parsed, reason

__all__ = ["BLOCK_BYTES", "BLOCK_MIN", "FIELDS", "Parsed", "parse_into", "reason"]

BLOCK_BYTES = 1 << 20
"""How much of a file is read and decoded at once (about 2,000 lines of 450 bytes)."""

BLOCK_MIN = 1 << 12
"""Shorter stretches of lines are read line by line (a block's fixed costs would not pay)."""


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
