"""Issue 17 item 1: every bundled scenario carries the whole expected state after each step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackerkit import Session, load_scene

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
    session = Session.from_scene(ROOT / "data" / "scenes" / "eval-quiet.json")
    session.play(session.steps[0])
    call = {
        "name": "update_trackers",
        "arguments": {"updates": [{"tracker": "Health", "set": {"hp": 30}}]},
    }
    session.play(
        {"user": "I look around.", "reply": "Quiet.", "calls": [call], "expect_no_call": True}
    )
    session.play({"user": "I look around again.", "reply": "Still quiet.", "expect_no_call": True})
    assert session.mismatches == ["after 'I look around.': expected no update call, found 1"]


def test_expect_no_call_must_be_a_flag() -> None:
    """`expect_no_call` is read strictly, as every key of a step."""
    scene = load_scene(ROOT / "data" / "scenes" / "eval-quiet.json")
    session = Session(scene, ROOT / "data" / "trackers")
    with pytest.raises(Exception, match="expect_no_call: must be true or false"):
        session.play({"user": "hi", "expect_no_call": "yes"})
