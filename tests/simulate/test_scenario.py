"""Scenario steps: one strict model (a union on the step kind) and the player that runs them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import BAG, HEALTH, REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackerkit import Chat, EditRefusedError, Scene, Session, TurnError, TurnReport
from trackerkit.errors import BadRequestError
from trackerkit.scene import Prompting
from trackerkit.simulate.scenario import ScenarioPlayer
from trackerkit.steps import (
    ContinueStep,
    CutStep,
    EditStep,
    ShowVersionStep,
    SwipeStep,
    TurnPlan,
    TurnStep,
    decode_step,
    decode_steps,
)

SCENES = sorted((REPO / "data" / "scenes").glob("*.json"))


def _session() -> Session:
    scene = Scene(id="s", title="S", prompting=Prompting(trackers=["health", "bag"]))
    return Session(scene, {"health": copy.deepcopy(HEALTH), "bag": copy.deepcopy(BAG)})


def _hp(value: int) -> dict[str, Any]:
    return {
        "name": "update_trackers",
        "arguments": {"updates": [{"tracker": "Health", "set": {"hp": value}}]},
    }


class TestDecode:
    """Each step kind decodes to its own typed model; nothing is coerced."""

    @pytest.mark.parametrize(
        ("raw", "kind"),
        [
            ({"user": "hi", "reply": "ok", "calls": [_hp(3)]}, TurnStep),
            ({"action": "swipe", "reply": "again"}, SwipeStep),
            ({"action": "continue", "reply": " more", "refusesTools": True}, ContinueStep),
            ({"action": "edit", "tracker": "Bag", "row": "Rope", "remove": True}, EditStep),
            ({"action": "cut", "message": -1}, CutStep),
            ({"action": "show_version", "message": "m2", "version": 0}, ShowVersionStep),
        ],
        ids=["turn", "swipe", "continue", "edit", "cut", "show-version"],
    )
    def test_kinds(self, raw: dict[str, Any], kind: type[Any]) -> None:
        """`action` picks the model; a step without one is a turn."""
        assert type(decode_step(raw)) is kind

    @pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
    def test_every_bundled_step_decodes(self, path: Path) -> None:
        """The bundled scenes' steps all decode."""
        turns = json.loads(path.read_text("utf-8")).get("turns", [])
        assert len(decode_steps(turns)) == len(turns)

    @pytest.mark.parametrize(
        ("raw", "message"),
        [
            ({"action": "edit", "set": {"hp": 1}}, "step.tracker: is required"),
            ({"action": "cut"}, "step.message: is required"),
            ({"action": "edit", "tracker": "Health", "set": [1]}, "step: set must be an object of field values; found a list"),
            ({"action": "edit", "tracker": "Bag", "row": "Rope", "remove": "false"}, 'step: remove must be true or false; found the text "false"'),
            ({"user": "go", "calls": [5]}, "step.calls[0]: must be an object; found 5"),
            ({"user": "go", "rounds": [[{"name": "x", "arguments": 5}]]}, "step.rounds[0][0].arguments: must be an object (or the arguments as text); found 5"),
            ({"user": "go", "expect": {"Health": 5}}, "step.expect.Health: must be an object of fields (or rows); found 5"),
            ({"user": "go", "expect": {"absent": {"Bag": "Rope"}}}, 'step.expect.absent.Bag: must be a list; found the text "Rope"'),
            ({"user": "go", "calls": [], "rounds": []}, "step: gives both calls and rounds; give calls (one round) or rounds"),
            ({"user": 5}, "step.user: must be text; found 5"),
            ({"reply": "x"}, "step.user: is required"),
            ({"action": "jump"}, 'step.action: must be one of swipe, regenerate, continue, edit, cut, fork, show_version, or left out for a turn; found the text "jump"'),
            ({"action": "cut", "message": True}, "step.message: must be a message id or an index such as -1; found true"),
            ({"action": "show_version", "message": 1, "version": "1"}, 'step.version: must be a whole number; found the text "1"'),
            ({"user": "go", "refusesTools": "yes"}, 'step.refusesTools: must be true or false; found the text "yes"'),
            ({"user": "go", "colour": 1}, "step.colour: is not a known key"),
            ([1], "step: must be an object; found a list"),
        ],
        ids=[
            "edit-without-tracker", "cut-without-message", "set-a-list", "remove-as-text",
            "calls-a-number", "arguments-a-number", "expect-a-number", "absent-not-a-list",
            "calls-and-rounds", "user-a-number", "no-user", "unknown-action", "message-a-flag",
            "version-as-text", "refuses-tools-as-text", "unknown-key", "not-an-object",
        ],
    )  # fmt: skip
    def test_refused_with_a_path(self, raw: object, message: str) -> None:
        """Every problem is named with its path in the step, in plain words."""
        with pytest.raises(BadRequestError) as caught:
            decode_step(raw)
        assert str(caught.value) == message

    def test_paths_in_a_list(self) -> None:
        """A scene's list names each step by its index, `turns[i]`; every problem is reported."""
        with pytest.raises(BadRequestError) as caught:
            decode_steps([{"user": "a"}, {"action": "cut"}, {"user": "b", "calls": [5]}])
        assert str(caught.value) == (
            "turns[1].message: is required; turns[2].calls[0]: must be an object; found 5"
        )

    def test_a_key_with_a_line_break_stays_on_one_line(self) -> None:
        """A stray key holding a line break is named escaped, so the message stays one line."""
        with pytest.raises(BadRequestError) as caught:
            decode_steps([{"user": "a", "calls": [{"\n": None}]}])
        assert "\n" not in str(caught.value)
        assert "turns[0].calls[0].\\n: is not a known key" in str(caught.value)

    def test_many_problems_are_counted(self) -> None:
        """Past ten problems the message counts the rest instead of growing."""
        with pytest.raises(
            BadRequestError, match=r"turns\[9\]\.message: is required; and 2 more problems$"
        ):
            decode_steps([{"action": "cut"}] * 12)

    def test_the_plan(self) -> None:
        """`calls` is one round; `rounds` is kept; the reply and refusesTools go to the plan."""
        one = decode_step({"user": "go", "calls": [_hp(1)], "reply": "ok"})
        assert isinstance(one, TurnStep)
        assert one.plan() == TurnPlan("ok", [[_hp(1)]], False)
        two = decode_step({"action": "swipe", "rounds": [[_hp(1)], [_hp(2)]], "refusesTools": True})
        assert isinstance(two, SwipeStep)
        assert two.plan() == TurnPlan("", [[_hp(1)], [_hp(2)]], True)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
_KEYS = st.sampled_from(
    ["user", "reply", "calls", "rounds", "action", "tracker", "set", "row", "remove", "message",
     "version", "expect", "refusesTools", "label"]
)  # fmt: skip
_ACTIONS = st.sampled_from(
    [None, "swipe", "regenerate", "continue", "edit", "cut", "fork", "show_version", "jump", 5]
)


class TestFuzz:
    """Whatever a scene file holds, decoding gives a step or a BadRequestError, nothing else."""

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(action=_ACTIONS, keys=st.dictionaries(_KEYS, _JSON, max_size=6))
    def test_only_the_documented_error(self, action: object, keys: dict[str, object]) -> None:
        """Random keys and values of every JSON type never escape as another exception."""
        raw = dict(keys)
        if action is not None:
            raw["action"] = action
        try:
            decode_step(raw)
        except BadRequestError as exc:
            message = str(exc)
        else:
            return
        assert message
        assert "\n" not in message


class TestPlayer:
    """The player runs decoded steps on its session; a bad step is refused before it runs."""

    def test_a_bad_step_is_a_turn_error(self) -> None:
        """A malformed turn step raises TurnError naming the path, and nothing is played."""
        session = _session()
        with pytest.raises(TurnError, match=r"step\.calls\[0\]: must be an object"):
            session.play({"user": "go", "calls": [5]})
        assert session.chat.messages == []

    def test_a_bad_edit_step_is_refused(self) -> None:
        """TR-27: an edit step the item reader refuses is an EditRefusedError; nothing is written."""
        session = _session()
        session.play({"user": "go", "calls": [_hp(4)], "reply": "ok"})
        with pytest.raises(EditRefusedError, match="set must be an object"):
            session.play({"action": "edit", "tracker": "Health", "set": [1]})
        assert session.values()["Health"]["hp"] == 4

    def test_a_typed_step_plays(self) -> None:
        """A decoded step plays like its JSON; its expect is checked and labelled."""
        session = _session()
        session.play(decode_step({"user": "go", "calls": [_hp(7)], "reply": "ok"}))
        session.play(
            EditStep.model_validate(
                {
                    "action": "edit",
                    "tracker": "Health",
                    "set": {"hp": 9},
                    "expect": {"Health": {"hp": 8}},
                }
            )
        )
        assert session.mismatches == ["after edit: Health.hp: expected 8, found 9"]

    def test_a_bad_step_in_the_scene_names_its_index(self) -> None:
        """play_next names the step by its place in the scene's turns."""
        scene = Scene(id="s", title="S", turns=[{"user": "a", "reply": "b"}, {"action": "fork"}])
        session = Session(scene, {})
        session.play_next()
        with pytest.raises(TurnError, match=r"^turns\[1\]\.message: is required$"):
            session.play_next()

    def test_the_player_plays_on_any_stage(self) -> None:
        """A player needs only a stage (its chat and the four turn verbs): actions go to the chat, positions included."""

        class Stage:
            def __init__(self) -> None:
                scene = Scene(id="s", title="S", prompting=Prompting(trackers=["health"]))
                self.chat = Chat(scene, {"health": copy.deepcopy(HEALTH)})
                self.said: list[str] = []

            def turn(self, user_text: str, script: object = None) -> TurnReport:
                self.said.append(user_text)
                self.chat.add_user(user_text)
                message = self.chat.begin_turn().commit("ok")
                report = TurnReport(len(self.said) - 1, "reply", user_text, False, *[None] * 4)
                report.message_id = message.id
                return report

            def swipe(self, script: object = None) -> TurnReport:
                raise AssertionError("not played")

            regenerate = continue_ = swipe

        stage = Stage()
        player = ScenarioPlayer(
            stage,
            [
                {"user": "a"},
                {"user": "b"},
                {"action": "edit", "tracker": "Health", "set": {"hp": 3}},
                {"action": "fork", "message": 1},
                {"action": "cut", "message": -1, "expect": {"Health": {"hp": 3}}},
            ],
        )
        reports = player.run()
        assert ([r.user for r in reports], stage.said) == (["a", "b"], ["a", "b"])
        assert [m.text for m in stage.chat.messages] == ["a"]
        assert (stage.chat.current, list(stage.chat.takes)) == ("t2", ["t1", "t2"])
        assert player.done
        assert player.mismatches == ["step 5: Health.hp: expected 3, found 0"]

    def test_a_session_composes_its_player(self) -> None:
        """A session is no player: it holds one, playing on the session, and its steps are the scene's."""
        scene = Scene(id="s", title="S", turns=[{"user": "a", "reply": "b"}])
        session = Session(scene, {})
        assert not isinstance(session, ScenarioPlayer)
        assert session.player.stage is session
        assert session.steps == [{"user": "a", "reply": "b"}]
        session.run()
        assert (session.done, session.player.step_index) == (True, 1)
