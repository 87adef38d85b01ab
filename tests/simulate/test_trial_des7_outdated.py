"""Trial des7: the simulator's note on a scene's own scripted steps naming a field a designer save
renamed or deleted, when the old name went to another field, and its sentence for steps that
only expect the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from designer_saves import designer_save, fight_copy

from trackerkit import Draft
from trackerkit.simulate.outdated import OutdatedName
from trackerkit.simulate.playback import pinned, play_page


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    """A copy of the bundled data; its fight scene (Health, Stamina)."""
    return fight_copy(tmp_path)


def _renamed_and_taken(draft: Draft) -> Draft:
    """Rename hp_max to hp_top, and Add field hp_max: the designer's steps in the trial."""
    return draft.rename_field(draft.key("hp_max"), "hp_top").add_field("hp_max", "number")


class TestAnOldNameAnotherFieldTook:
    """Found in trial des7: Health.hp_max renamed to hp_top and a new field hp_max added; fight's
    steps 1, 4 and 5 then wrote the new field and no note said so."""

    def test_the_note_says_the_scripted_writes_land_on_the_other_field(self, scene: Path) -> None:
        """Named as reused, with what the steps now do and the fix to check."""
        designer_save(scene, "health", _renamed_and_taken)
        playback = play_page(scene, [])
        (hp_max,) = (o for o in playback.outdated if o.tracker == "Health")
        assert hp_max == OutdatedName(
            "fight", scene, "Health", "hp_max", "hp_top", 1, (1, 4, 5), (1, 2, 3, 4, 5, 6), True
        )
        assert hp_max.sentence == (
            "Scene fight: its own scripted steps 1, 4 and 5 set Health.hp_max, which a designer "
            "save renamed to hp_top (the save that made revision 1): the name hp_max now belongs "
            "to another field of Health, so their calls write that field instead, and every step "
            "after them, yours too, reads what that leaves; the expectations of steps 1, 2, 3, 4, "
            "5 and 6 name it and are checked against that field. A scene's steps are played as "
            "written (its file does not say which revision of Health they were written for, so "
            f"they are not renamed for it). Edit the scene: in {scene}, if they were written for "
            "the field now named hp_top, write hp_top for hp_max in those steps' calls and "
            "expectations."
        )
        assert playback.session.values()["Health"]["hp_max"] == 40  # as the sentence says

    def test_a_field_deleted_and_its_name_added_back(self, scene: Path) -> None:
        """winded deleted, then a boolean winded added: step 6 writes the new one, said so."""
        designer_save(
            scene, "stamina", lambda d: d.set(template=None).delete_field(d.key("winded"))
        )
        designer_save(scene, "stamina", lambda d: d.add_field("winded", "boolean"))
        (winded,) = play_page(scene, []).outdated
        assert (winded.field, winded.now, winded.reused, winded.sets) == (
            "winded",
            None,
            True,
            (6,),
        )
        assert "step 6 sets Stamina.winded, which a designer save deleted" in winded.sentence
        assert "so the call writes that field instead" in winded.sentence
        assert "if they were written for the deleted field, take winded out" in winded.sentence

    def test_a_field_renamed_away_and_back_is_not_said(self, scene: Path) -> None:
        """hp_max -> hp_top -> hp_max: the same field, nothing to say."""
        designer_save(scene, "health", lambda d: d.rename_field(d.key("hp_max"), "hp_top"))
        designer_save(scene, "health", lambda d: d.rename_field(d.key("hp_top"), "hp_max"))
        assert play_page(scene, []).outdated == ()

    def test_the_persons_own_steps_write_the_renamed_field(self, scene: Path) -> None:
        """A turn and an edit pinned before the save write hp_top (their hp_max), never the new
        hp_max, which keeps what the scripted steps wrote (TR-44)."""
        calls = [
            {
                "name": "update_trackers",
                "arguments": {"updates": [{"tracker": "Health", "set": {"hp_max": 50, "hp": 45}}]},
            }
        ]
        turn = pinned(
            {"user": "I drink.", "reply": "Warmth.", "callsText": json.dumps(calls)}, scene
        )
        edit = pinned(
            {"action": "edit", "tracker": "Health", "setText": '{"hp_max": 60}', "baseStep": 1},
            scene,
        )
        designer_save(scene, "health", _renamed_and_taken)
        playback = play_page(scene, [turn, edit])
        assert [o.sentence for o in playback.page_outcomes] == [
            "Step 7 (turn) done.",
            "Step 8 (edit) done.",
        ]
        assert playback.session.values()["Health"] == {
            "hp": 45,
            "hp_top": 60,
            "mood": "calm",
            "hp_max": 40,
        }


class TestTheSentenceForEachKindOfUse:
    """Found in trial des7: with Stamina.stamina_max named only in fight's expectations, the note
    read "... is expected by steps 1, 2, 3, 4, 5 and 6 name it and are not met"."""

    def _note(self, sets: tuple[int, ...], expects: tuple[int, ...], scene: Path) -> str:
        return OutdatedName(
            "fight", scene, "Stamina", "stamina_max", "stamina_top", 1, sets, expects
        ).sentence

    def test_only_expectations(self, scene: Path) -> None:
        """The expectations lead the sentence, and say they are not met."""
        assert self._note((), (1, 2, 3), scene).startswith(
            "Scene fight: the expectations of its own scripted steps 1, 2 and 3 name "
            "Stamina.stamina_max, which a designer save renamed to stamina_top (the save that "
            "made revision 1): they are not met. A scene's steps are played as written"
        )
        assert self._note((), (4,), scene).startswith(
            "Scene fight: the expectations of its own scripted step 4 name Stamina.stamina_max,"
        )

    def test_only_calls(self, scene: Path) -> None:
        """The calls lead, and say they are refused."""
        assert self._note((2,), (), scene).startswith(
            "Scene fight: its own scripted step 2 sets Stamina.stamina_max, which a designer save "
            "renamed to stamina_top (the save that made revision 1): the call is refused, so "
            "nothing of its batch is written. A scene's steps"
        )

    def test_calls_and_expectations(self, scene: Path) -> None:
        """The calls, then the expectations that name it."""
        assert self._note((2, 5), (1, 2), scene).startswith(
            "Scene fight: its own scripted steps 2 and 5 set Stamina.stamina_max, which a designer "
            "save renamed to stamina_top (the save that made revision 1): their calls are "
            "refused, so nothing of those batches is written; the expectations of steps 1 and 2 "
            "name it and are not met. A scene's steps"
        )

    def test_the_trials_rename_reads_whole(self, scene: Path) -> None:
        """stamina_max renamed in the designer: fight names it only in expectations."""
        designer_save(
            scene, "stamina", lambda d: d.rename_field(d.key("stamina_max"), "stamina_top")
        )
        (note,) = play_page(scene, []).outdated
        assert (note.sets, note.expects) == ((), (1, 2, 3, 4, 5, 6))
        assert "is expected by" not in note.sentence
        assert "name Stamina.stamina_max, which a designer save renamed" in note.sentence
