"""Text from a file, a person or a model, made safe to put inside marimo markdown (`mo.md`).

`mo.md` passes HTML through as it is, so a scene's reply, a tracker's name or a server's error
that holds `<script>`, `<iframe srcdoc=...>` or `<style>` would render and run in the page.
`md_text` escapes it so it shows literally: HTML as `html.escape` does, and the few characters
that start markdown or one of marimo's extensions (links, emphasis, code, math, emoji, icons,
tables, strike-through, keys) as numeric character references, which the browser shows as the
characters themselves.

The result is for markdown text and raw HTML inside it, not for a code span (between backticks)
or a fenced block, where a character reference is shown as typed; to show a value as code, wrap
`md_text(value)` in `<code>...</code>`.
"""

from __future__ import annotations

from html import escape

__all__ = ["md_text"]

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
