"""What one turn may take: each loop message counted in tokens once, a call's arguments and the
turn's tool loop bounded in characters, each refusal naming its limit."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from narrated import narrated_scene, narrated_session

from trackerkit import Session, count_tokens
from trackerkit.simulate import session as session_module
from trackerkit.simulate.model import Model, ModelReply, ModelRequest, ToolCall
from trackerkit.simulate.session import MAX_CALL_ARGUMENTS, MAX_TURN_TEXT


class _Rounds:
    """A model answering each round's calls in turn, then a plain reply; records its requests."""

    name = "rounds"

    def __init__(self, rounds: Sequence[Sequence[str]]) -> None:
        self.rounds = list(rounds)
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        if len(self.requests) <= len(self.rounds):
            arguments = self.rounds[len(self.requests) - 1]
            calls = tuple(
                ToolCall(f"c{len(self.requests)}_{i}", "update_trackers", a)
                for i, a in enumerate(arguments)
            )
            return ModelReply("", calls, "tool_calls")
        return ModelReply("done.", (), "stop")


class _Sink:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def write(self, **event: Any) -> None:
        self.events.append(event)


def _session(model: Model, **options: Any) -> Session:
    return narrated_session(narrated_scene(window=1_000_000), model=model, **options)


def _hp(value: int, pad: int = 0) -> str:
    """An update call setting hp, padded with spaces (JSON whitespace) to about `pad` characters."""
    text = json.dumps({"updates": [{"tracker": "Health", "set": {"hp": value}}]})
    return text[:-1] + " " * max(pad - len(text), 0) + "}"


def test_each_loop_message_is_counted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Five rounds of 20,000-character calls: the texts counted add up to the loop's text once
    (the old accounting counted the whole loop again every round), and each round's `turn` part
    is the sum of the messages before it, each counted on its own."""
    counted: list[str] = []

    def counting(text: str, encoding: str = "cl100k_base") -> int:
        counted.append(text)
        return count_tokens(text, encoding)

    monkeypatch.setattr(session_module, "count_tokens", counting)
    model = _Rounds([[_hp(i, 20_000)] for i in range(5)])
    report = _session(model).turn("go")
    assert report.failed is None
    assert [c.ok for c in report.calls] == [True] * 5
    loop = sum(len(c.name + c.arguments) + len(c.answer) for c in report.calls) + len("done.")
    assert sum(map(len, counted)) <= loop
    expected = 0
    for number, call in enumerate(report.calls):
        expected += count_tokens(call.name + call.arguments) + count_tokens(call.answer)
        assert report.rounds[number + 1].parts["turn"] == expected


def test_a_call_past_the_argument_limit_is_refused_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A call longer than MAX_CALL_ARGUMENTS is answered with its size and the limit; the
    arguments are never parsed, nothing is written, and the turn goes on."""
    read: list[str] = []
    original = session_module.read_arguments

    def reading(text: str) -> tuple[object, str | None]:
        read.append(text)
        return original(text)

    monkeypatch.setattr(session_module, "read_arguments", reading)
    long = _hp(1, MAX_CALL_ARGUMENTS + 1)
    report = _session(_Rounds([[long, _hp(7)]])).turn("go")
    assert report.failed is None
    refused, kept = report.calls
    assert (refused.ok, refused.failure) == (False, "error")
    assert refused.answer == (
        f"Nothing was written: {len(long):,} characters of arguments, past the "
        f"{MAX_CALL_ARGUMENTS:,} one call may send (MAX_CALL_ARGUMENTS)."
    )
    assert read == [kept.arguments]
    assert report.values["Health"]["hp"] == 7


def test_a_reply_past_the_turn_limit_fails_the_turn_before_any_call_runs() -> None:
    """Twenty calls each under the call limit but past MAX_TURN_TEXT together: the turn fails at
    once, keeps nothing, and says which limit; the trace says `turn_too_large`."""
    size = MAX_TURN_TEXT // 20 + 100
    assert size < MAX_CALL_ARGUMENTS
    sink = _Sink()
    model = _Rounds([[_hp(5, size)] * 20])
    session = _session(model, trace=sink)
    before = session.values()
    report = session.turn("go")
    assert report.failed is not None
    assert report.failed.startswith("This turn's tool loop reached ")
    assert f"past the {MAX_TURN_TEXT:,} one turn may hold (MAX_TURN_TEXT" in report.failed
    assert report.failed.endswith("the turn failed and kept nothing.")
    assert report.calls == []
    assert len(model.requests) == 1
    assert session.values() == before
    last = sink.events[-1]
    assert (last["name"], last["data"]["code"]) == ("turn.failed", "turn_too_large")
    assert last["data"]["message"] == report.failed


def test_answers_count_toward_the_turn_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Round after round of small calls: the loop's text (calls and answers) reaches the limit
    and the turn fails naming the answer that passed it; no more model calls are made."""
    monkeypatch.setattr(session_module, "MAX_TURN_TEXT", 3_000)
    model = _Rounds([[_hp(i % 9, 400)] for i in range(8)])
    session = _session(model, max_rounds=8)
    before = session.values()
    report = session.turn("go")
    assert report.failed is not None
    assert "past the 3,000 one turn may hold (MAX_TURN_TEXT" in report.failed
    assert len(model.requests) < 8
    assert session.values() == before


def test_a_reply_of_a_million_spaces_is_counted() -> None:
    """tiktoken's regex gives up on a run of about a million spaces (ValueError); the turn still
    completes, its tokens counted exactly (`count_tokens` splits the text around the run)."""
    text = "x" + " " * 1_000_100 + "y"

    class Spaces:
        name = "spaces"

        def complete(self, request: ModelRequest) -> ModelReply:
            return ModelReply(text, (), "stop")

    assert count_tokens(text) == count_tokens("x") + count_tokens(" " * 1_000_099) + count_tokens(
        " y"
    )
    report = _session(Spaces()).turn("go")
    assert report.failed is None
    assert report.rounds[0].tokens_out == count_tokens(text)
