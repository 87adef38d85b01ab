"""A call whose whole arguments are text (an OpenAI reply's argument string, not decoded) is named as such."""

from __future__ import annotations

import pytest
from conftest import HEALTH

from trackerkit import apply_tracker_updates, decode_tracker


class TestTextArguments:
    """The refusal says the arguments must be an object, not that `updates` must be a list."""

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            (
                '{"updates": []}',
                'the arguments must be an object {"updates": [...]}; found the text "{"updates": '
                '[]}" (JSON written as text: decode it, e.g. with json.loads, and send the object)',
            ),
            (
                "hp 3",
                'the arguments must be an object {"updates": [...]}; found the text "hp 3"',
            ),
        ],
        ids=["json-string", "plain-text"],
    )
    def test_text_is_named_as_the_calls_problem(self, text: str, reason: str) -> None:
        """Found when tried: a JSON string was refused as "updates must be a list of items"."""
        result = apply_tracker_updates([decode_tracker(HEALTH)], {}, text)
        assert not result.ok
        assert result.answer.splitlines()[1] == f"- the call: {reason}"
