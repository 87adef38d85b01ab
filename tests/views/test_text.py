"""`md_text`: text from a file, a person or a model shows literally inside `mo.md`."""

from __future__ import annotations

from html import unescape

import marimo as mo
import pytest

from trackerkit.line import md_text

PAYLOADS = [
    'The causeway is slick.<iframe srcdoc="<script>top.__pwned=11</script>" hidden></iframe>',
    "<h1>INJ</h1><img src=x onerror=alert(1)><marquee>m</marquee>",
    "<style>body{display:none}</style>",
    "[click](javascript:alert(1)) **bold** `code` $x$ :smile: ::lucide:home:: ++ctrl++ ~~s~~",
    'it\'s "quoted" & a | b # c',
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_text_comes_back_when_unescaped(payload: str) -> None:
    assert unescape(md_text(payload)) == payload


@pytest.mark.parametrize("payload", PAYLOADS)
def test_marimo_markdown_makes_no_element_of_it(payload: str) -> None:
    html = mo.md(f"Reply: {md_text(payload)}").text
    body = html.split('<span class="paragraph">', 1)[1].rsplit("</span></span>", 1)[0]
    assert "<" not in body
    assert unescape(body) == f"Reply: {payload}"


def test_plain_text_and_other_values_are_unchanged() -> None:
    assert md_text("Mira, 12 hp.") == "Mira, 12 hp."
    assert md_text(3) == "3"
    assert md_text(None) == "None"
