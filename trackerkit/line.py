"""`line_of`: the one function that puts any value, row name or model-written text on one line (TR-30)."""

from __future__ import annotations

import re

import orjson

__all__ = ["line_of"]

# Every character Python's str.splitlines() breaks on, plus the two-character \r\n as one break.
_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def line_of(value: object) -> str:
    """Show `value` on one line: every kind of line break becomes a space; nothing is cut.

    Text is shown as it is, numbers as JSON writes them (`3`, `2.5`), booleans as `true`/`false`,
    None as `null`, and anything else as compact JSON. Because the result holds no line break, a
    value can never start a line of its own, so it cannot forge a `###` heading or pose as another
    tracker's line.
    """
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif value is None:
        text = "null"
    elif isinstance(value, int | float):
        text = orjson.dumps(value).decode()
    else:
        text = orjson.dumps(value, default=str).decode()
    return _BREAKS.sub(" ", text)
