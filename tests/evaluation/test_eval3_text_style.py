"""Eval3 trial, finding 8 (first bullet): a tool style under the text protocol is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.evaluation.variants import Variant, read_variants


class TestTextProtocolToolStyle:
    """Finding 8: a tool style under the text protocol did nothing, and said nothing."""

    @pytest.mark.parametrize("style", ["anyOf", "strict", "gemini"])
    def test_a_variant_file_giving_both_is_refused(self, tmp_path: Path, style: str) -> None:
        """The trial's `v_bad5.json`."""
        path = tmp_path / "v.json"
        path.write_text(json.dumps([{"name": "a", "protocol": "text", "tool_style": style}]))
        with pytest.raises(BadRequestError) as caught:
            read_variants(path)
        assert str(caught.value) == (
            f"{path}: variants[0]: tool_style {style!r} does nothing under protocol 'text' (no "
            "tool is sent; the update is a fenced block in the reply); leave tool_style out, or "
            "use protocol 'tools'"
        )

    def test_lines_under_text_is_accepted(self) -> None:
        """The default style, which every text variant has, stays allowed."""
        assert Variant(name="t", protocol="text", tool_style="lines").protocol == "text"
