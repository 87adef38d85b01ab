"""Trial des3, the replay side: a field rename saved in the designer keeps the simulator's past
(TR-44), and a person's swipe, regenerate, continue or edit stays on the reply it was made on
when "Scripted steps played" moves."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from trackerkit import Draft, design
from trackerkit.library import Library
from trackerkit.simulate.playback import Playback, pinned, play_page

ROOT = Path(__file__).resolve().parents[2]
FIGHT = ROOT / "data" / "scenes" / "fight.json"


def _calls(*items: dict[str, Any]) -> str:
    return json.dumps([{"name": "update_trackers", "arguments": {"updates": list(items)}}])


def _turn(
    *items: dict[str, Any], user: str = "I act.", reply: str = "It happens."
) -> dict[str, Any]:
    return {"user": user, "reply": reply, "callsText": _calls(*items)}


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    """A copy of the bundled data; its fight scene (Health, Stamina)."""
    for part in ("scenes", "trackers"):
        shutil.copytree(ROOT / "data" / part, tmp_path / part)
    return tmp_path / "scenes" / "fight.json"


def _save(scene: Path, tracker_id: str, **renames: str) -> None:
    """Rename fields (old=new) in the designer and save, as the trial did."""
    library = Library(scene.parent.parent / "trackers")
    draft = Draft.open(library.get(tracker_id))
    keys = {draft.key(old): new for old, new in renames.items()}
    for key, new in keys.items():
        draft = draft.rename_field(key, new)
    outcome = design.save(draft, library)
    assert outcome.kind == "saved", outcome.message


def _sentences(playback: Playback) -> list[str]:
    return [o.sentence for o in playback.page_outcomes]


class TestFieldRenamesFollowHistory:
    """Found in trial des3: renaming Health.hp_max to hp_top in the designer made the next replay
    refuse the person's old batch ("Health has no field 'hp_max'") and the values they saw went
    (hp_max 40 -> 30). TR-44: a rename applies to history."""

    def _steps(self, scene: Path) -> list[dict[str, Any]]:
        """A turn naming hp_max (arguments as an object), an edit of it, and a turn whose
        arguments are typed as text; each pinned as the page pins it when added."""
        turn = pinned(_turn({"tracker": "Health", "set": {"hp_max": 40, "hp": 35}}), scene)
        edit = pinned(
            {"action": "edit", "tracker": "Health", "setText": '{"hp_max": 38}', "baseStep": 1},
            scene,
        )
        text = json.dumps({"updates": [{"tracker": "Health", "set": {"hp_max": 45, "hp": 36}}]})
        later = pinned(
            {
                "user": "I rest.",
                "reply": "Better.",
                "callsText": json.dumps([{"name": "update_trackers", "arguments": text}]),
            },
            scene,
        )
        return [turn, edit, later]

    def test_a_saved_field_rename_keeps_the_values_seen(self, scene: Path) -> None:
        """Every step is played as before the rename; the values are the same under the new name."""
        steps = self._steps(scene)
        before = play_page(scene, steps, scripted=0)
        assert _sentences(before) == [
            "Step 1 (turn) done.",
            "Step 2 (edit) done.",
            "Step 3 (turn) done.",
        ]
        seen = before.session.values()["Health"]
        _save(scene, "health", hp_max="hp_top")
        after = play_page(scene, steps, scripted=0)
        assert _sentences(after) == _sentences(before)
        assert all(c.ok for o in after.outcomes if o.report for c in o.report.calls)
        health = after.session.values()["Health"]
        assert health == {"hp": seen["hp"], "hp_top": seen["hp_max"], "mood": seen["mood"]}
        assert health["hp_top"] == 45
        first = after.page_outcomes[0].report
        assert first is not None
        assert first.values["Health"]["hp_top"] == 40
        # Arguments typed as text are sent as text, naming the field as it is called now.
        last = after.last_turn()
        assert last is not None
        assert [c.arguments for c in last.calls] == [
            json.dumps({"updates": [{"tracker": "Health", "set": {"hp_top": 45, "hp": 36}}]})
        ]
        # A step without `trackerRevisions` (an older page, a script) is played as typed.
        unpinned = {k: v for k, v in steps[0].items() if k != "trackerRevisions"}
        report = play_page(scene, [unpinned], scripted=0).page_outcomes[0].report
        assert report is not None
        assert "Health has no field 'hp_max'" in report.calls[0].answer

    def test_renames_chain_and_a_later_step_is_named_as_it_was_written(self, scene: Path) -> None:
        """A step is read through every rename saved after its revision, and no earlier one."""
        old = pinned(_turn({"tracker": "Health", "set": {"hp_max": 40}}), scene)
        _save(scene, "health", hp_max="hp_top")
        middle = pinned(_turn({"tracker": "Health", "set": {"hp_top": 44}}), scene)
        _save(scene, "health", hp_top="cap")
        new = pinned(_turn({"tracker": "Health", "set": {"cap": 50, "hp": 45}}), scene)
        playback = play_page(scene, [old, middle, new], scripted=0)
        assert all(c.ok for o in playback.outcomes if o.report for c in o.report.calls)
        reports = [o.report for o in playback.page_outcomes]
        assert [r.values["Health"]["cap"] for r in reports if r is not None] == [40, 44, 50]

    def test_two_fields_that_swap_names_keep_their_own_values(self, scene: Path) -> None:
        """hp and hp_max swapped in one save: each old write lands on the field it meant."""
        steps = [pinned(_turn({"tracker": "Health", "set": {"hp_max": 40, "hp": 35}}), scene)]
        _save(scene, "health", hp="hp_max", hp_max="hp")
        values = play_page(scene, steps, scripted=0).session.values()["Health"]
        assert values["hp"] == 40
        assert values["hp_max"] == 35

    def test_a_tracker_and_its_field_renamed_in_one_save(self, scene: Path) -> None:
        """The tracker's new name and the field's new name are both followed."""
        steps = [pinned(_turn({"tracker": "Health", "set": {"hp_max": 40}}), scene)]
        library = Library(scene.parent.parent / "trackers")
        draft = Draft.open(library.get("health"))
        draft = draft.rename_field(draft.key("hp_max"), "hp_top").rename_tracker("Vita")
        assert design.save(draft, library).kind == "saved"
        playback = play_page(scene, steps, scripted=0)
        assert all(c.ok for o in playback.outcomes if o.report for c in o.report.calls)
        assert playback.session.values()["Vita"]["hp_top"] == 40


#: The last scripted reply of fight (its 6th step's), and the 3rd step's.
LAST, THIRD = "m12", "m6"


def _made_on_the_last_reply(kind: str) -> dict[str, Any]:
    """A step made with all 6 scripted steps played and none of the person's: on m12."""
    base = play_page(FIGHT, []).base()
    hp = _calls({"tracker": "Health", "set": {"hp": 33}})
    steps = {
        "swipe": {"action": "swipe", "reply": "You rest, but a rat bites you.", "callsText": hp},
        "regenerate": {"action": "regenerate", "reply": "A rat.", "callsText": hp},
        "continue": {"action": "continue", "reply": " A rat bites."},
        "edit": {"action": "edit", "tracker": "Health", "setText": '{"hp": 33}'},
    }
    return {**steps[kind], **base}


KINDS = ["swipe", "regenerate", "continue", "edit"]


class TestStepsStayOnTheirReply:
    """Found in trial des3: a Swipe of message 12 became version 2 of message 6 when the slider
    moved from 6 to 3 (Vera healed mid-fight), and the page said "Step 4 (swipe) done"."""

    def test_the_base_names_the_persons_steps_and_the_last_reply(self) -> None:
        """`Playback.base` is what the page puts on a step made now; an empty take has no reply."""
        assert play_page(FIGHT, []).base() == {"baseStep": 0, "baseMessage": LAST}
        turn = _turn({"tracker": "Health", "set": {"hp": 20}})
        assert play_page(FIGHT, [turn], scripted=3).base() == {"baseStep": 1, "baseMessage": "m8"}
        assert play_page(FIGHT, [], scripted=0).base() == {"baseStep": 0}

    @pytest.mark.parametrize("kind", KINDS[:3])
    def test_played_on_its_reply(self, kind: str) -> None:
        """With the slider where the step was made, it is played on m12."""
        playback = play_page(FIGHT, [_made_on_the_last_reply(kind)])
        outcome = playback.page_outcomes[0]
        assert outcome.refused is None
        if outcome.report is not None:
            assert outcome.report.message_id == LAST
        assert playback.session.chat.take.messages[-1].id == LAST

    @pytest.mark.parametrize("kind", KINDS)
    def test_refused_when_the_slider_leaves_its_reply_out(self, kind: str) -> None:
        """At 3 scripted steps m12 is not played: the step is refused in words, m6 is untouched,
        and a refusal that is not the last step is listed with the scripted ones."""
        step = _made_on_the_last_reply(kind)
        alone = play_page(FIGHT, [], scripted=3)
        playback = play_page(FIGHT, [step], scripted=3)
        refused = playback.page_outcomes[0].refused
        assert refused is not None
        assert "reply m12, which this replay does not play" in refused
        assert "and is not moved to another reply" in refused
        assert playback.session.values() == alone.session.values()
        sixth = playback.session.chat.take.message(THIRD)
        assert len(sixth.versions) == 1
        assert not sixth.edits
        later = play_page(FIGHT, [step, {"action": "use", "take": "t1"}], scripted=3)
        assert [o.kind for o in later.refusals()] == [kind]
        # Without `baseStep` (a script, an older page) it is played on the reply shown, as ever.
        unbased = {k: v for k, v in step.items() if k not in ("baseStep", "baseMessage")}
        played = play_page(FIGHT, [unbased], scripted=3)
        assert played.page_outcomes[0].refused is None
        assert played.session.chat.take.messages[-1].id == THIRD

    @pytest.mark.parametrize("kind", ["swipe", "edit"])
    def test_refused_when_more_scripted_steps_are_played(self, kind: str) -> None:
        """Made on m6 at 3 scripted steps, it is refused at 6, where m6 is not the last reply."""
        step = {**_made_on_the_last_reply(kind), "baseMessage": THIRD}
        refused = play_page(FIGHT, [step], scripted=6).page_outcomes[0].refused
        assert refused is not None
        assert "reply m6, which is not the last reply here (m12 is" in refused

    def test_a_swipe_of_the_persons_own_reply_follows_it_at_any_slider(self) -> None:
        """The person's own reply is found by its step (`baseStep`), whatever its id is now."""
        turn = _turn({"tracker": "Health", "set": {"hp": 20}})
        for scripted, made in ((6, "m14"), (3, "m8")):
            swipe = {
                "action": "swipe",
                "reply": "Again.",
                "callsText": _calls({"tracker": "Health", "set": {"hp": 9}}),
                "baseStep": 1,
                "baseMessage": "m14",  # its id when made, at 6: the slider moves it
            }
            playback = play_page(FIGHT, [turn, swipe], scripted=scripted)
            outcome = playback.page_outcomes[1]
            assert outcome.refused is None
            assert outcome.report is not None
            assert outcome.report.message_id == made
            assert playback.session.values()["Health"]["hp"] == 9

    def test_a_swipe_after_a_step_that_came_first_is_refused(self) -> None:
        """A swipe read before a turn that came first is refused, never put on the new reply."""
        turn = _turn({"tracker": "Health", "set": {"hp": 20}})
        swipe = {"action": "swipe", "reply": "Again.", "callsText": "[]", "baseStep": 0}
        playback = play_page(FIGHT, [turn, swipe], scripted=6)
        refused = playback.page_outcomes[1].refused
        assert refused == (
            "The swipe was made on m12 of take 't1', but the take shown ends with m14 on take "
            "'t1' (a step came first). Swipe the reply shown again."
        )
        assert playback.session.values()["Health"]["hp"] == 20

    def test_a_base_step_past_its_own_place_is_refused(self) -> None:
        """A base step after the step itself is refused with a sentence, never raised."""
        swipe = {"action": "swipe", "reply": "Again.", "callsText": "[]", "baseStep": 3}
        refused = play_page(FIGHT, [swipe]).page_outcomes[0].refused
        assert refused == (
            "The swipe was made after step 3 of yours, but it comes after 0; swipe the reply shown."
        )
