"""Issue 17 item 1: every bundled scenario carries the whole expected state after each step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackerkit import Session, load_scene
from trackerkit.errors import SceneDecodeError
from trackerkit.simulate.model import ScriptedModel
from trackerkit.steps import TurnPlan, decode_step

ROOT = Path(__file__).resolve().parents[2]
SCENES = [
    p for p in sorted((ROOT / "data" / "scenes").glob("*.json")) if '"turns"' in p.read_text()
]
EVAL = [p for p in SCENES if p.stem.startswith("eval-")]


@pytest.mark.parametrize("path", SCENES, ids=lambda p: p.stem)
def test_every_step_expects_the_whole_state(path: Path) -> None:
    """Each step's `expect` names every linked tracker, and every field of each (rows whole)."""
    session = Session.from_scene(path)
    for index, step in enumerate(json.loads(path.read_text())["turns"]):
        session.play(step)
        expect = {k: v for k, v in step["expect"].items() if k != "absent"}
        assert expect == session.values(), f"{path.name} turns[{index}]"
    assert session.mismatches == []


def test_six_evaluation_scenarios_cover_the_kinds() -> None:
    """Numbers, choices, booleans, keyed lists, no-change turns and a 30+ turn scene are there."""
    assert len(EVAL) >= 6
    docs = {p.stem: json.loads(p.read_text()) for p in EVAL}
    assert len(docs["eval-long"]["turns"]) >= 30
    assert sum(bool(s.get("expect_no_call")) for s in docs["eval-quiet"]["turns"]) >= 3
    text = json.dumps(docs["eval-lists"])
    assert '"remove": true' in text
    assert '"row": "TORCH"' in text


def test_expect_no_call_is_checked() -> None:
    """A step marked `expect_no_call` whose model calls the tool is a mismatch; without a call it passes."""
    call = {
        "name": "update_trackers",
        "arguments": {"updates": [{"tracker": "Health", "set": {"hp": 30}}]},
    }

    class Eager(ScriptedModel):
        """Calls the update tool on the quiet turn its script gives no call."""

        def plan(self, plan: TurnPlan) -> None:
            super().plan(TurnPlan(plan.reply, [[call]]) if plan.reply == "Quiet." else plan)

    session = Session.from_scene(ROOT / "data" / "scenes" / "eval-quiet.json", model=Eager())
    session.play(session.steps[0])
    session.play({"user": "I look around.", "reply": "Quiet.", "expect_no_call": True})
    session.play({"user": "I look around again.", "reply": "Still quiet.", "expect_no_call": True})
    assert session.mismatches == ["after 'I look around.': expected no update call, found 1"]


@pytest.mark.parametrize(
    ("script", "where"),
    [
        ({"calls": [{"name": "get_weather"}, {"arguments": {"updates": []}}]}, "calls[1]"),
        ({"rounds": [[], [{"name": "update_trackers"}]]}, "rounds[1][0]"),
    ],
    ids=["calls", "rounds"],
)
def test_a_quiet_step_that_scripts_an_update_is_refused_when_read(
    tmp_path: Path, script: dict[str, object], where: str
) -> None:
    """A new-user trial: `expect_no_call: true` beside a scripted update call was read, then
    scored no-call correctness 0 on every run. It contradicts itself: refused with its path."""
    scene = json.loads((ROOT / "data" / "scenes" / "eval-quiet.json").read_text())
    scene["turns"][2].update(script)
    assert scene["turns"][2]["expect_no_call"] is True
    path = tmp_path / "scenes" / "quiet.json"
    path.parent.mkdir()
    path.write_text(json.dumps(scene))
    with pytest.raises(SceneDecodeError) as caught:
        load_scene(path)
    assert str(caught.value) == (
        f"{path}: turns[2]: expect_no_call is true but its script calls update_trackers "
        f"({where}); a quiet turn makes no update call: drop the call or expect_no_call"
    )


def test_a_quiet_step_may_script_a_call_to_another_tool() -> None:
    """A call to a tool not offered stays allowed: it is how a scenario has a quiet turn go
    wrong (tests/evaluation/test_noisy.py counts such calls)."""
    step = {"user": "hi", "calls": [{"name": "get_weather"}], "expect_no_call": True}
    assert decode_step(step).expect_no_call is True  # type: ignore[union-attr]


def test_expect_no_call_must_be_a_flag() -> None:
    """`expect_no_call` is read strictly, as every key of a step."""
    scene = load_scene(ROOT / "data" / "scenes" / "eval-quiet.json")
    session = Session(scene, ROOT / "data" / "trackers")
    with pytest.raises(Exception, match="expect_no_call: must be true or false"):
        session.play({"user": "hi", "expect_no_call": "yes"})
