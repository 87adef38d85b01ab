"""Text from files, people and models made safe to show with marimo's `mo.md`.

`mo.md` passes HTML through, so a tracker named `<img src=x onerror=...>` or a model server's
error message would render as live elements. The apps escape at the page: every value and
every message the package builds from such text goes through `safe_md` before `mo.md`.
`safe_md` keeps markdown's own marks (`**bold**`, `- lists`, `` `code` ``) working, so normal
text looks as before; only `<`, `>`, `&` and quotes become entities. Its output holds no tag
but the `<code>` it writes itself.
"""

from __future__ import annotations

import re
from html import escape

__all__ = ["safe_md"]

# A code span as Python-Markdown reads one: a run of backticks not after a backslash, then the
# text up to the same run again.
_CODE_SPAN = re.compile(r"(?<!\\)(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)


def safe_md(text: object) -> str:
    """`text` (a value, or a markdown message built from names) with its HTML escaped.

    A code span becomes `<code>` around its escaped text, so it reads as written (markdown
    would show an entity inside backticks as typed); everything else is escaped as is.

    >>> safe_md("**`<b>`**: <img src=x> & more")
    '**<code>&lt;b&gt;</code>**: &lt;img src=x&gt; &amp; more'
    >>> safe_md("rename `hp` to `health`")
    'rename <code>hp</code> to <code>health</code>'
    """
    source = str(text)
    parts: list[str] = []
    end = 0
    for span in _CODE_SPAN.finditer(source):
        parts.append(escape(source[end : span.start()]))
        parts.append(f"<code>{escape(span.group(2).strip())}</code>")
        end = span.end()
    parts.append(escape(source[end:]))
    return "".join(parts)
