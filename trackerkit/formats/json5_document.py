"""Reading an import's text as JSON5, within the import's limits, by pyjson5's compiled parser.

JSON5 is the last reading `formats.document` tries, after JSON and YAML, so the text it gets is
mostly no JSON5 at all, and may be hostile: the pure-Python `json5` package used before took
172 s to refuse 2 MB of `{a:1,a:1,…` with a stray character at the end (trial nu4). pyjson5 is
written in Cython and reads or refuses any text within `MAX_BYTES` in about a second.

The limits hold while reading, not after: nesting by pyjson5's own depth limit, and values by a
count of the text's commas and brackets outside strings and comments, taken before it is parsed.
A text holding more values than the limit is parsed only up to a comma just past it (a million
values at most, never the tree of a 32 MB file), and refused there when it was JSON5 up to that
point, as the YAML reading refuses from its parse events.
"""

from __future__ import annotations

import re
from typing import Literal

import pyjson5

__all__ = ["NOT_JSON5", "PastLimitError", "read_json5"]

#: What `read_json5` returns for a text that is not JSON5.
NOT_JSON5 = object()
_ENDED = object()

#: A string (up to its closing quote, else to its line's end, where a JSON5 string cannot go on)
#: or a comment. An unclosed one runs to where it stops, so it is never tried again from each of
#: its characters (which would take quadratic time).
_SKIPPED = re.compile(
    r"""("(?:[^"\\\n\r]++|\\(?:\r\n|.))*+"?|'(?:[^'\\\n\r]++|\\(?:\r\n|.))*+'?)"""
    r"|//[^\n\r\u2028\u2029]*+"
    r"|/\*.*?(?:\*/|\Z)",
    re.DOTALL,
)
#: A comma that ends a list or mapping, or the opening of an empty one: no value follows it.
_NO_VALUE_AFTER = re.compile(r"[,\[{](?=[\s\ufeff]*[\]}])")
_BLANK = re.compile(r"[\s\ufeff]*")
_FILLS = {fill: tuple(fill * length for length in range(64)) for fill in "0 "}
#: How many characters of the skeleton are made or counted at a time.
_STRETCH = 1 << 20
_NEAR = re.compile(r"near (\d+)")


class PastLimitError(Exception):
    """The text is JSON5 up to where it passes a limit: `limit` names which, `where` says
    where in the text when pyjson5 told it ("at line 3, column 7"; else empty)."""

    def __init__(self, limit: Literal["depth", "values", "number"], where: str = "") -> None:
        super().__init__(limit, where)
        self.limit = limit
        self.where = where


def read_json5(text: str, max_depth: int, max_values: int) -> object:
    """`text` read as JSON5, when it nests at most `max_depth` + 1 lists and mappings and holds
    at most `max_values` + 1 values; `NOT_JSON5` when it is not JSON5.

    The caller checks the exact limits on what is returned (a scalar one level deeper than
    `max_depth`, or one value more than `max_values`, is read here).

    Raises:
        PastLimitError: the text is JSON5 up to where it nests deeper than that, holds more
            values, or holds a number pyjson5 cannot read (past a double's range, or of
            thousands of digits).
    """
    cut = _cut_past(text, max_values)
    found = _decode(text[:cut], max_depth)
    if found is _ENDED:
        if cut < len(text):  # JSON5 up to the cut, which is past `max_values` values
            raise PastLimitError("values")
        return NOT_JSON5
    if found is NOT_JSON5 or cut == len(text):
        return found
    # The cut holds a whole value past the limit: JSON5 when all after it is blank.
    if _decode(text, max_depth) in (_ENDED, NOT_JSON5):  # it is no larger than the cut
        return NOT_JSON5
    raise PastLimitError("values")


def _decode(text: str, max_depth: int) -> object:
    """`text` read by pyjson5; `_ENDED` when it ends before its value does (JSON5 up to there),
    `NOT_JSON5` when it is not JSON5 before that."""
    try:
        return pyjson5.decode(text, maxdepth=max_depth + 1)
    except pyjson5.Json5NestingTooDeep:
        raise PastLimitError("depth") from None
    except pyjson5.Json5EOF as error:
        if "NumericLiteral" in str(error):  # pyjson5's words for a number it cannot convert
            raise PastLimitError("number", _where(text, error)) from None
        return _ENDED
    except pyjson5.Json5Exception:
        return NOT_JSON5
    except ValueError:  # Python's own limit on converting a number of thousands of digits
        raise PastLimitError("number") from None


def _cut_past(text: str, max_values: int) -> int:
    """Where to stop parsing `text`: its end when it holds at most `max_values` + 1 values, else
    just after a comma past which it holds more (a comma that ends the cut counts the value
    after it, so the cut holds more than `max_values` values)."""
    if text.count(",") + text.count("[") + text.count("{") <= max_values:  # an upper bound
        return len(text)
    bones = _skeleton(text)
    if _values(bones, len(bones)) <= max_values + 1:
        return len(text)
    end = 0  # the first prefix of the skeleton holding more values, found a stretch at a time
    while _values(bones, end) <= max_values + 1:
        end += _STRETCH
    low, high = end - _STRETCH, min(end, len(bones))
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if _values(bones, middle) > max_values + 1 else (middle + 1, high)
    return bones.find(",", high - 1) + 1 or len(text)


def _skeleton(text: str) -> str:
    """`text`, as long, with its strings as `0`s, its comments blank, and each comma or opening
    that no value follows as a `0`: a value then starts after each `,`, `[` and `{` left.

    Built a stretch at a time where it can be, and of shared pieces, so that the pieces of a
    text of millions of short strings or empty lists take tens, not hundreds, of MB.
    """
    bare = _SKIPPED.sub(_filled, text)
    stretches, start = [], 0
    while start < len(bare):
        end = min(start + _STRETCH, len(bare))
        while end < len(bare):  # take in the blank and the next mark a mark at the end looks at
            end = min(_BLANK.match(bare, end).end() + 1, len(bare))  # type: ignore[union-attr]
            if bare[end - 1] not in ",[{":
                break
        stretches.append(_NO_VALUE_AFTER.sub("0", bare[start:end]))
        start = end
    return "".join(stretches)


def _filled(match: re.Match[str]) -> str:
    """A string as `0`s, a comment as blanks, as long as it is (a short one a shared piece)."""
    length, fill = match.end() - match.start(), "0" if match.lastindex else " "
    return _FILLS[fill][length] if length < len(_FILLS[fill]) else fill * length


def _values(skeleton: str, end: int) -> int:
    """How many values `skeleton[:end]` holds (or starts), when its text is JSON5: the top one,
    and one after each comma and opening of a list or mapping."""
    return 1 + sum(skeleton.count(mark, 0, end) for mark in ",[{")


def _where(text: str, error: Exception) -> str:
    """Where pyjson5's error points in `text` (its "near N" counts characters from 1)."""
    near = _NEAR.search(str(error))
    if near is None:
        return ""
    at = min(int(near[1]), len(text)) - 1
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    return f"at line {line}, column {column}"
