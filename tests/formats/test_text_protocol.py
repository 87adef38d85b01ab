"""The text protocol: one fenced update block at the end of a reply, read like a tool call (TR-35..TR-38)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from state_strategies import batches, linked, stored_states

from trackerkit import Tracker, apply_tracker_updates, decode_tracker
from trackerkit._arguments import read_arguments
from trackerkit.formats.text_protocol import (
    BLOCK_LABEL,
    TextUpdates,
    parse_text_updates,
    render_text_updates,
    text_answer,
    text_instructions,
)
from trackerkit.tool import tracker_line

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = {
    p.stem: decode_tracker(json.loads(p.read_text()))
    for p in sorted((ROOT / "data" / "trackers").glob("*.json"))
}
CALL = {"updates": [{"tracker": "Health", "set": {"hp": 22}}]}
BLOCK = '```update_trackers\n{"updates":[{"tracker":"Health","set":{"hp":22}}]}\n```'


class TestParse:
    """What a reply holds: the visible text, and the arguments or why they could not be read."""

    @pytest.mark.parametrize(
        ("reply", "expected"),
        [
            ("Fog rolls in.", TextUpdates("Fog rolls in.")),
            (f"A cudgel hits you.\n\n{BLOCK}\n", TextUpdates("A cudgel hits you.", CALL)),
            (f"A cudgel hits you.\n```json\n{json.dumps(CALL)}\n```", TextUpdates("A cudgel hits you.", CALL)),
            ('Code:\n```json\n{"a": 1}\n```', TextUpdates('Code:\n```json\n{"a": 1}\n```')),
            (f"Hit.\n````update_trackers\n{json.dumps(CALL)}\n````", TextUpdates("Hit.", CALL)),
            (f"```python\nprint(1)\n```\nHit.\n{BLOCK}", TextUpdates("```python\nprint(1)\n```\nHit.", CALL)),
            (BLOCK, TextUpdates("", CALL)),
            # Found when tried: a reply with Windows line endings lost its update ("not closed").
            (f"A cudgel hits you.\r\n\r\n{BLOCK}\r\n".replace("\n", "\r\n").replace("\r\r", "\r"), TextUpdates("A cudgel hits you.", CALL)),
        ],
        ids=["no-block", "block", "json-label", "other-json", "four-backticks", "code-kept", "block-only", "crlf"],
    )  # fmt: skip
    def test_read(self, reply: str, expected: TextUpdates) -> None:
        """The block leaves the visible text; anything else stays as written."""
        assert parse_text_updates(reply) == expected

    @pytest.mark.parametrize(
        ("reply", "visible", "error"),
        [
            (f"Hit.\n{BLOCK}\nAnd then?", "Hit.\n\nAnd then?", "the update_trackers block must end the reply; text came after it"),
            (f"{BLOCK}\nHit.\n{BLOCK}", "Hit.", "send one update_trackers block at the end of the reply; found 2"),
            ('Hit.\n```update_trackers\n{"updates": [', "Hit.", "the update_trackers block is not closed with ```"),
            ("Hit.\n```update_trackers\n[1]\n```", "Hit.", 'the update_trackers block must hold an object {"updates": [...]}; found list'),
            ("Hit.\n```update_trackers\nnull\n```", "Hit.", 'the update_trackers block must hold an object {"updates": [...]}; found null'),
        ],
        ids=["text-after", "two-blocks", "not-closed", "a-list", "null"],
    )  # fmt: skip
    def test_unreadable_blocks_are_hidden_and_explained(
        self, reply: str, visible: str, error: str
    ) -> None:
        """A block that cannot be read never shows, and the error says why in a sentence."""
        assert parse_text_updates(reply) == TextUpdates(visible, None, error)

    def test_bad_json_names_the_place(self) -> None:
        """Invalid JSON is named with the parser's line and column."""
        parsed = parse_text_updates('Hit.\n```update_trackers\n{"updates": [}\n```')
        assert parsed.visible == "Hit."
        assert parsed.error is not None
        assert parsed.error.startswith("the update_trackers block is not valid JSON (")
        assert "line 1 column 14" in parsed.error

    @pytest.mark.parametrize(
        "body",
        ["[" * 1000, "[" * 100_000 + "]" * 100_000, '{"updates": ' + "[" * 5000, '{"a":' * 3000],
        ids=["open-1000", "closed-100000", "inside-updates", "objects"],
    )
    def test_nesting_too_deep_is_a_refused_block(self, body: str) -> None:
        """A block nested past the decoder's depth is refused like any malformed block, never a RecursionError."""
        parsed = parse_text_updates(f"Hit.\n```update_trackers\n{body}\n```")
        assert parsed == TextUpdates(
            "Hit.",
            None,
            "the update_trackers block nests too deep to read; an update call needs four levels",
        )
        assert parsed.body == body
        answer = text_answer(parsed, None)
        assert answer is not None
        assert answer.startswith("[update_trackers] Nothing was written:")

    def test_a_deep_json_block_is_prose(self) -> None:
        """A last `json` block too deep to read is no update block: it stays in the reply."""
        reply = 'Hit.\n```json\n{"updates": ' + "[" * 1000 + "\n```"
        assert parse_text_updates(reply) == TextUpdates(reply)

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_text_path_applies_like_the_tool_path(self, data: st.DataObject) -> None:
        """Any batch written as the block applies exactly as the same tool call does (TR-37)."""
        trackers = data.draw(linked())
        state = data.draw(stored_states(trackers))
        arguments: dict[str, Any] = {"updates": data.draw(batches(trackers))}
        prose = data.draw(st.text(st.characters(blacklist_characters="`"), max_size=40))
        parsed = parse_text_updates(f"{prose}\n{render_text_updates(arguments)}\n")
        assert parsed.visible == prose.strip()
        assert parsed.arguments == arguments
        assert apply_tracker_updates(trackers, state, parsed.arguments) == apply_tracker_updates(
            trackers, state, arguments
        )


def _tool_outcome(trackers: list[Tracker], body: str) -> object:
    """What the tool path makes of `body`: refused before the rules, or the batch's result."""
    arguments, problem = read_arguments(body)
    return "refused" if problem is not None else apply_tracker_updates(trackers, {}, arguments)


def _text_outcome(trackers: list[Tracker], body: str) -> object:
    """What the text protocol makes of the same `body` sent as the reply's block."""
    parsed = parse_text_updates(f"Hit.\n```{BLOCK_LABEL}\n{body}\n```")
    if parsed.arguments is None:
        assert parsed.error is not None
        return "refused"
    return apply_tracker_updates(trackers, {}, parsed.arguments)


def _health_body(hp: str) -> str:
    return '{"updates":[{"tracker":"Health","set":{"hp":' + hp + "}}]}"


_JSON_TEXT = st.recursive(
    st.sampled_from(["null", "true", "false", "0", "-1", "22", "1.5"])
    | st.sampled_from(["Infinity", "-Infinity", "NaN", "9" * 5000, "-" + "9" * 5000, "1e400"])
    | st.text(st.characters(blacklist_characters="`"), max_size=5).map(json.dumps),
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]")
        | st.dictionaries(
            st.sampled_from(["updates", "tracker", "set", "hp", "Health"]), inner, max_size=3
        ).map(lambda d: "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in d.items()) + "}")
    ),
    max_leaves=8,
)


_BODY = json.dumps(CALL)


class TestCommonMarkFences:
    """A block is found where CommonMark finds a fenced code block, and nowhere else."""

    @pytest.mark.parametrize(
        "block",
        [
            f" ```update_trackers\n {_BODY}\n ```",
            f"  ```update_trackers\n  {_BODY}\n  ```",
            f"   ```update_trackers\n   {_BODY}\n   ```",
            f"~~~update_trackers\n{_BODY}\n~~~",
            f"  ~~~~ update_trackers\n{_BODY}\n~~~~~~",
            f"```update_trackers\n{_BODY}\n   ````",
            f"~~~update_trackers\n{_BODY}\n~~~\r\n",
            f"  ```json\n  {_BODY}\n  ```",
        ],
        ids=["indent-1", "indent-2", "indent-3", "tildes", "long-tildes", "indented-close", "crlf-close", "indented-json"],
    )  # fmt: skip
    def test_fenced_blocks_are_read(self, block: str) -> None:
        """Found when tried: a block indented 1-3 spaces or fenced with ~~~ was left in the reply, unread and unanswered."""
        assert parse_text_updates(f"Ouch.\n{block}") == TextUpdates("Ouch.", CALL)

    def test_the_body_loses_the_fences_indentation(self) -> None:
        """As many spaces as the fence was indented come off each line, no more."""
        parsed = parse_text_updates('   ```update_trackers\n   {"updates":\n      []}\n   ```')
        assert parsed.body == '{"updates":\n   []}'

    @pytest.mark.parametrize(
        "reply",
        [
            f"Ouch.\n    ```update_trackers\n    {_BODY}\n    ```",
            f"Ouch. ```update_trackers {_BODY} ```",
            f"Ouch.\n``update_trackers\n{_BODY}\n``",
        ],
        ids=["indent-4-is-code", "inline", "two-backticks"],
    )
    def test_what_commonmark_does_not_fence_stays_text(self, reply: str) -> None:
        """Four spaces make an indented code block, not a fence: the reply stays as written."""
        assert parse_text_updates(reply) == TextUpdates(reply)

    @pytest.mark.parametrize(
        ("reply", "error"),
        [
            (f"Ouch.\n```update_trackers\n{_BODY}\n~~~", "the update_trackers block is not closed with ```"),
            (f"Ouch.\n~~~~update_trackers\n{_BODY}\n~~~", "the update_trackers block is not closed with ~~~~"),
            (f"Ouch.\n```update_trackers\n{_BODY}\n    ```", "the update_trackers block is not closed with ```"),
        ],
        ids=["other-character", "shorter", "close-indented-4"],
    )  # fmt: skip
    def test_a_fence_closes_only_as_commonmark_closes_it(self, reply: str, error: str) -> None:
        """A closing fence of the other character, shorter, or indented four spaces leaves the block open."""
        parsed = parse_text_updates(reply)
        assert (parsed.visible, parsed.arguments, parsed.error) == ("Ouch.", None, error)


class TestSameReaderAsTheTool:
    """The block's body is read exactly as a tool call's argument text (TR-37)."""

    @pytest.mark.parametrize(
        "body",
        [
            _health_body("22"),
            _health_body("Infinity"),
            _health_body("-Infinity"),
            _health_body("NaN"),
            _health_body("9" * 5000),
            _health_body("-" + "9" * 5000),
            _health_body("1e400"),
            _health_body('"\\ud800"'),
            "{}",
            "",
            "[" * 5000,
            '{"updates": [}',
        ],
        ids=["plain", "infinity", "minus-infinity", "nan", "5000-digits", "minus-5000-digits",
             "1e400", "lone-surrogate", "empty-object", "empty", "deep", "bad-json"],
    )  # fmt: skip
    def test_table(self, body: str) -> None:
        """Found when tried: Infinity was written as hp 30 and 5,000 digits refused in the interpreter's words."""
        health = [BUNDLED["health"]]
        assert _text_outcome(health, body) == _tool_outcome(health, body)

    def test_reasons_are_the_tools_in_the_blocks_name(self) -> None:
        """A refused literal is named as the tool path names it, with no interpreter advice."""
        infinity = parse_text_updates(f"```{BLOCK_LABEL}\n{_health_body('Infinity')}\n```")
        assert infinity.error == (
            "the update_trackers block is not valid JSON (Infinity is not JSON; send a number)"
        )
        digits = parse_text_updates(f"```{BLOCK_LABEL}\n{_health_body('9' * 5000)}\n```")
        assert digits.error is None
        assert digits.arguments == {"updates": [{"tracker": "Health", "set": {"hp": math.inf}}]}

    @settings(max_examples=200, deadline=None)
    @given(_JSON_TEXT, st.sampled_from(["", " ", "\n  "]))
    def test_any_body_reads_as_the_tool_reads_it(self, body: str, pad: str) -> None:
        """Any JSON-like body, odd literals and huge numbers included, reads as the same value or
        the same reason (in the block's name); only a value that is no object is refused besides."""
        text = pad + body
        value, problem = read_arguments(text)
        parsed = parse_text_updates(f"Hit.\n```{BLOCK_LABEL}\n{text}\n```")
        if problem is not None:
            assert parsed.error == problem.replace(
                "the arguments are", "the update_trackers block is"
            ).replace("the arguments nest", "the update_trackers block nests")
        elif isinstance(value, dict):
            assert (parsed.arguments, parsed.error) == (value, None)
        else:
            assert parsed.arguments is None
            assert parsed.error is not None
            assert parsed.error.startswith("the update_trackers block must hold an object")


class TestScenarios:
    """Every scripted call of the bundled scenes, sent as a block, reads back as the same call."""

    @pytest.mark.parametrize(
        "scene",
        [
            p
            for p in sorted((ROOT / "data" / "scenes").glob("*.json"))
            if '"calls"' in p.read_text()
        ],
        ids=lambda p: p.stem,
    )
    def test_every_call_reads_back(self, scene: Path) -> None:
        """The arguments of each single-round step come back whole, and the visible reply is the reply."""
        doc = json.loads(scene.read_text())
        linked = [BUNDLED[i] for i in doc["prompting"]["trackers"] if i in BUNDLED]
        seen = 0
        for step in doc.get("turns", []):
            for call in step.get("calls") or []:
                reply = f"{step.get('reply', '')}\n\n{render_text_updates(call['arguments'])}"
                parsed = parse_text_updates(reply)
                assert parsed.visible == step.get("reply", "").strip()
                assert parsed.arguments == call["arguments"]
                assert apply_tracker_updates(linked, {}, parsed.arguments) == apply_tracker_updates(
                    linked, {}, call["arguments"]
                )
                seen += 1
        assert seen > 0


class TestPromptAndAnswer:
    """What the prompt asks for, and what the next turn says back."""

    def test_instructions(self) -> None:
        """The block's form with a valid example, the rules, then one line per tracker (TR-36)."""
        trackers = [BUNDLED["health"], BUNDLED["inventory"]]
        text = text_instructions(trackers)
        example = text.split("\n")[1:4]
        assert example == [
            f"```{BLOCK_LABEL}",
            '{"updates":[{"tracker":"Health","set":{"hp":0}}]}',
            "```",
        ]
        assert text.endswith("\n" + "\n".join(tracker_line(t) for t in trackers))
        assert text_instructions([]) == ""

    @pytest.mark.parametrize("tracker", list(BUNDLED.values()), ids=list(BUNDLED))
    def test_the_example_is_a_valid_call(self, tracker: Tracker) -> None:
        """The example in the prompt reads and applies for every bundled tracker."""
        example = "\n".join(text_instructions([tracker]).split("\n")[1:4])
        parsed = parse_text_updates(example)
        assert parsed.arguments is not None
        assert apply_tracker_updates([tracker], {}, parsed.arguments).ok

    def test_answers(self) -> None:
        """No block, no answer; a refused or unreadable block says nothing was written."""
        health = [BUNDLED["health"]]
        assert text_answer(parse_text_updates("Fog."), None) is None
        ok = parse_text_updates(f"Hit.\n{BLOCK}")
        assert text_answer(ok, apply_tracker_updates(health, {}, ok.arguments)) == (
            "[update_trackers] Health: hp 0 -> 22"
        )
        bad = parse_text_updates("Hit.\n```update_trackers\n[1]\n```")
        assert text_answer(bad, None) == (
            "[update_trackers] Nothing was written: the update_trackers block must hold an object "
            '{"updates": [...]}; found list. Send the whole block again.'
        )
        refused = parse_text_updates('```update_trackers\n{"updates":[{"tracker":"Nobody"}]}\n```')
        answer = text_answer(refused, apply_tracker_updates(health, {}, refused.arguments))
        assert answer is not None
        assert answer.startswith("[update_trackers] Nothing was written: 1 error.")
