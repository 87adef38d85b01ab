"""The evaluate page's variants under the tool styles picked (trial des6, finding 3)."""

from __future__ import annotations

from trackerkit import Variant
from trackerkit.evaluation.page import variations


def test_lines_alone_keeps_the_names() -> None:
    made = variations([Variant(name="scripted")], ["tools", "text"], ["lines"])
    assert [(v.name, v.protocol, v.tool_style) for v in made] == [
        ("scripted", "tools", "lines"),
        ("scripted · text", "text", "lines"),
    ]


def test_each_style_is_a_column_named_by_it() -> None:
    made = variations(
        [Variant(name="scripted"), Variant(name="noisy")], ["tools", "text"], ["lines", "strict"]
    )
    assert [(v.name, v.tool_style) for v in made] == [
        ("scripted · lines", "lines"),
        ("noisy · lines", "lines"),
        ("scripted · strict", "strict"),
        ("noisy · strict", "strict"),
        # no tool is sent under text: one column, whatever the styles
        ("scripted · text", "lines"),
        ("noisy · text", "lines"),
    ]
