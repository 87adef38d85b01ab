"""A fuzz of model replies under the text protocol, and of tool-call argument strings the text
protocol is sent: read, applied or answered, never raised (TR-35..TR-38).

Replies are built from prose (backticks included), fences of any length and label, and bodies a
hostile or confused model writes: the tool fuzz's argument texts (nesting 100,000 deep, integers
of 5,000 digits, `NaN`, lone surrogates, cut-off text), brackets left open by the thousand, and
random text; a block may be left open or followed by more text. The laws: `parse_text_updates`
never raises and says either the arguments or why not; the arguments apply as the tool path's
do (all or nothing, values in range); a whole `Session` turn completes and answers the block;
a reply's stray tool calls under the text protocol are answered, not run; a scenario's planned
arguments of any text make a block. Only the documented refusals come out.

A found defect: a block holding 1,000 `[` raised RecursionError and ended `simulate` and `eval`.
"""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st
from test_tool_fuzz import (
    FIXED,
    FUZZ,
    TURNS,
    _check_result,
    _pieces,
    _scene,
    argument_texts,
    scenes,
)

from trackerkit import Session, Tracker, apply_tracker_updates
from trackerkit.formats.text_protocol import BLOCK_LABEL, parse_text_updates, text_answer
from trackerkit.simulate.model import ModelReply, ModelRequest, ToolCall, text_block

prose = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", "Hit.", "```", "``", "````", "```json", "```python\nx\n```", "\n\n"]),
)


@st.composite
def bodies(draw: st.DrawFn) -> str:
    """A block's body: mostly a call's shape, sometimes brackets left open, sometimes anything."""
    kind = draw(st.sampled_from(["arguments", "arguments", "open", "closed", "text"]))
    if kind == "arguments":
        return draw(argument_texts())
    opener = draw(st.sampled_from(["[", '{"a":', '{"updates":', '{"updates":[']))
    depth = draw(st.sampled_from([1, 900, 1000, 5000, 100_000]))
    if kind == "open":
        return opener * depth
    if kind == "closed":
        return "[" * depth + "]" * depth
    return draw(st.text(max_size=40))


@st.composite
def replies(draw: st.DrawFn) -> str:
    """A model's reply: prose, then blocks of any label and fence, closed or open, text after."""
    parts = [draw(prose)]
    for _ in range(draw(st.integers(0, 3))):
        fence = "`" * draw(st.sampled_from([3, 3, 3, 4]))
        label = draw(st.sampled_from([BLOCK_LABEL, BLOCK_LABEL, "json", "JSON", "", "text"]))
        body = draw(bodies())
        closing = draw(st.sampled_from([f"\n{fence}", f"\n{fence}", "", "\n``"]))
        parts.append(f"\n{fence}{label}\n{body}{closing}")
        parts.append(draw(st.sampled_from(["", "", "\n", "\nAnd more."])))
    return "".join(parts)


class TestParse:
    @FUZZ
    @given(scenes(), replies())
    def test_any_reply_is_read_and_applied_or_answered(
        self, scene: tuple[list[Tracker], dict[str, dict[str, object]]], reply: str
    ) -> None:
        """The arguments or one reason, never both, never an exception; the batch is all or nothing."""
        trackers, state = scene
        parsed = parse_text_updates(reply)
        assert isinstance(parsed.visible, str)
        if not parsed.sent:
            assert text_answer(parsed, None) is None
            return
        assert (parsed.arguments is None) != (parsed.error is None)
        if parsed.error is not None:
            answer = text_answer(parsed, None)
            assert answer is not None
            assert answer.startswith(f"[{BLOCK_LABEL}] Nothing was written: ")
            return
        assert isinstance(parsed.arguments, dict)
        before = copy.deepcopy(state)
        result = apply_tracker_updates(trackers, state, parsed.arguments)
        assert state == before
        _check_result(trackers, state, result)
        answer = text_answer(parsed, result)
        assert answer is not None
        assert answer.startswith(f"[{BLOCK_LABEL}] ")


class _Says:
    """A model that answers one fixed reply (with tool calls, if given), then plain text."""

    name = "says"

    def __init__(self, reply: str, calls: tuple[ToolCall, ...] = ()) -> None:
        self.reply, self.calls = reply, calls
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        if len(self.requests) == 1:
            return ModelReply(self.reply, self.calls, "tool_calls" if self.calls else "stop")
        return ModelReply("Next.")


def _fits(session: Session) -> None:
    values = session.values()
    assert 0 <= values["Health"]["hp"] <= values["Health"]["hp_max"]
    assert all(0 <= row["kg"] <= 500 for row in values["Load"].values())


class TestSessionTurn:
    @TURNS
    @given(replies())
    def test_a_text_turn_never_raises(self, reply: str) -> None:
        """Whatever the reply, the turn completes, its block is answered on the next turn, values fit."""
        model = _Says(reply)
        session = Session(_scene(), _pieces(), model, protocol="text")
        report = session.turn("go")
        assert report.ok, report.failed
        assert len(report.calls) <= 1
        for call in report.calls:
            call.answer.encode("utf-8")
            assert call.answer.startswith(f"[{BLOCK_LABEL}] ")
        _fits(session)
        assert session.turn("and then").ok
        if report.calls:
            assert report.calls[0].answer in str(model.requests[1].messages[0]["content"])

    @TURNS
    @given(argument_texts(), st.sampled_from(["update_trackers", "update_tracker", ""]))
    def test_a_tool_call_under_the_text_protocol_is_answered_not_run(
        self, arguments: str, name: str
    ) -> None:
        """A tool call with any argument text, sent where no tool is offered, changes nothing."""
        model = _Says("Fine.", (ToolCall("c1", name, arguments),))
        session = Session(_scene(), _pieces(), model, protocol="text")
        before = session.values()
        report = session.turn("go")
        assert report.ok, report.failed
        (call,) = report.calls
        assert not call.ok
        assert session.values() == before


_open_brackets = st.sampled_from([1, 1000, 100_000]).map(lambda depth: "[" * depth)


class TestPlannedBlocks:
    @FUZZ
    @given(st.lists(st.one_of(argument_texts(), _open_brackets), min_size=1, max_size=3))
    def test_planned_arguments_of_any_text_make_a_block(self, planned: list[str]) -> None:
        """A scenario's planned calls (argument text as written) make one block, read back without raising."""
        block = text_block([{"name": "update_trackers", "arguments": a} for a in planned])
        assert block is not None
        parsed = parse_text_updates(f"Text.\n{block}")
        assert parsed.sent
        if parsed.arguments is not None:
            _check_result(FIXED, {}, apply_tracker_updates(FIXED, {}, parsed.arguments))
