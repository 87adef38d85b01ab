"""Warnings on a tracker that decodes yet will not read as meant: the designer's verdict and
`trackerkit check` say the same (`unsure_rows`, `held_starts`, `old_names`)."""

from __future__ import annotations

import copy
from typing import Any

from conftest import BAG, HEALTH

from trackerkit import Draft, decode_tracker
from trackerkit.design import tracker_hints


def _piece(base: dict[str, Any], **body: Any) -> dict[str, Any]:
    piece = copy.deepcopy(base)
    piece["body"].update(body)
    return piece


class TestListRows:
    def test_the_verdict_warns_of_a_macro_reading_a_row(self) -> None:
        """`{{tracker::Bag::Sample::qty}}` may be saved, but a list starts with no rows (TR-19), so
        the verdict warns that it writes nothing until a reply adds the row (a trial: the designer
        said "may be saved" and the line left Bag out of the block in a chat)."""
        verdict = (
            Draft.open(decode_tracker(BAG)).set(template="{{tracker::Bag::Sample::qty}}").verdict()
        )
        assert verdict.ok
        [warning] = verdict.warnings
        assert warning.code == "unsure_row"
        assert str(warning) == (
            'template: {{tracker::Bag::Sample::qty}} reads the row "Sample" of Bag, and a list '
            "starts with no rows: until a reply adds that row the macro writes nothing, and a "
            "prompt line left empty leaves Bag out of the ### Trackers block"
        )

    def test_check_warns_of_a_row_of_another_list(self) -> None:
        """A record's template reading a list's row is warned on the record (TR-32)."""
        health = decode_tracker(_piece(HEALTH, template="{{tracker::Bag::Rope::qty}} left"))
        hints = tracker_hints([health, decode_tracker(BAG)])
        assert [p.code for p in hints[0]] == ["unsure_row"]
        assert hints[0][0].path == "body.template"
        assert hints[1] == []

    def test_a_row_named_through_a_macro_is_not_judged(self) -> None:
        """A row named by `{{char}}` is known only in a chat."""
        bag = decode_tracker(_piece(BAG, template="{{tracker::Bag::{{char}}::qty}}"))
        assert tracker_hints([bag]) == [[]]

    def test_the_whole_list_is_no_row(self) -> None:
        bag = decode_tracker(_piece(BAG, template="{{tracker::Bag}}"))
        assert tracker_hints([bag]) == [[]]


class TestStartsAboveTheirTop:
    """TR-7 judges a start against the field's own range; a top from another field is a value a
    chat may change, so a start above it is held there when read (TR-18): a warning, not a
    refusal (a trial: 999 against hp_max previewed as 30 without a word)."""

    def test_the_verdict_says_the_start_is_held_to_the_top(self) -> None:
        draft = Draft.open(decode_tracker(HEALTH))
        verdict = draft.set_field(draft.key("hp"), default=999).verdict()
        assert verdict.ok
        assert verdict.warning_lines() == [
            'field "hp": Starts at 999 is above the start of hp_max (30), the field that is its '
            "top: hp starts at 30 (a start is held to its top when read); start hp_max higher, "
            "or hp lower"
        ]

    def test_check_warns_the_same(self) -> None:
        piece = copy.deepcopy(HEALTH)
        piece["body"]["fields"][0]["default"] = 999
        [[warning]] = tracker_hints([decode_tracker(piece)])
        assert warning.path == "body.fields[0].default"
        assert warning.code == "start_held"

    def test_a_start_at_or_below_the_top_is_no_warning(self) -> None:
        piece = copy.deepcopy(HEALTH)
        piece["body"]["fields"][0]["default"] = 30
        assert tracker_hints([decode_tracker(piece)]) == [[]]

    def test_a_list_row_starts_the_same(self) -> None:
        piece = copy.deepcopy(BAG)
        piece["body"]["fields"] = [
            {"name": "qty", "description": "", "type": "number", "maxField": "most", "default": 9},
            {"name": "most", "description": "", "type": "number", "default": 3},
        ]
        [[warning]] = tracker_hints([decode_tracker(piece)])
        assert "qty starts at 3" in warning.message


class TestOldNamesInTheTrackersWords:
    """Macros and tops follow a rename (TR-47); the note and the fields' meanings are prose the
    model reads in the update tool (TR-36), so the verdict names an old name left there and
    changes no word itself (a trial: hp renamed life, the note still said "Lower hp")."""

    def test_the_note_naming_a_renamed_field_is_warned(self) -> None:
        draft = Draft.open(decode_tracker(HEALTH))
        renamed = draft.rename_field(draft.key("hp"), "life")
        verdict = renamed.verdict()
        assert verdict.ok
        assert verdict.warning_lines() == [
            'update instruction: still names "hp", the field now called "life": the model is '
            "told of a field that does not exist; edit the words (a rename leaves them as written)"
        ]
        assert renamed.note == "Lower hp when Vera is hurt."

    def test_a_field_meaning_naming_it_is_warned(self) -> None:
        draft = Draft.open(decode_tracker(HEALTH))
        draft = draft.set_field(draft.key("mood"), description="Tense when hp_max is low.")
        verdict = draft.rename_field(draft.key("hp_max"), "top").verdict()
        assert [p.path for p in verdict.warnings] == ['meaning of field "mood"']

    def test_a_word_that_only_contains_the_name_is_no_warning(self) -> None:
        """`hp_max` and `hpx` are other words than `hp`; once the note is fixed, nothing is said."""
        draft = Draft.open(decode_tracker(HEALTH)).set(note="Keep hp_max; hpx.")
        assert draft.rename_field(draft.key("hp"), "life").verdict().warnings == ()

    def test_an_old_name_another_field_now_bears_is_no_warning(self) -> None:
        draft = Draft.open(decode_tracker(HEALTH))
        swapped = draft.rename_field(draft.key("hp"), "hp_now").rename_field(
            draft.key("mood"), "hp"
        )
        assert swapped.verdict().warnings == ()
