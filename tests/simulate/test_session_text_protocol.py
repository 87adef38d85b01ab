"""The text protocol in the simulator (issue 16, item 3): `Session(protocol="text")`.

No tool is offered; the prompt carries the text instructions; the reply's update block is taken
out of the reply the chat keeps, applied all or nothing (TR-37), and its answer is told on the
next turn. The law: every single-round step of the bundled scenarios plays to the same values
under both protocols; a step whose plan retries a refused batch in a second round differs by
design (under the text protocol the refusal is answered on the next turn).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from loopback import completion, openai_model, serving
from narrated import narrated_scene, narrated_session

from trackerkit import BadRequestError, ScriptedModel, Session, TurnPlan
from trackerkit.simulate.model import ModelReply, ModelRequest, text_block
from trackerkit.steps import TurnPlan as StepsPlan
from trackerkit.trace.write import TraceWriter

SCENES = REPO / "data" / "scenes"
BUNDLED = sorted(SCENES.glob("*.json"))
BLOCK = "```update_trackers"


def _session(protocol: str = "text", **options: Any) -> Session:
    return narrated_session(narrated_scene(), protocol=protocol, **options)


def _hp(value: object) -> dict[str, Any]:
    return {
        "name": "update_trackers",
        "arguments": {"updates": [{"tracker": "Health", "set": {"hp": value}}]},
    }


class _Recorder:
    """A model that answers fixed texts and keeps every request."""

    name = "recorder"

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        return ModelReply(self.replies.pop(0))


def _system(request: ModelRequest) -> str:
    return str(request.messages[0]["content"])


class TestSession:
    def test_no_tool_is_offered_and_the_prompt_carries_the_instructions(self) -> None:
        model = _Recorder("Fine.")
        session = _session(model=model)
        report = session.turn("hello")
        request = model.requests[0]
        assert request.tools == []
        assert request.protocol == "text"
        system = _system(request)
        assert "### Trackers" in system
        assert "end your reply with one fenced block labelled update_trackers" in system
        assert report.protocol == "text"
        assert report.tool_name == "update_trackers"
        assert report.tool_description is None
        assert report.request is not None
        assert report.request.parts["protocol"] > 0
        assert "tool" not in report.request.parts
        assert report.to_json()["protocol"] == "text"

    def test_the_block_is_applied_and_never_shown(self) -> None:
        block = '```update_trackers\n{"updates": [{"tracker": "Health", "set": {"hp": 12}}]}\n```'
        model = _Recorder(f"You stumble.\n\n{block}", "Later.")
        session = _session(model=model)
        report = session.turn("I fall.")
        assert report.reply == "You stumble."
        assert session.chat.messages[-1].text == "You stumble."
        assert session.values()["Health"]["hp"] == 12
        [call] = report.calls
        assert call.ok
        assert call.changes == 1
        assert call.name == "update_trackers"
        assert json.loads(call.arguments) == {"updates": [{"tracker": "Health", "set": {"hp": 12}}]}
        # The next turn tells the model what the block did; the history shows no block.
        session.turn("And then?")
        later = model.requests[1]
        assert "[update_trackers] " in _system(later)
        assert all(BLOCK not in str(m["content"]) for m in later.messages[1:])

    def test_a_refused_batch_writes_nothing_and_is_answered_next_turn(self) -> None:
        bad = '```update_trackers\n{"updates": [{"tracker": "Health", "set": {"hp": 5, "morale": "low"}}]}\n```'
        model = _Recorder(f"Ouch.\n{bad}", "Next.")
        session = _session(model=model)
        before = session.values()
        report = session.turn("hit")
        assert report.ok
        assert report.reply == "Ouch."
        assert session.values() == before  # all or nothing (TR-37)
        [call] = report.calls
        assert not call.ok
        assert call.failure == "ok:false"
        assert "morale" in call.answer
        session.turn("again")
        assert "morale" in _system(model.requests[1])

    @pytest.mark.parametrize(
        ("tail", "words"),
        [
            ('```update_trackers\n{"updates": [\n```', "not valid JSON"),
            ("```update_trackers\n" + "[" * 1000 + "\n```", "nests too deep"),
            ('```update_trackers\n{"updates": []}', "not closed"),
            ("```update_trackers\n[1, 2]\n```", "must hold an object"),
            ('```update_trackers\n{"updates": []}\n```\nAnd more text.', "must end the reply"),
        ],
    )
    def test_a_malformed_block_is_an_outcome(self, tail: str, words: str) -> None:
        model = _Recorder(f"Text.\n{tail}", "Next.")
        session = _session(model=model)
        report = session.turn("go")
        assert report.ok
        assert BLOCK not in (report.reply or "")
        [call] = report.calls
        assert not call.ok
        assert call.failure == "error"
        assert words in call.answer
        assert call.answer.startswith("[update_trackers] Nothing was written")
        session.turn("go on")
        assert words in _system(model.requests[1])

    @pytest.mark.parametrize("depth", [900, 1000, 50_000])
    def test_a_deep_block_is_an_outcome_and_traced_as_sent(
        self, tmp_path: Path, depth: int
    ) -> None:
        """A block nested deep (readable or past the decoder) ends the turn as a refusal, traced as sent."""
        body = (
            '{"updates": [{"tracker": "Health", "set": {"hp": ' + "[" * depth + "]" * depth + "}}]}"
        )
        model = _Recorder(f"Text.\n```update_trackers\n{body}\n```")
        with TraceWriter(tmp_path, timezone="UTC", capture_content=True) as writer:
            session = _session(model=model, trace=writer)
            before = session.values()
            report = session.turn("go")
        assert report.ok
        assert session.values() == before
        [call] = report.calls
        assert not call.ok
        assert call.arguments == body
        assert writer.failures == 0
        [day] = (tmp_path / "trace").glob("*.jsonl")
        assert "update_trackers" in day.read_text(encoding="utf-8")

    def test_a_reply_without_a_block_makes_no_call(self) -> None:
        session = _session(model=_Recorder("Quiet."))
        report = session.turn("wait")
        assert report.calls == []
        assert report.reply == "Quiet."

    def test_tool_calls_under_the_text_protocol_are_refused_not_run(self) -> None:
        class Caller(_Recorder):
            def complete(self, request: ModelRequest) -> ModelReply:
                from trackerkit.simulate.model import ToolCall

                self.requests.append(request)
                args = '{"updates": [{"tracker": "Health", "set": {"hp": 1}}]}'
                return ModelReply("Hm.", (ToolCall("c1", "update_trackers", args),), "tool_calls")

        session = _session(model=Caller())
        before = session.values()
        report = session.turn("go")
        assert report.ok
        assert session.values() == before
        [call] = report.calls
        assert not call.ok
        assert "text protocol" in call.answer

    def test_the_update_is_offered_on_a_connection_without_tools(self) -> None:
        session = _session(model=ScriptedModel(), tools_supported=False)
        report = session.turn("go", {"calls": [_hp(7)], "reply": "ok."})
        assert report.ok
        assert session.values()["Health"]["hp"] == 7

    def test_a_swipe_sees_the_answer_of_the_reply_before_the_one_it_replaces(self) -> None:
        ok = '```update_trackers\n{"updates": [{"tracker": "Health", "set": {"hp": 9}}]}\n```'
        bad = '```update_trackers\n{"updates": [{"tracker": "Nope", "set": {}}]}\n```'
        model = _Recorder(f"A.\n{ok}", f"B.\n{bad}", "B again.")
        session = _session(model=model)
        session.turn("one")
        session.turn("two")
        session.swipe()
        system = _system(model.requests[2])
        assert "Nope" not in system
        assert "[update_trackers] " in system

    def test_an_unknown_protocol_is_refused(self) -> None:
        with pytest.raises(BadRequestError, match="protocol must be one of tools, text"):
            _session(protocol="smoke")

    def test_the_trace_names_the_protocol_and_the_block_call(self) -> None:
        events: list[dict[str, Any]] = []

        class Sink:
            def write(self, **event: Any) -> None:
                events.append(event)

        session = _session(model=ScriptedModel(), trace=Sink())
        session.turn("go", {"calls": [_hp(11)], "reply": "ok."})
        names = [e["name"] for e in events]
        assert names == [
            "bound",
            "turn.started",
            "step.started",
            "actions.requested",
            "action.result",
            "step.completed",
            "message.completed",
            "turn.completed",
        ]
        assert events[1]["data"]["protocol"] == "text"
        assert events[3]["data"]["actions"][0]["toolName"] == "update_trackers"
        assert json.loads(events[4]["data"]["result"]) == {"ok": True, "changes": 1}
        assert events[6]["data"]["message"] == "ok."


class TestScriptedModel:
    def test_the_first_round_is_written_as_the_block(self) -> None:
        model = ScriptedModel([StepsPlan("Reply.", [[_hp(3)], [_hp(4)]])])
        model.start_turn()
        reply = model.complete(ModelRequest([], [], "text"))
        assert reply.tool_calls == ()
        assert (
            reply.content
            == 'Reply.\n\n```update_trackers\n{"updates":[{"tracker":"Health","set":{"hp":3}}]}\n```'
        )
        # One call per turn: asked again, it has nothing more to send.
        assert model.complete(ModelRequest([], [], "text")).content == "Reply."

    def test_several_calls_join_into_one_batch(self) -> None:
        block = text_block([_hp(1), _hp(2)])
        assert block is not None
        body = json.loads(block.split("\n")[1])
        assert [u["set"]["hp"] for u in body["updates"]] == [1, 2]

    def test_broken_arguments_are_sent_as_written(self) -> None:
        assert (
            text_block([{"name": "update_trackers", "arguments": "{oops"}])
            == "```update_trackers\n{oops\n```"
        )
        assert text_block([{"name": "look", "arguments": {}}]) is None

    def test_tool_plans_are_unchanged(self) -> None:
        model = ScriptedModel([TurnPlan("R.", [[_hp(3)]])])
        model.start_turn()
        reply = model.complete(ModelRequest([], [{"type": "function"}]))
        assert [c.name for c in reply.tool_calls] == ["update_trackers"]


def _rounds(step: dict[str, Any]) -> int:
    return len(StepsPlan.from_step(step).rounds) if "user" in step or "reply" in step else 0


def _played_to(path: Path, index: int, protocol: str) -> Session:
    """A tool-path session with steps before `index` played, then step `index` under `protocol`."""
    session = Session.from_scene(path)
    for _ in range(index):
        session.play_next()
    session.protocol = protocol  # type: ignore[assignment]
    session.play_next()
    return session


class TestLaw:
    """From the same chat, a single-round step plays to the same values under both protocols."""

    @pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
    def test_every_single_round_step_plays_alike(self, path: Path) -> None:
        steps = json.loads(path.read_text("utf-8")).get("turns", [])
        checked = 0
        for index, step in enumerate(steps):
            if not _is_model_step(step) or _rounds(step) > 1:
                continue
            tools = _played_to(path, index, "tools")
            text = _played_to(path, index, "text")
            assert text.values() == tools.values(), f"{path.name} turns[{index}]"
            assert text.mismatches == tools.mismatches
            report = text.reports[-1]
            assert report.protocol == "text"
            assert BLOCK not in (report.reply or "")
            checked += 1
        assert checked == sum(_is_model_step(s) and _rounds(s) <= 1 for s in steps)

    @pytest.mark.parametrize(
        "path", [SCENES / "fight.json", SCENES / "eval-choices.json"], ids=lambda p: p.stem
    )
    def test_a_retried_batch_differs_by_design(self, path: Path) -> None:
        """The step's first round is refused and nothing is written; the refusal is told on the next turn."""
        steps = json.loads(path.read_text("utf-8")).get("turns", [])
        index = next(i for i, s in enumerate(steps) if len(s.get("rounds", [])) > 1)
        session = Session.from_scene(path)
        for _ in range(index):
            session.play_next()
        before = session.values()
        session.protocol = "text"
        report = session.play_next()
        assert report is not None
        assert report.ok
        assert session.values() == before
        [call] = report.calls
        assert not call.ok
        tools = _played_to(path, index, "tools")
        assert tools.values() != before
        # The next turn is told why nothing was written.
        if index + 1 < len(steps):
            nxt = session.play_next()
            assert nxt is not None
            assert nxt.request is not None
            assert call.answer in str(nxt.request.messages[0]["content"])

    @pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
    def test_free_running_scenarios_without_retries_meet_every_expect(self, path: Path) -> None:
        steps = json.loads(path.read_text("utf-8")).get("turns", [])
        text = Session.from_scene(path, protocol="text")
        tools = Session.from_scene(path)
        for index, step in enumerate(steps):
            if _rounds(step) > 1:
                return  # from here on the two paths differ by design
            text.play_next()
            tools.play_next()
            assert text.values() == tools.values(), f"{path.name} turns[{index}]"
            if text.chat.messages and text.chat.messages[-1].role == "assistant":
                assert BLOCK not in text.chat.messages[-1].text
        assert text.mismatches == tools.mismatches == []


def _is_model_step(step: dict[str, Any]) -> bool:
    return "user" in step or step.get("action") in ("swipe", "regenerate", "continue")


class TestOpenAIPath:
    """The OpenAI-compatible client under the text protocol: no tools sent, the reply text read."""

    def test_a_loopback_turn_sends_no_tools_and_reads_the_block(self) -> None:
        block = '```update_trackers\n{"updates": [{"tracker": "Health", "set": {"hp": 15}}]}\n```'
        with serving() as server:
            server.script(completion(f"The blade bites.\n\n{block}"), completion("You rest."))
            session = _session(model=openai_model(server))
            first = session.turn("I duel.")
            second = session.turn("I rest.")
            seen = [s.body for s in server.seen]
        assert first.ok
        assert second.ok
        assert all("tools" not in body for body in seen)
        system = seen[0]["messages"][0]["content"]
        assert "labelled update_trackers" in system
        assert first.reply == "The blade bites."
        assert session.values()["Health"]["hp"] == 15
        # The second request carries the answer, and the history the visible reply only.
        assert "[update_trackers] " in seen[1]["messages"][0]["content"]
        assert {"role": "assistant", "content": "The blade bites."} in seen[1]["messages"]

    def test_a_server_that_refuses_tools_is_no_obstacle(self) -> None:
        """A model without tool calling (its server refuses `tools`) keeps trackers by text."""
        block = '```update_trackers\n{"updates": [{"tracker": "Health", "set": {"hp": 4}}]}\n```'
        with serving() as server:
            server.script(completion(f"Hm.\n{block}"))
            session = _session(model=openai_model(server), tools_supported=False)
            report = session.turn("go")
        assert report.ok
        assert session.values()["Health"]["hp"] == 4

    def test_a_malformed_block_from_the_server_is_an_outcome(self) -> None:
        with serving() as server:
            server.script(completion('Well.\n```update_trackers\n{"updates": [}\n```'))
            session = _session(model=openai_model(server))
            report = session.turn("go")
        assert report.ok
        assert report.reply == "Well."
        [call] = report.calls
        assert not call.ok
        assert "not valid JSON" in call.answer
