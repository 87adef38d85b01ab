"""Values as text: `line_of` puts any value, row name or model-written text on one line (TR-30).

This is the one display rule: the prompt block, the update tool's answer, the command line's
tables, the trace summary and the HTML views all show a value through `line_of`, a row of values
through `fields_line`, and a text the reader must tell from a number through `quoted_line`.

`md_text` is the same rule for a page: text from a file, a person or a model made safe to put
inside marimo markdown (`mo.md`), which passes HTML through as it is. HTML is escaped as
`html.escape` does, and the few characters that start markdown or one of marimo's extensions
(links, emphasis, code, math, emoji, icons, tables, strike-through, keys) become numeric character
references, which the browser shows as the characters themselves. The result is for markdown
text, not for a code span or a fenced block (there a reference shows as typed): to show a value
as code, wrap `md_text(value)` in `<code>...</code>`.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Mapping
from html import escape

import orjson

__all__ = ["fields_line", "line_of", "md_text", "quoted_line", "shown_path"]

# Every character Python's str.splitlines() breaks on, plus the two-character \r\n as one break.
_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def line_of(value: object) -> str:
    """Show `value` on one line: every kind of line break becomes a space; nothing is cut.

    Text is shown as it is, numbers as JSON writes them (`3`, `2.5`; `nan` and `inf`, which JSON
    cannot write, as Python does), booleans as `true`/`false`, None as `null`, and anything else as
    compact JSON (keys and objects JSON cannot hold written as text). It never fails. Because the result holds no line break, a
    value can never start a line of its own, so it cannot forge a `###` heading or pose as another
    tracker's line.
    """
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif value is None:
        text = "null"
    elif isinstance(value, int):
        text = str(value)  # exact at any size; orjson refuses ints past 64 bits
    elif isinstance(value, float):
        text = orjson.dumps(value).decode() if math.isfinite(value) else str(value)
    else:
        text = _json(value)
    return _BREAKS.sub(" ", text)


def _json(value: object) -> str:
    try:
        return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        # orjson refuses ints past 64 bits and some keys; the standard library takes both.
        try:
            return json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            return str(value)


def quoted_line(value: object) -> str:
    """`line_of`, with a text in JSON quotes (`"rope"`), so it is never read as a number or a flag."""
    if isinstance(value, str):
        return orjson.dumps(line_of(value)).decode()
    return line_of(value)


def fields_line(values: Mapping[str, object], show: Callable[[object], str] = line_of) -> str:
    """A record's or row's values on one line, `qty=2, equipped=false`, each value shown by `show`."""
    return ", ".join(f"{line_of(name)}={show(value)}" for name, value in values.items())


#: Characters that begin markdown syntax in marimo's renderer; each is written as `&#N;`.
_MARKDOWN_ACTIVE = "\\`*_[]{}()#+!|~^$:="
#: One pass: `html.escape`'s five characters as it writes them, then the markdown ones (a second
#: pass would break the `#` in `&#x27;`).
_TABLE = str.maketrans(
    {char: escape(char) for char in "&<>\"'"}
    | {char: f"&#{ord(char)};" for char in _MARKDOWN_ACTIVE}
)


def md_text(value: object) -> str:
    """`value` (as `str(value)`) escaped to show literally inside `mo.md(...)`.

    >>> md_text("<b>hp</b> & *mp*")
    '&lt;b&gt;hp&lt;/b&gt; &amp; &#42;mp&#42;'
    """
    return str(value).translate(_TABLE)


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path for a line of output: as it is, or quoted with escapes when it holds a line break
    or another control character, so a file named `a\\nb.json` cannot pose as two lines."""
    text = str(path)
    return repr(text) if any(c < " " or c == "\x7f" for c in text) else text
