"""A scene's own scripted steps naming a field renamed or deleted in the designer since: played
as written (a scene file says no revision), and said in words with what to edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from designer_saves import designer_save, fight_copy

from trackerkit import Draft
from trackerkit.library import Library
from trackerkit.renames import FieldRenames
from trackerkit.simulate import outdated_html
from trackerkit.simulate.outdated import OutdatedName, outdated_names
from trackerkit.simulate.playback import pinned, play_page


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    """A copy of the bundled data; its fight scene (Health, Stamina)."""
    return fight_copy(tmp_path)


def _save(scene: Path, tracker_id: str, *, delete: str = "", **renames: str) -> None:
    """Rename (old=new) or delete fields in the designer and save."""

    def change(draft: Draft) -> Draft:
        for old, new in renames.items():
            draft = draft.rename_field(draft.key(old), new)
        if delete:  # the template reads the field: cleared, or the draft is held back (TR-49)
            draft = draft.set(template=None).delete_field(draft.key(delete))
        return draft

    designer_save(scene, tracker_id, change)


class TestScriptedStepsAfterARename:
    """Found by a designer: after Health.hp_max was renamed to hp_top and saved, fight's own
    steps 1, 4 and 5 were refused ("Health has no field 'hp_max'") and the page did not say why."""

    def test_the_playback_names_the_scene_the_steps_and_the_rename(self, scene: Path) -> None:
        """Each field the played scripted steps name by an old name, with its steps and save."""
        assert play_page(scene, []).outdated == ()
        _save(scene, "health", hp_max="hp_top")
        playback = play_page(scene, [])
        assert playback.outdated == (
            OutdatedName(
                "fight", scene, "Health", "hp_max", "hp_top", 1, (1, 4, 5), (1, 2, 3, 4, 5, 6)
            ),
        )
        sentence = playback.outdated[0].sentence
        assert sentence.startswith(
            "Scene fight: its own scripted steps 1, 4 and 5 set Health.hp_max, which a designer "
            "save renamed to hp_top (the save that made revision 1): their calls are refused, so "
            "nothing of those batches is written; the expectations of steps 1, 2, 3, 4, 5 and 6 "
            "name it and are not met."
        )
        assert f"Edit the scene: in {scene}, write hp_top for hp_max" in sentence
        # Played as written: the rules refuse the old name, as the sentence says.
        first = playback.outcomes[0].report
        assert first is not None
        assert "Health has no field 'hp_max'" in first.calls[0].answer

    def test_only_the_steps_the_slider_plays(self, scene: Path) -> None:
        """At 2 scripted steps only step 1 sets it; none played, nothing is said."""
        _save(scene, "health", hp_max="hp_top")
        (two,) = play_page(scene, [], scripted=2).outdated
        assert (two.sets, two.expects) == ((1,), (1, 2))
        assert two.sentence.startswith(
            "Scene fight: its own scripted step 1 sets Health.hp_max, which a designer save "
            "renamed to hp_top (the save that made revision 1): the call is refused"
        )
        assert play_page(scene, [], scripted=0).outdated == ()

    def test_a_deleted_field_is_named_and_the_fix_is_to_take_it_out(self, scene: Path) -> None:
        """Stamina.winded deleted: steps that expect it are named, and the fix takes it out."""
        _save(scene, "stamina", delete="winded")
        (winded,) = play_page(scene, []).outdated
        assert (winded.tracker, winded.field, winded.now) == ("Stamina", "winded", None)
        assert winded.sets == (6,)
        assert "which a designer save deleted (the save that made revision 1)" in winded.sentence
        assert "take winded out in those steps' calls and expectations" in winded.sentence

    def test_a_chain_of_renames_names_the_field_as_it_is_now(self, scene: Path) -> None:
        """hp_max -> hp_top -> cap: the scene's hp_max is cap now."""
        _save(scene, "health", hp_max="hp_top")
        _save(scene, "health", hp_top="cap")
        (cap,) = play_page(scene, []).outdated
        assert (cap.field, cap.now, cap.revision) == ("hp_max", "cap", 1)

    def test_the_persons_steps_still_follow_the_rename(self, scene: Path) -> None:
        """The person's pinned steps are read through the rename (TR-44); only the scene's own
        steps are named."""
        turn = pinned(
            {
                "user": "I rest.",
                "reply": "Better.",
                "callsText": '[{"name": "update_trackers", "arguments": {"updates": '
                '[{"tracker": "Health", "set": {"hp_max": 44}}]}}]',
            },
            scene,
        )
        _save(scene, "health", hp_max="hp_top")
        playback = play_page(scene, [turn])
        assert playback.page_outcomes[0].sentence == "Step 7 (turn) done."
        assert playback.session.values()["Health"]["hp_top"] == 44
        assert [o.field for o in playback.outdated] == ["hp_max"]

    def test_the_page_says_it_as_an_alert(self, scene: Path) -> None:
        """The note is escaped plain text in an alert; none when nothing is outdated."""
        assert outdated_html(()) == ""
        _save(scene, "health", hp_max="hp_top")
        html = outdated_html(play_page(scene, []).outdated)
        assert 'class="tk-note tk-outdated"' in html
        assert 'role="alert"' in html
        assert "Health.hp_max, which a designer save renamed to hp_top" in html


class TestOutdatedNames:
    """The names found from the steps, the trackers and the record alone."""

    def test_a_name_never_renamed_is_not_said(self, scene: Path) -> None:
        """fight's step 3 sends morale on purpose (refused, then retried): no save took it."""
        tracker = Library(scene.parent.parent / "trackers").get("health")
        steps = [
            {"calls": [{"arguments": {"updates": [{"tracker": "health", "set": {"morale": 1}}]}}]}
        ]
        history = FieldRenames(((1, {"hp_max": "hp_top"}),))
        assert outdated_names("s", scene, steps, [tracker], lambda _: history) == ()

    def test_arguments_as_text_rounds_and_an_edit_are_read(self, scene: Path) -> None:
        """The tracker is matched folded (TR-20); text arguments, rounds and edits all count."""
        saved = Library(scene.parent.parent / "trackers").get("health")
        tracker = saved.model_copy(update={"revision": 1})
        text = '{"updates": [{"tracker": "HEALTH", "set": {"old": 1}}]}'
        steps = [
            {"calls": [{"name": "update_trackers", "arguments": text}]},
            {
                "rounds": [
                    [],
                    [{"arguments": {"updates": [{"tracker": "Health", "set": {"old": 2}}]}}],
                ]
            },
            {"action": "edit", "tracker": "Health", "set": {"old": 3}},
        ]
        history = FieldRenames(((1, {"old": "hp"}),))
        (found,) = outdated_names("s", scene, steps, [tracker], lambda _: history)
        assert (found.sets, found.now) == ((1, 2, 3), "hp")
