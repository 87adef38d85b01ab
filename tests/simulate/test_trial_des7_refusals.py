"""Trial des7: a step the simulator refused because it named a field the tracker did not have
stays refused after a designer save adds a field of that name (TR-37: nothing was written, and
the page said so), and a field renamed away whose old name a new field took is said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from designer_saves import designer_save, fight_copy

from trackerkit import Draft
from trackerkit.simulate.playback import pinned, play_page


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    """A copy of the bundled data; its fight scene (Health, Stamina)."""
    return fight_copy(tmp_path)


def _add(name: str, kind: str = "number") -> Any:
    return lambda draft: draft.add_field(name, kind)


def _turn(*items: dict[str, Any]) -> dict[str, Any]:
    calls = [{"name": "update_trackers", "arguments": {"updates": list(items)}}]
    return {"user": "I swing.", "reply": "Steel rings.", "callsText": json.dumps(calls)}


def _edit(scene: Path, tracker: str, values: str, base: int) -> dict[str, Any]:
    step = {"action": "edit", "tracker": tracker, "setText": values, "baseStep": base}
    return pinned(step, scene)


class TestARefusedStepStaysRefused:
    """Found in trial des7: an edit {"foo": 3, "mood": "tense"} was refused ("Health has no field
    'foo'"); the designer then added a number field foo and saved, and on the next replay the
    edit was written (mood tense, foo 3) on a message nobody touched again."""

    def test_an_edit_refused_for_a_field_added_later(self, scene: Path) -> None:
        """Refused before the save and after it, in the same words, and nothing of it written."""
        steps = [_edit(scene, "Health", '{"foo": 3, "mood": "tense"}', 0)]
        before = play_page(scene, steps).page_outcomes[0].sentence
        assert before.startswith("Step 7 (edit) was refused, nothing was written: ")
        assert "Health has no field 'foo' (fields: hp, hp_max, mood)" in before
        designer_save(scene, "health", _add("foo"))
        playback = play_page(scene, steps)
        assert playback.page_outcomes[0].sentence == before
        assert playback.session.values()["Health"] == {
            "hp": 40,
            "hp_max": 40,
            "mood": "calm",
            "foo": 0,
        }

    def test_a_turn_batch_refused_for_a_field_added_later(self, scene: Path) -> None:
        """The call stays refused with the answer the model was told; hp keeps its value."""
        steps = [pinned(_turn({"tracker": "Health", "set": {"bar": 7, "hp": 5}}), scene)]
        (call,) = play_page(scene, steps).page_outcomes[0].report.calls  # type: ignore[union-attr]
        assert not call.ok
        assert "Health has no field 'bar' (fields: hp, hp_max, mood)" in call.answer
        designer_save(scene, "health", _add("bar"))
        playback = play_page(scene, steps)
        report = playback.page_outcomes[0].report
        assert report is not None
        assert report.calls == [call]
        assert playback.session.values()["Health"]["hp"] == 40
        assert playback.session.values()["Health"]["bar"] == 0

    def test_the_text_protocol_keeps_the_refusal_too(self, scene: Path) -> None:
        """Under the text protocol the block's answer (told on the next turn) stays as it was."""
        steps = [pinned(_turn({"tracker": "Health", "set": {"bar": 7, "hp": 5}}), scene)]
        first = play_page(scene, steps, protocol="text")
        designer_save(scene, "health", _add("bar"))
        again = play_page(scene, steps, protocol="text")
        report = first.page_outcomes[0].report
        assert report is not None
        assert report.message_id is not None
        mine = (report.message_id, 0)  # the person's reply, its first version
        assert (
            "Health has no field 'bar' (fields: hp, hp_max, mood)"
            in (first.session.text_answers[mine])
        )
        assert again.session.text_answers[mine] == first.session.text_answers[mine]
        assert again.session.values()["Health"]["hp"] == 40

    def test_a_field_deleted_and_added_back(self, scene: Path) -> None:
        """winded deleted and saved, an edit of it refused; winded added back: still refused."""

        def delete(draft: Draft) -> Draft:
            return draft.set(template=None).delete_field(draft.key("winded"))

        designer_save(scene, "stamina", delete)
        steps = [_edit(scene, "Stamina", '{"winded": true}', 0)]
        before = play_page(scene, steps).page_outcomes[0].sentence
        assert "Stamina has no field 'winded'" in before
        designer_save(scene, "stamina", _add("winded", "boolean"))
        playback = play_page(scene, steps)
        assert playback.page_outcomes[0].sentence == before
        assert playback.session.values()["Stamina"]["winded"] is False

    def test_a_step_that_was_written_is_still_written(self, scene: Path) -> None:
        """Only names that were no field then are kept refused: hp_max renamed since still
        follows (TR-44), and a field added since does not stop a step that named others."""
        steps = [pinned(_turn({"tracker": "Health", "set": {"hp_max": 50, "hp": 45}}), scene)]
        designer_save(scene, "health", lambda d: d.rename_field(d.key("hp_max"), "hp_top"))
        designer_save(scene, "health", _add("foo"))
        playback = play_page(scene, steps)
        assert playback.page_outcomes[0].sentence == "Step 7 (turn) done."
        assert playback.session.values()["Health"]["hp_top"] == 50
        assert playback.session.values()["Health"]["hp"] == 45

    def test_a_list_row_and_arguments_sent_as_text(self, scene: Path) -> None:
        """shop's Inventory (a list): a call given as JSON text, its tracker named in lowercase
        (TR-20), and an edit of a row, both naming price; price added later: both still refused,
        the call's arguments as they were typed."""
        shop = scene.parent / "shop.json"
        arguments = json.dumps(
            {"updates": [{"tracker": "inventory", "row": "rope", "set": {"qty": 9, "price": 3}}]}
        )
        turn = {
            "user": "I buy.",
            "reply": "Sold.",
            "callsText": json.dumps([{"arguments": arguments}]),
        }
        edit = {"action": "edit", "tracker": "Inventory", "row": "Rope", "baseStep": 1}
        steps = [pinned(turn, shop), pinned({**edit, "setText": '{"price": 4}'}, shop)]
        before = play_page(shop, steps)
        designer_save(shop, "inventory", _add("price"))
        after = play_page(shop, steps)
        assert [o.sentence for o in after.page_outcomes] == [
            o.sentence for o in before.page_outcomes
        ]
        assert "Inventory has no field 'price' (fields: qty, weight, equipped, notes)" in (
            after.page_outcomes[1].sentence
        )
        calls = [
            o.report.calls for o in (before.page_outcomes[0], after.page_outcomes[0]) if o.report
        ]
        assert calls[0] == calls[1]
        assert calls[1][0].arguments == arguments
