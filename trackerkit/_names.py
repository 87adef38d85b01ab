"""Names as an update matches them (TR-20): a tracker's or a row's name, its case and normalization folded.

`name_key` is the key a name is matched by; `_RowIndex` keeps a list slot's row keys by it, so an
item finds its row whatever the spelling without scanning the list.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping

__all__ = ["name_key", "repeated"]


def name_key(name: str) -> str:
    """What a row or tracker name is matched by (TR-20): its case folded, and its Unicode
    normalization, so names that print the same are one name.

    `"Café"` written precomposed and `"Cafe\u0301"` (an `e` and a combining accent) give one key,
    as do `"ROPE"` and `"rope"`. It is Unicode's canonical caseless match (NFD, case fold, NFD);
    compatibility forms stay apart (`"²"` is not `"2"`, `"Ａ"` is not `"A"`): they print
    differently. The name itself is kept as first written; only the match folds.
    """
    if name.isascii():
        return name.casefold()
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


def repeated(names: Iterable[str]) -> list[str]:
    """The names given more than once, sorted, each once: what a refusal of twins names.

    >>> repeated(["a", "b", "a", "c", "b"])
    ['a', 'b']
    """
    given = list(names)
    return sorted({n for n in given if given.count(n) > 1})


class _RowIndex:
    """A list slot's row keys by folded name (`name_key`), so a row is found without a scan (TR-20)."""

    def __init__(self, slot: Mapping[str, object]) -> None:
        self.keys: dict[str, list[str]] = {}
        for key in slot:
            self.keys.setdefault(name_key(key), []).append(key)

    def find(self, slot: Mapping[str, object], name: str) -> str | None:
        """The stored key of a row, found whatever the case or normalization; the first spelling is kept."""
        if name in slot:
            return name
        spellings = self.keys.get(name_key(name))
        return spellings[0] if spellings else None

    def add(self, key: str) -> None:
        self.keys.setdefault(name_key(key), []).append(key)

    def drop(self, key: str) -> None:
        spellings = self.keys.get(name_key(key), [])
        if key in spellings:
            spellings.remove(key)
