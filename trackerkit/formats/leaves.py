"""One source value to one field spec, and ranges read from a field's prose (shared by importers).

A leaf's start value picks the type (a number, a yes/no, a text; a list of plain values becomes
one text, joined, and says so). Ranges written in a description (`[-30,100]`, `between 0 and
100`, `0到100`, `0~100`, `0-100`, `0 - 100`, `0 to 100`, `1..10`, `0%-100%`) become `min`/`max`
marked as guessed, with the text they were read from; an interval written open, `(0,100)`, is
read with its bounds included, and the line says so. A hyphen is read as a range only where it
cannot be something else: a bound may carry a minus (`-10-10`, `-5 - 5`, `-10--5`), but a
hyphen beside a letter or inside a chain (`v1-2`, `2024-01-05`, `1-2-3`), a bound written with
a leading zero (`01-05`), a minus spaced on one side only (`5 -10`) and two years (`2024-2025`)
are not read. A bound may carry an exponent (`1e3`). When the first range written is backwards or
has a bound past 2^53 (`[-1e400,1e400]`) none is taken, and a number's line says why (guessed,
as is a range its start lies outside). A bound is read only
from the start of its number, never from inside a run of digits, so a meaning of any length is
read in time linear in its length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from trackerkit._problems import MAX_TEXT
from trackerkit.fields import describe_value, is_number
from trackerkit.formats.document import LongNumber

__all__ = [
    "NAME_KEYS",
    "Leaf",
    "WrittenRange",
    "first_range",
    "guess_range",
    "leaf",
    "number",
    "plain_text",
    "quoted",
    "rows_named",
]

#: A bound starts where its number starts, never inside a run of digits (`(?<!\d)`, any script's
#: digits): so each pattern tries a run of n digits once, in O(n), where trying every start in it
#: took O(n²) (a 30 KB meaning of digits took 24 s).
_NUM = r"(-?(?<!\d)\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
#: A bound that stands alone: not part of a word, an id, a decimal, a time or a date.
_ALONE = r"(?<![A-Za-z0-9_.#])(?<!\d[:/])"
_AFTER = r"[A-Za-z0-9_]|[.:/]\d|\.\."
_ENDS = rf"(?!{_AFTER})"
#: A hyphen range's bound: no leading zero (`01-05` is a date or a number, not bounds).
_HNUM = r"(-?(?<!\d)(?:0|[1-9]\d*)(?:\.\d+)?)"
#: The dash between two bounds: tight (`0-100`) or spaced on both sides (`0 - 100`), never on
#: one side only, where it reads as a minus (`5 -10`).
_DASH = r"(?:[-–—－]|\s+[-–—－]\s+)"
_YEAR = r"[12]\d{3}"
_RANGES = (
    re.compile(rf"[\[【(（]\s*{_NUM}\s*[,，~～]\s*{_NUM}\s*[\]】)）]"),
    re.compile(rf"\bbetween\s+{_NUM}\s+and\s+{_NUM}", re.IGNORECASE),
    re.compile(rf"\bfrom\s+{_NUM}\s+to\s+{_NUM}", re.IGNORECASE),
    re.compile(rf"{_NUM}%?\s*(?:到|至|~|～)\s*{_NUM}%?"),
    re.compile(rf"{_ALONE}{_NUM}%?\s+to\s+{_NUM}%?{_ENDS}", re.IGNORECASE),
    re.compile(rf"{_ALONE}{_NUM}\s*\.\.\s*{_NUM}{_ENDS}"),
    re.compile(
        # Not inside a chain of dashes (`1-2-3`, `1 - 2 - 3`), and not two years (`2024-2025`).
        rf"{_ALONE}(?<![-–—－])(?<![-–—－]\s)(?!{_YEAR}{_DASH}{_YEAR}(?![\d.]))"
        rf"{_HNUM}%?{_DASH}{_HNUM}%?(?![-–—－]|{_AFTER}|\s*[-–—－]\s*\d)"
    ),
)
#: An interval written open at an end, `(0,100)` or `[0,100)`: read with both bounds included.
_OPEN = re.compile(r"^[(（].*[,，]|[,，].*[)）]$")
#: Keys that name a row, in the order they are preferred.
NAME_KEYS = ("name", "Name", "NAME", "名称", "名字", "姓名", "title", "Title", "id")


@dataclass(frozen=True, slots=True)
class Leaf:
    """A field's type and settings (`spec`), how it was read (`detail`), and whether guessed."""

    spec: dict[str, Any]
    detail: str
    guessed: bool = False


def quoted(text: str, limit: int = 60) -> str:
    """`text` on one line in double quotes, cut to `limit` characters, for report lines."""
    flat = " ".join(text.split())
    return '"' + (flat if len(flat) <= limit else flat[: limit - 3] + "...") + '"'


def rows_named(rows: list[str]) -> str:
    """`row "Bob"`, or `rows "Bob", "Ann"` (the first three, then how many more), for report lines."""
    shown = ", ".join(quoted(row, 40) for row in rows[:3])
    more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
    return f"{'row' if len(rows) == 1 else 'rows'} {shown}{more}"


def number(value: object) -> int | float | None:
    """`value` when it is a number trackerkit accepts (TR-8), else None."""
    return value if isinstance(value, int | float) and is_number(value) else None


def number_fault(value: object) -> str:
    """Why `number(value)` is None, in words: a number past what trackerkit holds, or no number."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "not a finite number within 2^53"
    return "not a number"


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


def guess_range(text: str) -> tuple[int | float, int | float, str] | None:
    """The first range written in `text` as `(min, max, the text it was read from)`, or None
    (none written, or the first one unusable: see `first_range`)."""
    found = first_range(text)
    if found is None or found.fault:
        return None
    return found.low, found.high, found.text


@dataclass(frozen=True, slots=True)
class WrittenRange:
    """A range read from prose: its bounds, the text it was read from, and why it cannot be a
    field's min and max ("" when it can)."""

    low: int | float
    high: int | float
    text: str
    fault: str


def first_range(text: str) -> WrittenRange | None:
    """The first range written in `text`, usable or not (backwards, a bound past 2^53), or None
    when none is written."""
    best: re.Match[str] | None = None
    for pattern in _RANGES:
        match = pattern.search(text)
        if match is not None and (best is None or match.start() < best.start()):
            best = match
    if best is None:
        return None
    low, high = _number(best.group(1)), _number(best.group(2))
    fault = ""
    for bound, written in ((low, best.group(1)), (high, best.group(2))):
        if not is_number(bound) and not fault:
            fault = f"its bound {written} is not a finite number within 2^53"
    if not fault and low > high:
        fault = f"it is written backwards, {low} above {high}"
    return WrittenRange(low, high, best.group(0), fault)


def leaf(value: object, meaning: str = "") -> Leaf | str:
    """The field for a start value (and its meaning's prose), or the reason there is none."""
    if isinstance(value, bool):
        return Leaf({"type": "boolean", "default": value}, "boolean")
    if isinstance(value, LongNumber):
        return f"its value is {value.reason}"
    if isinstance(value, int | float):
        if not is_number(value):
            return f"its value {describe_value(value)} is not a finite number within 2^53"
        return _number_leaf(value, meaning)
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            return f"its text is longer than trackerkit's ceiling of {MAX_TEXT:,} characters"
        return Leaf({"type": "text", "default": value}, "text")
    if value is None:
        return Leaf({"type": "text"}, "text, guessed from a null start value (starts empty)", True)
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        long = next((v for v in value if isinstance(v, LongNumber)), None)
        if long is not None:
            return f"its items hold {long.reason}"
        joined = ", ".join(plain_text(v) for v in value)
        if len(joined) > MAX_TEXT:
            return f"its items are longer than trackerkit's ceiling of {MAX_TEXT:,} characters"
        detail = f'text, guessed: a list of {len(value)} plain values joined with ", "'
        return Leaf({"type": "text", "default": joined}, detail, True)
    held = "an object" if isinstance(value, dict) else "a list holding objects or lists"
    return f"its value is {held}, which no field holds"


def plain_text(value: object) -> str:
    """A plain value (text, number, flag, null) as the text a text field or a choice will hold.

    Not the display rule (`trackerkit.line.line_of`): this text is stored, so a text is kept as it
    is, line breaks and all, and a number as Python writes it, as the importers always have; the
    value is shown through `line_of` when it is displayed later.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _number_leaf(value: int | float, meaning: str) -> Leaf:
    """A number field, its range guessed from the first range its meaning writes; a range not
    used says why on a guessed line (a guess left out is reported, never dropped unsaid)."""
    found = first_range(meaning)
    if found is None:
        return Leaf({"type": "number", "default": value}, "number")
    low, high, text, fault = found.low, found.high, found.text, found.fault
    if not fault and not low <= value <= high:
        fault = f"the start value {value} lies outside it"
    if fault:
        return Leaf(
            {"type": "number", "default": value},
            f"number, guessed: the range {quoted(text)} in its meaning was not used: {fault}",
            True,
        )
    opened = (
        " (an interval written open; trackerkit's min and max include their bounds, so it is "
        "read with its bounds included)"
        if _OPEN.search(text)
        else ""
    )
    return Leaf(
        {"type": "number", "min": low, "max": high, "default": value},
        f"number; min {low}, max {high} guessed from {quoted(text)}{opened}",
        True,
    )
