"""Keys given twice in one JSON object: read last-wins by every JSON reader, so named as a problem.

RFC 8259 says the names within an object SHOULD be unique, and readers differ on what a repeated
one means; orjson (like Python's `json`) keeps the last. A tracker or scene file written by hand
may repeat a key by mistake (two `min`s in a field), and the first value would vanish without a
word. `repeated_keys` finds each one, with its path, for the file's problems.
"""

from __future__ import annotations

import json
from typing import Any

from trackerkit.errors import Problem

__all__ = ["repeated_key_problems", "repeated_keys"]


class _Pairs(list[tuple[str, Any]]):
    """An object's members in order, as written (a list: a repeated key stays twice)."""


def _pairs(members: list[tuple[str, Any]]) -> _Pairs:
    return _Pairs(members)


def repeated_keys(raw: bytes | str) -> list[tuple[tuple[str | int, ...], str]]:
    """Each key given twice in one object, as (the object's path, the key), in document order.

    `raw` must be valid JSON (read it first); what `json` refuses gives no repeated key.
    """
    try:
        tree = json.loads(raw, object_pairs_hook=_pairs)
    except (ValueError, RecursionError):
        return []
    found: list[tuple[tuple[str | int, ...], str]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), tree)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, _Pairs):
            seen: set[str] = set()
            for key, _value in node:
                if key in seen:
                    found.append((path, key))
                seen.add(key)
            stack.extend(((*path, key), value) for key, value in reversed(node))
        elif isinstance(node, list):
            stack.extend(((*path, i), value) for i, value in reversed(list(enumerate(node))))
    return list(dict.fromkeys(found))


def repeated_key_problems(raw: bytes | str) -> list[Problem]:
    """`repeated_keys` as a file's problems (code `key_repeated`), each at its object's path."""
    return [
        Problem(
            where,
            f'gives the key "{key[:60]}" twice (a JSON reader keeps the last); give it once',
            "key_repeated",
        )
        for where, key in repeated_keys(raw)
    ]
