"""A call whose whole arguments are text (an OpenAI reply's argument string, not decoded) is named as such."""

from __future__ import annotations

import pytest
from conftest import DATA_TRACKERS, HEALTH

from trackerkit import Chat, apply_tracker_updates, decode_tracker, load_scene


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

    def test_turn_call_says_so(self) -> None:
        """`Turn.call` with the string OpenAI returns says to decode it; nothing is written."""
        chat = Chat(load_scene(DATA_TRACKERS.parent / "scenes" / "typical.json"), DATA_TRACKERS)
        chat.add_user("x")
        turn = chat.begin_turn()
        result = turn.call('{"updates": [{"tracker": "Health", "set": {"hp": 3}}]}')
        assert not result.ok
        assert "decode it, e.g. with json.loads" in result.answer
        assert turn.pending == []
