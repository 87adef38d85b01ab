"""`Turn.call` given the arguments as JSON text (OpenAI's `function.arguments`) reads them as the `Session` does (TR-37)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import BAG, HEALTH

from trackerkit import Chat, Scene, Turn
from trackerkit.scene import Prompting

CALL: dict[str, Any] = {
    "updates": [
        {"tracker": "Health", "set": {"hp": 20}},
        {"tracker": "Bag", "row": "Rope", "set": {"qty": 2}},
    ]
}


def _turn() -> Turn:
    scene = Scene(id="s", title="S", prompting=Prompting(trackers=["health", "bag"]))
    chat = Chat(scene, {"health": HEALTH, "bag": BAG})
    chat.add_user("go")
    return chat.begin_turn()


class TestJsonText:
    """Text that decodes to the call is the call; text that does not is refused whole."""

    @pytest.mark.parametrize(
        "text",
        [json.dumps(CALL), json.dumps(CALL).encode("utf-8"), json.dumps(CALL, indent=2)],
        ids=["str", "bytes", "indented"],
    )
    def test_text_applies_like_the_object(self, text: str | bytes) -> None:
        """The JSON text writes what its object writes, with the same answer."""
        by_object = _turn().call(CALL)
        turn = _turn()
        result = turn.call(text)
        assert result.ok
        assert (result.answer, result.deltas) == (by_object.answer, by_object.deltas)
        assert turn.values()["Health"]["hp"] == 20

    def test_strict_export_nulls_read_from_text(self) -> None:
        """`null_is_absent` applies to the decoded text: a null field is a field not given."""
        turn = _turn()
        text = '{"updates": [{"tracker": "Health", "set": {"hp": 7, "mood": null}}]}'
        assert turn.call(text, null_is_absent=True).ok
        assert turn.values()["Health"]["hp"] == 7

    @pytest.mark.parametrize(
        ("text", "answer"),
        [
            (
                '{"updates": [{"tracker": "Health"',
                "Nothing was written: the arguments are not valid JSON "
                "(Expecting ',' delimiter at character 33).",
            ),
            (
                "{'updates': []}",
                "Nothing was written: the arguments are not valid JSON "
                "(Expecting property name enclosed in double quotes at character 1).",
            ),
            (
                '{"updates": [{"tracker": "Health", "set": {"hp": NaN}}]}',
                "Nothing was written: the arguments are not valid JSON "
                "(NaN is not JSON; send a number).",
            ),
            (
                b'{"updates": [{"tracker": "\xff"}]}',
                "Nothing was written: the arguments are not valid JSON "
                "(not UTF-8: invalid start byte at byte 26).",
            ),
        ],
        ids=["cut-off", "single-quotes", "nan", "bytes-not-utf8"],
    )
    def test_malformed_text_is_refused_and_writes_nothing(
        self, text: str | bytes, answer: str
    ) -> None:
        """Text that is not JSON is answered as the Session answers it; nothing is pending."""
        turn = _turn()
        assert turn.call({"updates": [{"tracker": "Health", "set": {"hp": 3}}]}).ok
        result = turn.call(text)
        assert (result.ok, result.answer, result.deltas) == (False, answer, ())
        assert [str(e) for e in result.errors] == [f"the call: {answer[21:-1]}"]
        assert turn.values()["Health"]["hp"] == 3
        assert len(turn.pending) == 1

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            (
                '"x"',
                'the call: the arguments must be an object {"updates": [...]}; found the text "x"',
            ),
            ("[1]", "item 1: must be an object; found 1"),
            ("5", "the call: updates must be a list of items; found 5"),
        ],
        ids=["string", "list", "number"],
    )
    def test_text_of_a_non_object_gets_the_shape_answer(self, text: str, reason: str) -> None:
        """Text holding a value that is no call object is refused for its shape, as the object would be."""
        turn = _turn()
        result = turn.call(text)
        assert not result.ok
        assert [str(e) for e in result.errors] == [reason]
        assert turn.pending == []

    def test_a_string_is_decoded_once(self) -> None:
        """JSON text holding JSON text is a string, not a call: it is not decoded a second time."""
        turn = _turn()
        result = turn.call(json.dumps(json.dumps(CALL)))
        assert not result.ok
        assert "the arguments must be an object" in result.answer
        assert turn.pending == []
