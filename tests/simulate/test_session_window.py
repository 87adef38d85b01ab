"""Every round of a turn fits `window - reserve`: the rounds after tool calls trim the oldest
history to make room for the turn's own calls and answers, which are never dropped (TR-33)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from narrated import narrated_scene, narrated_session

from trackerkit import ReadTool, ScriptedModel, Session, assemble_request, count_tokens
from trackerkit.errors import PromptTooLargeError
from trackerkit.prompt import BLOCK_HEADING
from trackerkit.simulate.model import ModelReply, ModelRequest, ToolCall
from trackerkit.tokens import count_tool_tokens

WINDOW, RESERVE = 2048, 512
BUDGET = WINDOW - RESERVE
CARD = "You narrate for Vera."


class _Recorder:
    """The scripted model, recording every request it is sent (the session finds it as `inner`)."""

    name = "recorder"

    def __init__(self) -> None:
        self.inner = ScriptedModel()
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        return self.inner.complete(request)


def _session(model: Any, **options: Any) -> Session:
    return narrated_session(narrated_scene(window=WINDOW, reserve=RESERVE), model=model, **options)


def _sent(message: dict[str, Any]) -> int:
    """A message's tokens as sent: its text, and each call's name and arguments (one text)."""
    calls = [
        c["function"]["name"] + c["function"]["arguments"] for c in message.get("tool_calls") or []
    ]
    texts = ([message["content"]] if message.get("content") else []) + calls
    return count_tokens("\n".join(texts))


def _recount(request: ModelRequest) -> int:
    """The request's tokens counted again, part by part, from what was sent."""
    system, *rest = request.messages
    card, heading, block = system["content"].partition("\n\n" + BLOCK_HEADING)
    assert (card, heading) == (CARD, "\n\n" + BLOCK_HEADING)
    tools = sum(
        count_tool_tokens(
            t["function"]["name"], t["function"]["description"], t["function"]["parameters"]
        )
        for t in request.tools
    )
    trackers = count_tokens(BLOCK_HEADING + block)
    return count_tokens(card) + trackers + tools + sum(_sent(m) for m in rest)


def _play(session: Session, turns: int, say: Callable[[int], str]) -> None:
    for i in range(turns):
        row = {"tracker": "Bag", "row": f"Item {i}", "set": {"qty": i + 1}}
        step = {"calls": [{"name": "update_trackers", "arguments": {"updates": [row]}}]}
        report = session.turn(say(i), {**step, "reply": f"You take item {i}."})
        assert report.failed is None


class TestEveryRoundFits:
    """TR-33: a round after a tool call is trimmed to the window as the first round is."""

    def test_every_round_fits_window_minus_reserve(self) -> None:
        """Forty tool turns in a 2048 window with 512 reserved: every request, counted again
        from what was sent with the real tokenizer, is at most 1536 tokens and is the count the
        round reports."""
        model = _Recorder()
        session = _session(model)
        _play(session, 40, lambda i: f"I pick up item {i} and look around the room " * (i % 5 + 1))
        rounds = [r for report in session.reports for r in report.rounds]
        assert len(rounds) == len(model.requests) == 80
        for sent, reported in zip(model.requests, rounds, strict=True):
            total = _recount(sent)
            assert total == reported.tokens_in == sum(reported.parts.values()) == sent.counted
            assert total <= BUDGET, f"round {reported.index}: {total} tokens over {BUDGET}"
        trimmed = [
            r
            for r in session.reports
            if r.rounds[1].parts["history"] < r.rounds[0].parts["history"]
        ]
        assert trimmed, "no round after a call had to drop history: the window is not tight"

    def test_a_later_round_drops_only_the_oldest_history(self) -> None:
        """The round after a call keeps the newest history that fits beside the call and its
        answer: one more older message would not fit."""
        model = _Recorder()
        session = _session(model)
        _play(session, 40, lambda i: f"I pick up item {i} and look around the room " * (i % 5 + 1))
        last = model.requests[-1]
        total = _recount(last)
        seen = [(m["role"], m["content"]) for m in last.messages[1:-2]]
        everything = [(m.role, m.text) for m in session.chat.take.messages[:-1]]
        assert seen == everything[len(everything) - len(seen) :]
        older = everything[len(everything) - len(seen) - 1][1]
        assert total + count_tokens(older) > BUDGET
        call, answer = last.messages[-2:]
        assert (call["role"], answer["role"]) == ("assistant", "tool")
        assert answer["tool_call_id"] == call["tool_calls"][0]["id"]


class _Looks:
    """A model that sets hp and calls the read tool `look` in its first round, then answers."""

    name = "looks"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        if len(self.requests) == 1:
            hp = '{"updates": [{"tracker": "Health", "set": {"hp": 5}}]}'
            calls = (ToolCall("c1", "update_trackers", hp), ToolCall("c2", "look", "{}"))
            return ModelReply("", calls, "tool_calls")
        return ModelReply("done.", (), "stop")


class TestTheTurnItselfTooLarge:
    """TR-33: when the turn's own calls and answers leave no room, the turn fails in words."""

    def test_an_answer_past_the_window_fails_the_turn_naming_each_part(self) -> None:
        """A read tool answering about 2,000 tokens cannot be sent again in a 1536-token budget:
        the turn fails before the round is sent, keeps nothing, and the sentence names each
        part with its count, the turn's own calls and answers among them."""
        answer = "word " * 2_000
        look = ReadTool("look", "Look around.", {"type": "object"}, lambda _: answer)
        model = _Looks()
        session = _session(model, tools=[look])
        report = session.turn("I look around.")
        assert len(model.requests) == 1
        assert [c.ok for c in report.calls] == [True, True]
        assert report.values == {"Health": {"hp": 0, "hp_max": 30, "mood": "calm"}, "Bag": {}}
        assert session.chat.take.messages[-1].role == "user"
        first = report.rounds[0].parts
        asked = "\n".join(c.name + c.arguments for c in report.calls)
        turn = count_tokens(asked) + sum(count_tokens(c.answer) for c in report.calls)
        fixed = {k: v for k, v in first.items() if k != "history"}
        need = sum(fixed.values()) + turn
        assert report.failed == (
            f"This turn's own tool calls and answers ({turn} tokens) and the request's fixed "
            f"parts ({', '.join(f'{k} {v} tokens' for k, v in fixed.items())}) need {need} "
            f"tokens, but the window of {WINDOW} tokens leaves {BUDGET} after the reply reserve "
            f"of {RESERVE}, so the model could not be asked again; the turn failed and kept "
            "nothing. Use a larger window or a smaller reserve."
        )


HISTORY = [
    ("user" if i % 2 == 0 else "assistant", f"message {i}: " + "word " * 20) for i in range(10)
]


class TestAssembleWithTurn:
    """TR-33: `assemble_request(turn=)` keeps the turn's own tokens whole beside the fixed parts."""

    def test_turn_tokens_take_room_from_the_oldest_history(self) -> None:
        """With the turn's tokens the newest history that fits beside them is kept, and `turn`
        is a part of the request."""
        full = assemble_request(card=CARD, block=None, history=HISTORY, window=2000, reserve=0)
        counts = full.history_tokens
        window = full.parts["card"] + 40 + sum(counts[-3:])
        request = assemble_request(
            card=CARD, block=None, history=HISTORY, window=window, reserve=0, turn=40
        )
        assert (request.kept, request.dropped) == (3, 7)
        assert request.parts == {
            "card": full.parts["card"],
            "history": sum(counts[-3:]),
            "turn": 40,
        }
        assert request.total == window

    def test_turn_past_the_window_names_it(self) -> None:
        """When the fixed parts and the turn's tokens do not fit, the error names both."""
        with pytest.raises(PromptTooLargeError) as caught:
            assemble_request(card=CARD, block=None, history=[], window=50, reserve=10, turn=40)
        assert caught.value.parts == {"card": count_tokens(CARD), "turn": 40}
