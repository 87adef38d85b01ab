"""Text from files, people and models made safe to show with marimo's `mo.md`.

`mo.md` passes HTML through, so a tracker named `<img src=x onerror=...>` or a model server's
error message would render as live elements. The apps escape at the page: every value and
every message the package builds from such text goes through `safe_md` before `mo.md` (a
plain value may go through `md_text` (`trackerkit.line`) instead, which escapes markdown too).
`safe_md` keeps markdown's own marks (`**bold**`, `- lists`, `` `code` ``) working, so normal
text looks as before; only `<`, `>`, `&` and quotes become entities. Its output holds no tag
but the `<code>` it writes itself.
"""

from __future__ import annotations

import re
from html import escape

from trackerkit.line import md_text

__all__ = ["safe_fence", "safe_md"]

# Brackets as character references: no name in a message can make a link or an image
# (`[x](javascript:...)`); a bracket reads the same.
_NO_LINKS = str.maketrans({"[": "&#91;", "]": "&#93;"})

# A code span as Python-Markdown reads one: a run of backticks not after a backslash, then the
# text up to the same run again.
_CODE_SPAN = re.compile(r"(?<!\\)(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)


def safe_md(text: object) -> str:
    """`text` (a value, or a markdown message built from names) with its HTML escaped.

    A code span becomes `<code>` around its text escaped by `md_text`, so it reads as written
    (markdown would show an entity inside backticks as typed); everything else is
    `html.escape`d, its markdown marks kept but for brackets (no link or image can form).

    >>> safe_md("**`<b>`**: <img src=x> & more")
    '**<code>&lt;b&gt;</code>**: &lt;img src=x&gt; &amp; more'
    >>> safe_md("[x](javascript:y)")
    '&#91;x&#93;(javascript:y)'
    >>> safe_md("rename `hp` to `health`")
    'rename <code>hp</code> to <code>health</code>'
    """
    source = str(text)
    parts: list[str] = []
    end = 0
    for span in _CODE_SPAN.finditer(source):
        parts.append(escape(source[end : span.start()]))
        parts.append(f"<code>{md_text(span.group(2).strip())}</code>")
        end = span.end()
    parts.append(escape(source[end:]))
    return "".join(parts).translate(_NO_LINKS)


def safe_fence(text: object) -> str:
    """`text` as a code block for `mo.md`, shown exactly as written, line for line.

    A `<pre><code>` block with the text escaped: no tag in it is made, and markdown reads
    nothing inside it. A line that opens like a list item (`- Rope`, `1. x`) has its marker
    written as a character reference, because marimo's markdown puts a blank line before every
    such line, even inside a fenced block (so the `### Trackers` block read double-spaced).
    A long line wraps at the block's edge (it was cut off there: a tool description is one
    line per tracker); the text and its line breaks are unchanged.

    >>> safe_fence("Bag:\\n- Rope <b>")
    '<pre style="white-space:pre-wrap;overflow-wrap:anywhere"><code>Bag:\\n&#45; Rope &lt;b&gt;</code></pre>'
    """
    return f"{_PRE}<code>" + _LIST_MARK.sub(_as_reference, escape(str(text))) + "</code></pre>"


_PRE = '<pre style="white-space:pre-wrap;overflow-wrap:anywhere">'


# What marimo's list preprocessor takes for a list item's start (`breakless_lists`).
_LIST_MARK = re.compile(r"^([ \t]*)([*+-]|\d)", re.MULTILINE)


def _as_reference(found: re.Match[str]) -> str:
    return f"{found.group(1)}&#{ord(found.group(2))};"
