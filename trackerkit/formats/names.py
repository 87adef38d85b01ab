"""Source keys to trackerkit names: a TR-1 field name, unique within a tracker, and a piece id.

Keys in other tools' files are whatever their authors typed: `StateOfDress`, `当前位置`,
`HP (max)`. A field name must match `^[a-z][a-z0-9_]{0,63}$` (TR-1), so each key gets a readable
slug: camelCase split into words (an acronym's plural, `NPCs`, is one word); Chinese read by
`pypinyin` (MIT), which reads a character by the word it is in (`角色` -> `jue_se`, where a
character-by-character table says `jiao_se`); every other script transliterated by `anyascii`
(ISC), one word per CJK character (`当前位置` -> `dang_qian_wei_zhi`), lowercased, joined by
`_`. The original key is kept by the importer as the field's meaning.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from anyascii import anyascii

__all__ = ["FieldNames", "piece_id", "slug_words"]

#: Word breaks: before a capital after a small letter (`stateOf`), and inside a run of capitals
#: before the capital that starts a word (`HTMLParser`), though not before an acronym's plural
#: `s` (`NPCs`, `URLsList`).
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])(?![A-Z]s(?![a-z]))")
_WORD = re.compile(r"[a-z0-9]+")
_MAX_NAME = 64
#: From the CJK radicals on, scripts write a syllable or a word per character.
_SYLLABIC = 0x2E80


def slug_words(key: str) -> list[str]:
    """The key's words in lowercase ASCII: `StateOfDress` -> `["state", "of", "dress"]`."""
    pieces: list[str] = []
    run: list[str] = []
    for char in key:
        if ord(char) >= _SYLLABIC:
            run.append(char)
            continue
        if run:
            pieces.append(_syllables("".join(run)))
            run.clear()
        # Latin and Cyrillic letters join the word they stand in (Ça -> ca).
        pieces.append(char if char.isascii() else anyascii(char))
    if run:
        pieces.append(_syllables("".join(run)))
    text = _CAMEL.sub(" ", "".join(pieces))
    return _WORD.findall(text.lower())


def _syllables(run: str) -> str:
    """A run of CJK (or later) characters, a word per syllable: Chinese by pypinyin, which reads a
    character as the phrase it is in says, and the rest (kana, hangul) by anyascii."""
    from pypinyin import lazy_pinyin  # here: its phrase tables take 0.3 s to load

    words = lazy_pinyin(run, errors=lambda chars: " ".join(anyascii(c) for c in chars))
    return "".join(f" {word} " for word in words)


def _base_name(key: str) -> str:
    words = slug_words(key)
    name = "_".join(words)
    if not name:
        return "field"
    if not name[0].isalpha():
        name = f"f_{name}"
    return name[:_MAX_NAME].rstrip("_")


class FieldNames:
    """Hands out TR-1 names for a tracker's source keys, each unique within the tracker.

    Args:
        reserved: names no field may take (a list's `name`, TR-19).
    """

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self._taken = set(reserved)

    def name(self, key: str) -> str:
        """A fresh name for `key`: its slug, or the slug with `_2`, `_3`, ... when taken."""
        base = _base_name(key)
        candidate = base
        n = 1
        while candidate in self._taken:
            n += 1
            suffix = f"_{n}"
            candidate = base[: _MAX_NAME - len(suffix)].rstrip("_") + suffix
        self._taken.add(candidate)
        return candidate


def piece_id(name: str, taken: set[str]) -> str:
    """A tracker piece id from a tracker's name (`Li 李` -> `li-li`), unique among `taken`.

    The id is added to `taken`.
    """
    stem = "-".join(slug_words(name))[:100].strip("-") or "tracker"
    candidate = stem
    n = 1
    while candidate in taken:
        n += 1
        candidate = f"{stem}-{n}"
    taken.add(candidate)
    return candidate
