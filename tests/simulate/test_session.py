"""The simulator: scenarios to their final values, token counts, turn kinds, the tool loop and trace events (TR-33..TR-41, TC-4)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from narrated import narrated_scene, narrated_session

from trackerkit import (
    EditRefusedError,
    ModelError,
    NotFoundError,
    ReadTool,
    ScriptedModel,
    Session,
    TurnError,
    TurnPlan,
    TurnReport,
    count_tokens,
    count_tool_tokens,
    update_trackers_tool,
)
from trackerkit.simulate.model import ModelReply, ModelRequest, ToolCall
from trackerkit.simulate.session import MAX_TOOL_ANSWER
from trackerkit.trace import TraceWriter, assemble_turns, read_trace

SCENES = REPO / "data" / "scenes"
SHORTENED = "…[truncated]"


def _session(*links: str, tool_access: bool = True, window: int = 8192, **options: Any) -> Session:
    return narrated_session(
        narrated_scene(*links, tool_access=tool_access, window=window), **options
    )


def _update(*items: dict[str, Any], name: str = "update_trackers") -> dict[str, Any]:
    return {"name": name, "arguments": {"updates": list(items)}}


def _hp(value: int, **more: Any) -> dict[str, Any]:
    return {"tracker": "Health", "set": {"hp": value, **more}}


def _say(session: Session, *calls: dict[str, Any], reply: str = "ok.") -> TurnReport:
    return session.turn("go", {"calls": list(calls), "reply": reply})


def _read_tool(
    name: str = "look", answer: str = "a quiet room", access: str = "read"
) -> tuple[ReadTool, list[object]]:
    """A tool whose runs are recorded; returns the tool and the list of arguments it ran with."""
    runs: list[object] = []

    def run(arguments: object) -> str:
        runs.append(arguments)
        return answer

    return ReadTool(name, "Look around.", {"type": "object"}, run, access), runs


def _one_line_sentence(text: str | None) -> bool:
    return text is not None and "\n" not in text and text.endswith(".") and ". " not in text


class TestScenarios:
    """Each bundled scenario runs to the values its story says, asserted here and by its `expect`."""

    def test_fight(self) -> None:
        """The fight ends with hp 40 of 40 after a top lowered, raised and a refused batch retried."""
        session = Session.from_scene(SCENES / "fight.json")
        reports = session.run()
        assert session.mismatches == []
        assert session.values() == {
            "Health": {"hp": 40, "hp_max": 40, "mood": "calm"},
            "Stamina": {"stamina": 20, "stamina_max": 20, "winded": False},
        }
        assert [r.ok for r in reports] == [True] * 6
        retried = reports[2]
        assert [(c.ok, c.failure) for c in retried.calls] == [(False, "ok:false"), (True, None)]
        assert "morale" in retried.calls[0].answer
        assert reports[3].values["Health"] == {"hp": 10, "hp_max": 10, "mood": "tense"}

    def test_shop(self) -> None:
        """The shop adds rows, finds one by another case, refuses a muddled batch and removes a row."""
        session = Session.from_scene(SCENES / "shop.json")
        reports = session.run()
        assert session.mismatches == []
        values = session.values()
        assert values["Inventory"] == {
            "Torch": {"qty": 1, "weight": 1, "equipped": False, "notes": ""},
            "Short sword": {
                "qty": 1,
                "weight": 3,
                "equipped": True,
                "notes": "Notched near the hilt.\nSmells of tar.",
            },
            "Lantern": {"qty": 1, "weight": 2, "equipped": False, "notes": ""},
        }
        assert values["Quest"]["gold"] == 110
        muddled = reports[3]
        assert (muddled.calls[0].ok, muddled.changes) == (False, None)

    def test_branching(self) -> None:
        """Swipes, a version shown, an edit, a fork, a cut and a continue leave the fork's values."""
        session = Session.from_scene(SCENES / "branching.json")
        reports = session.run()
        assert session.mismatches == []
        assert session.values() == {
            "Health": {"hp": 30, "hp_max": 30, "mood": "tense"},
            "Relationships": {"Oswin": {"trust": 25, "status": "friend", "met": True}},
        }
        assert [r.kind for r in reports] == [
            "reply",
            "reply",
            "swipe",
            "regenerate",
            "swipe",
            "reply",
            "reply",
            "reply",
            "continue",
        ]
        assert len(session.chat.takes) == 2
        assert session.chat.messages[-1].text == (
            "Oswin tells you of the drowned choir, and warms to you. The gulls cry overhead."
        )

    @pytest.mark.parametrize("name", ["fight", "shop", "branching"])
    def test_every_step_is_played(self, name: str) -> None:
        """Every step runs, one report per turn step, and no expectation is missed."""
        session = Session.from_scene(SCENES / f"{name}.json")
        reports = session.run()
        turns = [
            s for s in session.steps if s.get("action") in (None, "swipe", "regenerate", "continue")
        ]
        assert session.done
        assert len(reports) == len(turns)
        assert session.mismatches == []

    def test_a_missed_expectation_is_kept(self) -> None:
        """A step whose `expect` is not met leaves a mismatch naming the step and the value."""
        session = _session()
        session.play(
            {
                "user": "go",
                "calls": [_update(_hp(12))],
                "reply": "ok.",
                "expect": {"Health": {"hp": 13}},
            }
        )
        assert session.mismatches == ["after 'go': Health.hp: expected 13, found 12"]

    def test_a_flag_is_not_a_number(self) -> None:
        """An expected `false` is not met by 0, nor 1 by `true`."""
        session = _session()
        session.play({"user": "go", "reply": "ok.", "expect": {"Bag": {}, "Health": {"hp": False}}})
        assert session.mismatches == ["after 'go': Health.hp: expected False, found 0"]

    def test_no_steps_left(self) -> None:
        """Playing past the last step is refused in words."""
        session = _session()
        with pytest.raises(TurnError, match="no steps left"):
            session.play_next()


class TestTokens:
    """The turn report's token counts are `count_tokens` of each part (TR-33)."""

    def test_parts_are_counted_exactly(self) -> None:
        """card, trackers block, history and tool each equal the count of what was sent."""
        session = Session.from_scene(SCENES / "fight.json")
        session.run()
        report = session.reports[3]
        request = report.request
        assert request is not None
        assert report.block is not None
        card = session.scene.card.replace("{{user}}", "Vera")
        assert card in request.messages[0]["content"]
        assert report.block.startswith("### Trackers\nHealth: hp=12, hp_max=30, mood=tense")
        history = request.messages[1:]
        assert [m["role"] for m in history] == ["user", "assistant"] * 3 + ["user"]
        tool = update_trackers_tool(session.chat.linked().trackers)
        assert request.parts == {
            "card": count_tokens(card),
            "trackers": count_tokens(report.block),
            "tool": count_tool_tokens(tool.name, tool.description, tool.parameters),
            "history": sum(count_tokens(m["content"]) for m in history),
        }
        assert report.rounds[0].parts == request.parts
        assert report.rounds[0].tokens_in == sum(request.parts.values())

    def test_later_rounds_count_the_turn_so_far(self) -> None:
        """A round after tool calls counts the calls and answers of the turn as their own part."""
        session = _session()
        report = _say(session, _update(_hp(5)))
        first, second = report.rounds
        assert "turn" not in first.parts
        assert second.parts["turn"] > 0
        assert second.tokens_in == sum(second.parts.values())

    def test_tool_part_is_absent_when_not_offered(self) -> None:
        """A continue sends no tool, so no tool tokens are counted (TR-34)."""
        session = _session()
        _say(session)
        report = session.continue_({"reply": " More."})
        assert report.request is not None
        assert "tool" not in report.request.parts


class TestTurnKinds:
    """What the reply sees for each kind of turn (TR-33), and the actions through the session."""

    def _two_replies(self) -> Session:
        session = _session()
        _say(session, _update(_hp(20)), reply="First.")
        _say(session, _update(_hp(10)), reply="Second.")
        return session

    @pytest.mark.parametrize("kind", ["swipe", "regenerate"])
    def test_a_new_version_sees_the_state_before_the_reply(self, kind: str) -> None:
        """A swipe or regenerate shows hp as it was before the reply it replaces, without that reply."""
        session = self._two_replies()
        run: Callable[[dict[str, Any]], TurnReport] = getattr(session, kind)
        report = run({"reply": "Another."})
        assert report.block is not None
        assert "hp=20" in report.block
        assert report.request is not None
        assert "Second." not in [m["content"] for m in report.request.messages]
        assert report.tool_offered
        assert session.values()["Health"]["hp"] == 20
        assert len(session.chat.messages[-1].versions) == 2

    def test_continue_sees_the_state_as_it_stands_and_gets_no_tool(self) -> None:
        """A continue shows the reply's own writes, is offered no tool and makes no call (TR-33, TR-34)."""
        session = self._two_replies()
        report = session.continue_({"calls": [_update(_hp(1))], "reply": " And more."})
        assert report.block is not None
        assert "hp=10" in report.block
        assert (report.tool_offered, report.tool_name, report.calls) == (False, None, [])
        assert report.request is not None
        assert report.request.tools == []
        assert session.chat.messages[-1].text == "Second. And more."
        assert session.values()["Health"]["hp"] == 10

    def test_show_version(self) -> None:
        """Showing the first version again brings its values back (TR-23)."""
        session = self._two_replies()
        session.swipe({"calls": [_update(_hp(3))], "reply": "Third."})
        assert session.values()["Health"]["hp"] == 3
        session.chat.show_version(-1, 0)
        assert session.values()["Health"]["hp"] == 10

    def test_cut(self) -> None:
        """Cutting the last user message drops it and the reply after it."""
        session = self._two_replies()
        session.chat.cut(-2)
        assert [m.text for m in session.chat.messages] == ["go", "First."]
        assert session.values()["Health"]["hp"] == 20

    def test_fork(self) -> None:
        """A fork shares the history up to the message and becomes the take shown."""
        session = self._two_replies()
        take = session.chat.fork(1).id
        assert session.chat.current == take
        assert session.values()["Health"]["hp"] == 20
        report = _say(session, _update(_hp(7)))
        assert report.ok
        assert session.values()["Health"]["hp"] == 7
        session.chat.use("t1")
        assert session.values()["Health"]["hp"] == 10

    def test_edit_is_clamped_and_survives_a_swipe(self) -> None:
        """A person's edit is held to its top and wins on the tip message through a swipe (TR-27)."""
        session = self._two_replies()
        session.chat.edit("Health", set={"hp": 999})
        assert session.values()["Health"]["hp"] == 30
        session.swipe({"calls": [_update(_hp(4))], "reply": "Swiped."})
        assert session.values()["Health"]["hp"] == 30

    def test_a_message_that_is_not_there(self) -> None:
        """A message index past the take is refused in words."""
        session = self._two_replies()
        with pytest.raises(NotFoundError, match="there is no message 9"):
            session.chat.cut(9)


class TestToolLoop:
    """Rounds of model call, tool calls and answers until a plain reply (TR-37..TR-41)."""

    def test_several_rounds(self) -> None:
        """Three rounds of calls, each on what the last left, then the reply."""
        session = _session()
        rounds = [
            [_update(_hp(25))],
            [_update(_hp(20))],
            [_update({"tracker": "Bag", "row": "Rope", "set": {"qty": 2}})],
        ]
        report = session.turn("go", {"rounds": rounds, "reply": "Done."})
        assert report.ok
        assert [r.calls for r in report.rounds] == [("update_trackers",)] * 3 + [()]
        assert [r.finish_reason for r in report.rounds] == ["tool_calls"] * 3 + ["stop"]
        assert [c.round for c in report.calls] == [0, 1, 2]
        assert report.values == {
            "Health": {"hp": 20, "hp_max": 30, "mood": "calm"},
            "Bag": {"Rope": {"qty": 2, "equipped": False}},
        }

    def test_a_refused_batch_then_its_retry(self) -> None:
        """A batch with one bad item writes nothing and names it; the retry writes (TR-37)."""
        session = _session()
        bad = _update(_hp(5), {"tracker": "Health", "set": {"mod": 1}})
        good = _update(_hp(5))
        report = session.turn("go", {"rounds": [[bad], [good]], "reply": "ok."})
        refused, retried = report.calls
        assert (refused.ok, refused.changes, refused.failure) == (False, 0, "ok:false")
        assert refused.answer.startswith("Nothing was written")
        assert "mod" in refused.answer
        assert (retried.ok, retried.changes) == (True, 1)
        assert report.rounds[1].parts["turn"] > 0
        assert session.values()["Health"]["hp"] == 5

    def test_the_round_limit_fails_the_turn_and_keeps_nothing(self) -> None:
        """A model still calling after `max_rounds` fails the turn; its writes are dropped (TR-38)."""
        session = _session(max_rounds=2)
        rounds = [[_update(_hp(25))], [_update(_hp(20))], [_update(_hp(15))]]
        report = session.turn("go", {"rounds": rounds, "reply": "never"})
        assert not report.ok
        assert report.failed == (
            "The model was still calling tools after 2 rounds; the turn failed and kept nothing."
        )
        assert len(report.rounds) == 2
        assert report.reply is None
        assert session.values()["Health"]["hp"] == 0
        assert [m.role for m in session.chat.messages] == ["user"]
        assert not session.chat.turn_open

    def test_an_unknown_tool(self) -> None:
        """A call to a tool nobody offered is answered in words and the turn goes on."""
        session = _session()
        report = _say(session, {"name": "roll_dice", "arguments": {}})
        (call,) = report.calls
        assert (call.ok, call.failure) == (False, "error")
        assert call.answer == "There is no tool called 'roll_dice'."
        assert report.ok

    def test_a_tool_that_is_not_read_only_is_refused(self) -> None:
        """A tool declared with write access never runs (TR-40)."""
        tool, runs = _read_tool("wipe_notes", access="write")
        session = _session(tools=[tool])
        report = _say(session, {"name": "wipe_notes", "arguments": {}})
        (call,) = report.calls
        assert (call.ok, call.failure, runs) == (False, "error", [])
        assert "not a read tool" in call.answer

    def test_a_read_tool_runs(self) -> None:
        """A read tool runs with the parsed arguments and its answer goes back to the model."""
        tool, runs = _read_tool()
        session = _session(tools=[tool])
        report = _say(session, {"name": "look", "arguments": {"at": "door"}})
        assert runs == [{"at": "door"}]
        assert (report.calls[0].ok, report.calls[0].answer) == (True, "a quiet room")

    def test_a_large_read_answer_is_shortened(self) -> None:
        """Another tool's answer over 12,000 characters is cut there and marked (TR-39)."""
        tool, _ = _read_tool(answer="x" * 20_000)
        session = _session(tools=[tool])
        (call,) = _say(session, {"name": "look", "arguments": {}}).calls
        assert call.answer == "x" * MAX_TOOL_ANSWER + SHORTENED

    def test_a_large_update_answer_is_never_shortened(self) -> None:
        """A 2,000-item batch answers with every row it set, however long (TR-39)."""
        session = _session(window=1_000_000)
        items = [
            {"tracker": "Bag", "row": f"item {i:04}", "set": {"qty": i + 1}} for i in range(2000)
        ]
        report = _say(session, _update(*items))
        (call,) = report.calls
        assert report.ok
        assert call.ok
        assert call.changes == 2000
        assert len(call.answer) > MAX_TOOL_ANSWER
        assert SHORTENED not in call.answer
        assert '"item 1999" (qty=2000' in call.answer
        assert len(session.values()["Bag"]) == 2000

    def test_a_spent_time_budget_refuses_other_tools_only(self) -> None:
        """With no tool time left a read tool is refused, and update_trackers still writes (TR-39)."""
        tool, runs = _read_tool()
        session = _session(tools=[tool], tool_budget=0)
        report = _say(session, {"name": "look", "arguments": {}}, _update(_hp(9)))
        looked, updated = report.calls
        assert (looked.ok, looked.failure, runs) == (False, "timeout", [])
        assert "budget" in looked.answer
        assert (updated.ok, updated.failure) == (True, None)
        assert session.values()["Health"]["hp"] == 9

    def test_invalid_json_arguments_write_nothing(self) -> None:
        """Arguments that are not JSON are answered with a plain error and nothing is written."""
        session = _session()
        report = _say(session, {"name": "update_trackers", "arguments": '{"updates": [oops'})
        (call,) = report.calls
        assert (call.ok, call.changes, call.failure) == (False, 0, "error")
        assert call.answer.startswith("Nothing was written: the arguments are not valid JSON")
        assert call.arguments == '{"updates": [oops'
        assert report.ok
        assert session.values()["Health"]["hp"] == 0

    def test_invalid_json_for_a_read_tool(self) -> None:
        """A read tool is not run on arguments that are not JSON."""
        tool, runs = _read_tool()
        session = _session(tools=[tool])
        (call,) = _say(session, {"name": "look", "arguments": "{"}).calls
        assert (call.ok, call.failure, runs) == (False, "error", [])
        assert "not valid JSON" in call.answer

    def test_a_broken_read_tool_is_an_answer(self) -> None:
        """A read tool that raises is answered as an error and the turn still commits."""

        def broken(arguments: object) -> str:
            raise RuntimeError("the map is torn")

        tool = ReadTool("look", "Look.", {"type": "object"}, broken)
        session = _session(tools=[tool])
        report = _say(session, {"name": "look", "arguments": {}}, _update(_hp(3)))
        assert report.calls[0].answer == "look failed: the map is torn"
        assert report.ok
        assert session.values()["Health"]["hp"] == 3

    def test_a_model_that_refuses_tools_fails_in_one_sentence(self) -> None:
        """`refusesTools` fails the turn in one plain sentence and keeps nothing (TR-41)."""
        session = _session()
        step = {"user": "go", "refusesTools": True, "calls": [_update(_hp(5))], "reply": "never"}
        report = session.play(step)
        assert report is not None
        assert not report.ok
        assert report.failed == (
            "The model does not take tools, so this scene's trackers cannot be offered; "
            "the turn failed (the scripted model does not take tools)."
        )
        assert _one_line_sentence(report.failed)
        assert session.values()["Health"]["hp"] == 0
        assert not session.chat.turn_open

    def test_a_refusing_model_without_tools_answers(self) -> None:
        """A model that refuses tools still writes a continue, which offers none (TR-34, TR-41)."""
        session = _session()
        _say(session)
        report = session.continue_({"refusesTools": True, "reply": " Fine."})
        assert report.ok

    def test_a_failed_turn_keeps_no_pending_deltas(self) -> None:
        """A model error after a successful update drops the update with the turn (TR-38)."""

        class Failing:
            name = "failing"

            def __init__(self) -> None:
                self.calls = 0

            def complete(self, request: ModelRequest) -> ModelReply:
                self.calls += 1
                if self.calls == 1:
                    arguments = json.dumps({"updates": [_hp(5)]})
                    return ModelReply(
                        "", (ToolCall("c1", "update_trackers", arguments),), "tool_calls"
                    )
                raise ModelError("the connection dropped")

        session = _session(model=Failing())
        report = session.turn("go")
        assert report.calls[0].ok
        assert report.failed == "The model failed: the connection dropped."
        assert session.values()["Health"]["hp"] == 0
        assert [m.role for m in session.chat.messages] == ["user"]

    def test_a_block_that_outgrows_the_window_fails_the_turn(self) -> None:
        """When a round's block no longer fits, the turn fails naming the parts and keeps nothing (TR-33)."""
        session = _session()
        items = [{"tracker": "Bag", "row": f"item {i:04}", "set": {"qty": 1}} for i in range(2000)]
        report = _say(session, _update(*items))
        assert report.calls[0].ok
        assert report.failed is not None
        assert "trackers" in report.failed
        assert session.values()["Bag"] == {}

    def test_a_scripted_model_with_no_plan(self) -> None:
        """A turn the scripted model has no plan for fails in words."""
        session = _session()
        report = session.turn("go")
        assert report.failed is not None
        assert "no reply planned" in report.failed

    def test_queued_plans(self) -> None:
        """A scripted model built with plans answers them in order."""
        model = ScriptedModel([TurnPlan("One."), TurnPlan("Two.")])
        session = _session(model=model)
        assert [session.turn("a").reply, session.turn("b").reply] == ["One.", "Two."]
        assert model.pending == 0


class TestOffer:
    """The update tool is offered only when every condition holds, numbered when taken (TR-34)."""

    @pytest.mark.parametrize(
        ("links", "tool_access", "tools_supported", "offered"),
        [
            (("health",), True, True, True),
            (("health",), False, True, False),
            (("health",), True, False, False),
            (("missing",), True, True, False),
        ],
        ids=["all-on", "tool-access-off", "tools-unsupported", "no-tracker-loaded"],
    )
    def test_offered_when(
        self, links: tuple[str, ...], tool_access: bool, tools_supported: bool, offered: bool
    ) -> None:
        """Offered with tool access on, a connection that takes tools and a linked tracker loaded."""
        session = _session(*links, tool_access=tool_access, tools_supported=tools_supported)
        report = _say(session, _update(_hp(5)))
        assert report.tool_offered is offered
        assert report.request is not None
        assert [t["function"]["name"] for t in report.request.tools] == (
            ["update_trackers"] if offered else []
        )
        assert len(report.calls) == (1 if offered else 0)

    def test_numbered_when_the_name_is_taken(self) -> None:
        """With another tool called update_trackers the tracker tool is update_trackers_2."""
        tool, runs = _read_tool("update_trackers", answer="the other tool")
        session = _session(tools=[tool])
        report = _say(session, _update(_hp(5)), _update(_hp(6), name="update_trackers_2"))
        assert (report.tool_name, report.tool_description is not None) == (
            "update_trackers_2",
            True,
        )
        other, tracker = report.calls
        assert (other.answer, len(runs)) == ("the other tool", 1)
        assert tracker.ok
        assert session.values()["Health"]["hp"] == 6

    def test_other_tools_are_offered_without_trackers(self) -> None:
        """A read tool is offered on a scene whose trackers did not load."""
        tool, runs = _read_tool()
        session = _session("missing", tools=[tool])
        report = _say(session, {"name": "look", "arguments": {}})
        assert not report.tool_offered
        assert runs == [{}]


def _ticking(start: datetime) -> Callable[[], datetime]:
    """A fixed clock that moves one millisecond per reading, so events keep their order."""
    ticks = itertools.count()
    return lambda: start + timedelta(milliseconds=next(ticks))


START = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)


class _Sink:
    """A trace sink that keeps every event it is given."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def write(self, **event: Any) -> None:
        self.events.append(event)


@pytest.fixture
def traced(tmp_path: Path) -> tuple[Session, Path]:
    """The fight scenario played with a trace writer into a scratch data dir and a fixed clock."""
    writer = TraceWriter(tmp_path, timezone="UTC", capture_content=True)
    session = Session.from_scene(SCENES / "fight.json", trace=writer, clock=_ticking(START))
    session.run()
    writer.close()
    return session, tmp_path / "trace"


class TestTrace:
    """The turn events a session writes follow the journal contract (TC-4, TC-9, TC-16, TR-39)."""

    def test_one_turn_writes_its_events_in_order(self) -> None:
        """A turn with one update call: bound, started, a step with its request and result, a plain step, the reply; one sequence."""
        sink = _Sink()
        session = _session("health", trace=sink, clock=_ticking(START))
        _say(session, _update(_hp(12)), reply="Done.")
        assert [(e["turn"], e["kind"], e["name"]) for e in sink.events] == [
            ("turn_0", "turn", "bound"),
            *(
                ("turn_0", "eve", name)
                for name in (
                    "turn.started",
                    "step.started",
                    "actions.requested",
                    "action.result",
                    "step.completed",
                    "step.started",
                    "step.completed",
                    "message.completed",
                    "turn.completed",
                )
            ),
        ]
        sequences = [e["data"]["sequence"] for e in sink.events[1:]]
        assert sequences == list(range(1, 10))
        result = sink.events[4]["data"]
        assert json.loads(result["result"]) == {"ok": True, "changes": 1}
        assert (result["status"], result["toolName"], result["isError"]) == (
            "ok",
            "update_trackers",
            False,
        )
        assert sink.events[-2]["data"] == {
            "sequence": 8,
            "stepIndex": 1,
            "finishReason": "stop",
            "message": "Done.",
        }

    def test_a_failed_turn_ends_in_turn_failed_and_the_sink_can_be_set_later(self) -> None:
        """The sink may be set between turns; a failed turn's last event names its code and step."""
        session = _session("health", max_rounds=1)
        _say(session, _update(_hp(12)), reply="Done.")
        sink = _Sink()
        session.trace = sink
        report = _say(session, _update(_hp(3)), reply="Never.")
        assert report.failed is not None
        assert sink.events[0]["turn"] == "turn_1"
        assert sink.events[-1]["name"] == "turn.failed"
        assert sink.events[-1]["data"] == {
            "sequence": sink.events[-2]["data"]["sequence"] + 1,
            "stepIndex": 0,
            "code": "round_limit",
            "message": report.failed,
        }

    def test_lines_have_the_seven_fields_in_order(self, traced: tuple[Session, Path]) -> None:
        """Every line is one JSON object with ts, turn, session, source, kind, name, data (TC-4)."""
        session, folder = traced
        (day,) = folder.iterdir()
        assert day.name == "2026-03-14.jsonl"
        for line in day.read_text("utf-8").splitlines():
            event = json.loads(line)
            assert list(event) == ["ts", "turn", "session", "source", "kind", "name", "data"]
            assert event["session"] == session.session_id
            assert event["ts"].startswith("2026-03-14T12:00:")

    def test_the_reader_finds_no_broken_line(self, traced: tuple[Session, Path]) -> None:
        """`read_trace` reads every line back with no error (TC-19)."""
        session, folder = traced
        events, errors = read_trace(folder)
        assert errors == []
        names = list(events["name"])
        assert names.count("turn.bound") == 6
        assert names.count("eve.turn.completed") == 6
        assert names.count("eve.step.completed") == sum(len(r.rounds) for r in session.reports)

    def test_turns_assemble_one_per_session_turn(self, traced: tuple[Session, Path]) -> None:
        """`assemble_turns` groups the lines into one turn per session turn with its steps and calls (TC-9)."""
        session, folder = traced
        events, _ = read_trace(folder)
        turns = assemble_turns(events).sort_values("start")
        assert list(turns["name"]) == [f"{session.session_id}/turn_{i}" for i in range(6)]
        assert list(turns["steps"]) == [len(r.rounds) for r in session.reports]
        assert list(turns["tool_calls"]) == [len(r.calls) for r in session.reports]
        assert list(turns["tokens_in"]) == [
            sum(x.tokens_in for x in r.rounds) for r in session.reports
        ]
        assert list(turns["failures"]) == [0, 0, 1, 0, 0, 0]
        assert set(turns["kind"]) == {"chat"}
        assert set(turns["status"]) == {"completed"}

    def test_update_results_keep_the_count_not_the_answer(
        self, traced: tuple[Session, Path]
    ) -> None:
        """An update_trackers result holds `{"ok", "changes"}` and never the answer text (TR-39)."""
        session, folder = traced
        events, _ = read_trace(folder)
        results = list(events[events["name"] == "eve.action.result"]["data"])
        calls = [c for r in session.reports for c in r.calls]
        assert [json.loads(d["result"]) for d in results] == [
            {"ok": c.ok, "changes": c.changes} for c in calls
        ]
        assert [d["outChars"] for d in results] == [len(c.answer) for c in calls]
        for data, call in zip(results, calls, strict=True):
            assert call.answer not in json.dumps(dict(data))

    def test_a_refused_batch_carries_a_failure_class(self, traced: tuple[Session, Path]) -> None:
        """The fight's refused batch is written with `failure: ok:false` and `status: failed` (TC-16)."""
        _, folder = traced
        events, _ = read_trace(folder)
        results = list(events[events["name"] == "eve.action.result"]["data"])
        refused = [d for d in results if d.get("failure")]
        assert [(d["failure"], d["status"], d["isError"]) for d in refused] == [
            ("ok:false", "failed", True)
        ]
        assert all("failure" not in d for d in results if d["status"] == "ok")

    def test_requested_actions_keep_the_arguments(self, traced: tuple[Session, Path]) -> None:
        """`eve.actions.requested` carries each call's arguments as sent (TR-39)."""
        session, folder = traced
        events, _ = read_trace(folder)
        requested = list(events[events["name"] == "eve.actions.requested"]["data"])
        assert [a for d in requested for a in d["args"]] == [
            c.arguments for r in session.reports for c in r.calls
        ]

    def test_a_failed_turn_is_written_as_failed(self, tmp_path: Path) -> None:
        """A turn that fails ends with `eve.turn.failed` carrying its code and sentence."""
        with TraceWriter(tmp_path, timezone="UTC") as writer:
            session = _session(trace=writer, clock=_ticking(START), max_rounds=1)
            report = session.turn(
                "go", {"rounds": [[_update(_hp(3))], [_update(_hp(4))]], "reply": "x"}
            )
        events, errors = read_trace(tmp_path / "trace")
        assert errors == []
        last = events.iloc[-1]
        assert last["name"] == "eve.turn.failed"
        assert (last["data"]["code"], last["data"]["message"]) == ("round_limit", report.failed)
        assert list(assemble_turns(events)["status"]) == ["failed"]


def test_the_simulator_names_are_exported() -> None:
    """The package exports the simulator's public names (issue 6)."""
    import trackerkit

    names = {
        "Model",
        "OpenAIModel",
        "ReadTool",
        "ScriptedModel",
        "Session",
        "TurnPlan",
        "TurnReport",
    }
    assert names <= set(trackerkit.__all__)


class _Sends:
    """A model that calls `name` once with `arguments` as written, then answers in words."""

    name = "sends"

    def __init__(self, arguments: str, name: str = "update_trackers") -> None:
        self.arguments = arguments
        self.tool = name
        self.calls = 0

    def complete(self, request: ModelRequest) -> ModelReply:
        self.calls += 1
        if self.calls == 1:
            call = ToolCall("c1", self.tool, self.arguments)
            return ModelReply("", (call,), "tool_calls")
        return ModelReply("Done.")


def _item_text(item: str) -> str:
    return '{"updates": [' + item + "]}"


class TestHostileArguments:
    """TR-13, TR-37: any argument text a model writes is applied or refused with an answer; the turn never raises."""

    @pytest.mark.parametrize(
        ("arguments", "answer"),
        [
            ("[" * 100_000 + "]" * 100_000, "nest too deep"),
            ('{"updates": [' + '{"a": ' * 100_000, "nest too deep"),
            (
                _item_text('{"tracker": "Bag", "row": "R", "set": {"qty": 9' + "9" * 5000 + "}}"),
                "no max",
            ),
            (
                _item_text('{"tracker": "Health", "set": {"mood": ' + "9" * 5000 + "}}"),
                "must be one of",
            ),
            (_item_text('{"tracker": "Bag", "row": "\\ud800", "set": {"qty": 1}}'), "\\ud800"),
            (_item_text('{"tracker": "Bag", "row": "\ud800", "set": {"qty": 1}}'), "\\ud800"),
            (_item_text('{"tracker": "Health", "set": {"hp": NaN}}'), "NaN is not JSON"),
            ("5", "updates must be a list of items; found 5"),
            ('"updates"', 'the arguments must be an object {"updates": [...]}; found the text'),
            ("{", "not valid JSON"),
            (_item_text('{"tracker": ["Health"], "set": 3, "row": {}}'), "tracker must be"),
        ],
        ids=[
            "deep-100k",
            "deep-unclosed",
            "4300-digits-no-max",
            "4300-digits-in-choice",
            "lone-surrogate-escaped",
            "lone-surrogate-raw",
            "nan",
            "non-object",
            "text",
            "invalid",
            "wrong-types",
        ],
    )
    def test_refused_with_an_answer(self, arguments: str, answer: str) -> None:
        """The call is refused in words the model reads; the turn completes and nothing is written."""
        # A window that holds the call when the next round sends it again (TR-33).
        session = _session(model=_Sends(arguments), window=1_000_000)
        report = session.turn("go")
        assert report.ok, report.failed
        (call,) = report.calls
        assert not call.ok
        assert answer in call.answer
        call.answer.encode("utf-8")
        assert session.values() == {
            "Health": {"hp": 0, "hp_max": 30, "mood": "calm"},
            "Bag": {},
        }

    @pytest.mark.parametrize("sign", ["", "-"], ids=["huge", "huge-negative"])
    def test_huge_number_is_clamped(self, sign: str) -> None:
        """TR-13: a number of 5,000 digits in a field with a range is held inside it."""
        digits = sign + "9" * 5000
        arguments = _item_text('{"tracker": "Health", "set": {"hp": ' + digits + "}}")
        session = _session(model=_Sends(arguments))
        report = session.turn("go")
        assert report.calls[0].ok
        assert session.values()["Health"]["hp"] == (30 if not sign else 0)

    def test_read_tool_arguments_nested_too_deep(self) -> None:
        """Another tool's arguments nested 100,000 deep are refused before the tool runs."""
        tool, runs = _read_tool()
        model = _Sends("[" * 100_000, name="look")
        session = _session(model=model, tools=[tool], window=1_000_000)
        report = session.turn("go")
        assert report.ok
        assert "nest too deep" in report.calls[0].answer
        assert runs == []


class TestSceneEditStep:
    """TR-27: a scene file's edit step is read as the tool reads an item."""

    def test_remove_false_as_text_is_refused(self) -> None:
        """`"remove": "false"` in an edit step is refused and the row is kept."""
        session = _session()
        _say(session, _update({"tracker": "Bag", "row": "Rope", "set": {"qty": 2}}))
        with pytest.raises(EditRefusedError, match="remove must be true or false"):
            session.play({"action": "edit", "tracker": "Bag", "row": "Rope", "remove": "false"})
        assert session.values()["Bag"] == {"Rope": {"qty": 2, "equipped": False}}
