"""safe_md and safe_fence: text from files, people and models shown by mo.md as written."""

from __future__ import annotations

import doctest
import html
import re

import marimo as mo
import pytest

from trackerkit.views import markdown, safe_fence, safe_md

PAYLOADS = [
    "<h1>INJ</h1><img src=x onerror=window.__pwned=1><marquee>m</marquee>",
    '<iframe srcdoc="<script>top.__pwned=2</script>"></iframe>',
    "`<img src=x onerror=alert(1)>`",
    "\\`<img src=x onerror=alert(1)>\\`",
    "``a`<script>x</script>``",
    "[go](javascript:alert(1)) ![x](javascript:alert(2))",
]


def _shown(rendered: str) -> str:
    """What a reader sees: the tags dropped, the entities read."""
    return html.unescape(re.sub(r"<[^>]*>", "", rendered))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_no_markup_survives_in_a_message(payload: str) -> None:
    rendered = mo.md(f"**Saving breaks** {safe_md(f'rename `{payload}` to {payload}')}").text
    for tag in ("<h1", "<img", "<iframe", "<marquee", "<script", "<a "):
        assert tag not in rendered


def test_markdown_marks_and_code_read_as_before() -> None:
    rendered = mo.md(safe_md("**bold** · rename `hp` to `health` & `a<b`\n\n- one")).text
    assert "<strong>bold</strong>" in rendered
    assert "<code>hp</code>" in rendered
    assert "<li>one</li>" in rendered
    assert "rename hp to health & a<b" in _shown(rendered)


def test_a_fence_holds_backticks_and_markup() -> None:
    block = "x\n```\n<img src=x onerror=alert(1)>\n````"
    rendered = mo.md(safe_fence(block)).text
    assert "<img" not in rendered
    assert block in _shown(rendered)


def test_the_docstring_examples_run() -> None:
    assert doctest.testmod(markdown, raise_on_error=True).failed == 0


def test_a_block_of_list_lines_is_shown_line_for_line() -> None:
    """The `### Trackers` block of a list tracker: no blank line appears between its rows
    (marimo's markdown adds one before each list-like line, fenced blocks included)."""
    block = "### Trackers\nBag 🎒:\n- Rope: 1\n  * Torch: 2\n10. ten\n+ plus"
    rendered = mo.md(f"Intro\n\n{safe_fence(block)}\n\nafter").text
    code = re.search(r"<code>(.*?)</code>", rendered, re.DOTALL)
    assert code is not None
    assert html.unescape(code.group(1)) == block
