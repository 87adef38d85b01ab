"""The designer's field list by identity, tops without loops, typed settings, dropped tops (TR-5, TR-48)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from conftest import HEALTH

from trackerkit import Draft, decode_tracker
from trackerkit.design import (
    dropped_tops,
    field_labels,
    move_field,
    parse_number,
    parse_start,
    redraws,
    selected_key,
    start_placeholder,
    start_text,
    top_candidates,
    top_labels,
)
from trackerkit.design.draft import DraftField
from trackerkit.errors import BadRequestError, NotFoundError


def _health() -> Draft:
    return Draft.open(decode_tracker(HEALTH))


def _chain() -> Draft:
    """a -> b -> c (each field's top is the next), and d with no top."""
    draft = Draft.blank("chain")
    draft = draft.rename_field("#1", "a")
    for name in ("b", "c", "d"):
        draft = draft.add_field(name, type="number")
    return draft.set_field("#1", max_field="#2").set_field("#2", max_field="#3")


class TestFieldLabels:
    def test_two_fields_of_one_name_are_two_entries(self) -> None:
        """Fields are listed by identity: a shared name still gives one entry per field."""
        draft = _health()
        draft = draft.rename_field(draft.key("mood"), "hp")
        labels = field_labels(draft.fields)
        assert list(labels) == ["1. hp (number)", "2. hp_max (number)", "3. hp (choice)"]
        assert list(labels.values()) == [f.key for f in draft.fields]

    def test_a_field_without_a_name_has_an_entry(self) -> None:
        """An empty name is shown as (no name)."""
        assert list(field_labels([DraftField("#1", "", "text")])) == ["1. (no name) (text)"]

    def test_a_long_name_is_cut_so_the_list_keeps_its_width(self) -> None:
        """Trial ui9: a 170-character name ran across the field editor beside the list; the
        verdict's line ran past its box."""
        name = "a_really_long_field_name_" * 7
        labels = list(field_labels([DraftField("#1", name, "number")]))
        assert labels == [f"1. {name[:29]}... (number)"]
        verdict = Draft.blank("t", "T").rename_field("#1", name).verdict().lines()
        assert verdict[0].startswith(f'field "{name[:37]}...": ')


class TestSelection:
    def test_a_deleted_selection_falls_back_to_the_first_field(self) -> None:
        """A key no longer in the draft selects the first field."""
        draft = _health()
        assert selected_key(draft, "#3") == "#3"
        assert selected_key(draft.delete_field("#3"), "#3") == "#1"
        assert selected_key(draft, None) == "#1"

    def test_move_by_step_stays_in_the_list(self) -> None:
        """Moving up from the top, or down from the bottom, leaves the order as it is."""
        draft = _health()
        assert [f.name for f in move_field(draft, "#3", -1).fields] == ["hp", "mood", "hp_max"]
        assert [f.name for f in move_field(draft, "#1", -1).fields] == ["hp", "hp_max", "mood"]
        assert [f.name for f in move_field(draft, "#3", 1).fields] == ["hp", "hp_max", "mood"]

    def test_move_of_a_missing_key(self) -> None:
        """A key the draft does not hold is an error, never a move of another field."""
        with pytest.raises(NotFoundError):
            move_field(_health(), "#9", 1)


class TestTopCandidates:
    """TR-5: only tops that keep the chain free of loops are offered."""

    def test_health(self) -> None:
        """hp may take hp_max; hp_max may not take hp (hp is out of hp_max)."""
        draft = _health()
        assert [f.name for f in top_candidates(draft, "#1")] == ["hp_max"]
        assert top_candidates(draft, "#2") == []

    @pytest.mark.parametrize(
        ("field", "offered"),
        [("#1", ["b", "c", "d"]), ("#2", ["c", "d"]), ("#3", ["d"]), ("#4", ["a", "b", "c"])],
        ids=["a keeps its chain", "b not a", "c not a nor b", "d any"],
    )
    def test_a_chain(self, field: str, offered: list[str]) -> None:
        """A field is not offered when its chain of tops comes back round."""
        assert [f.name for f in top_candidates(_chain(), field)] == offered

    def test_every_offer_decodes(self) -> None:
        """Each offered top gives a draft the decoder accepts (no loop)."""
        draft = _chain()
        for field in draft.fields:
            for top in top_candidates(draft, field.key):
                assert draft.set_field(field.key, max_field=top.key).verdict().ok

    def test_only_numbers(self) -> None:
        """A choice field is never offered."""
        assert "mood" not in [f.name for f in top_candidates(_health(), "#1")]

    def test_labels_name_duplicates_by_position(self) -> None:
        """Two candidates of one name are told apart by position."""
        draft = _chain().rename_field("#3", "d")
        assert top_labels(draft, "#1") == {"b": "#2", "d (number 3)": "#3", "d (number 4)": "#4"}


class TestTypedSettings:
    @pytest.mark.parametrize(
        ("text", "value"),
        [
            ("", None),
            (" 30 ", 30),
            ("2.5", 2.5),
            ("-1", -1),
            ("1e2", 100),
            ("9007199254740993", 2**53 + 1),
        ],
        ids=["empty", "int", "float", "negative", "exponent", "past-2^53-exact"],
    )
    def test_numbers(self, text: str, value: Any) -> None:
        """A typed number is an int when whole."""
        assert parse_number(text) == value
        assert type(parse_number(text)) is type(value)

    @pytest.mark.parametrize(
        "text", ["lots", "nan", "inf", "1,5"], ids=["word", "nan", "inf", "comma"]
    )
    def test_not_numbers(self, text: str) -> None:
        """Text that is not a finite number is refused with the text quoted."""
        with pytest.raises(BadRequestError, match=f'"{text}"'):
            parse_number(text)

    @pytest.mark.parametrize(
        "text", ["1e400", "-1e400", "1" * 50], ids=["exponent", "negative", "digits"]
    )
    def test_huge_numbers_are_said_large_not_infinite(self, text: str) -> None:
        """A number past what a float holds is a number: refused as unusually large, quoted."""
        with pytest.raises(BadRequestError, match="unusually large") as refused:
            parse_number(text)
        assert f'"{text[:40]}' in str(refused.value)

    @pytest.mark.parametrize(
        ("type", "text", "value"),
        [
            ("number", "45", 45),
            ("boolean", "True", True),
            ("boolean", "false", False),
            ("boolean", "", None),
            ("text", "calm", "calm"),
            ("text", "", None),
            ("choice", "tense", "tense"),
        ],
        ids=["number", "true", "false", "no bool", "text", "no text", "choice"],
    )
    def test_starts(self, type: Any, text: str, value: Any) -> None:
        """ "Starts at" means what the field's type says; start_text shows it back."""
        field = DraftField("#1", "x", type)
        assert parse_start(field, text) == value
        if value is not None:
            assert start_text(replace(field, default=value)) == text.lower()

    def test_a_yes_no_start_that_is_neither(self) -> None:
        """A yes/no field's start must be true or false."""
        with pytest.raises(BadRequestError, match="not true or false"):
            parse_start(DraftField("#1", "x", "boolean"), "maybe")


class TestDroppedTops:
    """TR-48 drops a top on delete or retype; the designer says so."""

    def test_deleting_the_top(self) -> None:
        """Deleting hp_max drops hp's top, said in one sentence."""
        draft = _health()
        assert dropped_tops(draft, draft.delete_field("#2")) == [
            '"hp" no longer has a top: "hp_max" was deleted.'
        ]

    def test_retyping_the_top(self) -> None:
        """hp_max becoming text drops hp's top."""
        draft = _health()
        assert dropped_tops(draft, draft.set_type("#2", "text")) == [
            '"hp" no longer has a top: "hp_max" is now a text field.'
        ]

    def test_retyping_the_field_with_a_top(self) -> None:
        """hp becoming a choice drops its own top."""
        draft = _health()
        assert dropped_tops(draft, draft.set_type("#1", "choice")) == [
            '"hp" is now a choice field, so its top "hp_max" was dropped.'
        ]

    def test_other_edits_drop_nothing(self) -> None:
        """Deleting mood, or clearing the top by hand, is not reported."""
        draft = _health()
        assert dropped_tops(draft, draft.delete_field("#3")) == []
        assert dropped_tops(draft, draft.set_field("#1", max=50)) == []


class TestRedraws:
    """The field's form is drawn anew when an edit changed a box it was not typed in (a trial:
    "To (another field)" still showed hp_max after "To (a number)" had dropped it)."""

    def test_a_fixed_top_clears_the_top_field(self) -> None:
        draft = _health()
        key = draft.key("hp")
        before = draft.field(key)
        assert redraws(before, draft.set_field(key, max=25).field(key), ["max"])

    def test_a_top_field_clears_the_fixed_top(self) -> None:
        draft = _health()
        key = draft.key("hp")
        fixed = draft.set_field(key, max=25)
        before = fixed.field(key)
        assert redraws(before, fixed.set_field(key, max_field="hp_max").field(key), ["max_field"])

    @pytest.mark.parametrize(
        ("setting", "value"),
        [("min", 2), ("default", 3), ("description", "Life."), ("max_field", None)],
        ids=["from", "start", "meaning", "top field cleared"],
    )
    def test_an_edit_of_its_own_box_alone_does_not(self, setting: str, value: Any) -> None:
        draft = _health()
        key = draft.key("hp")
        after = draft.set_field(key, **{setting: value}).field(key)
        assert not redraws(draft.field(key), after, [setting])


class TestStartPlaceholder:
    """Trial ui9: an empty "Starts at" box read as no value while the rail showed `hp=0`."""

    @pytest.mark.parametrize(
        ("field", "said"),
        [
            (DraftField("#1", "hp", "number"), "empty: starts at 0"),
            (DraftField("#1", "hp", "number", min=5, max=9), "empty: starts at 5"),
            (DraftField("#1", "hp", "number", max=-3), "empty: starts at -3"),
            (DraftField("#1", "ok", "boolean"), "empty: starts false"),
            (
                DraftField("#1", "mood", "choice", choices=("calm", "tense")),
                "empty: starts at calm",
            ),
            (DraftField("#1", "note", "text"), "empty: starts empty"),
        ],
    )
    def test_the_box_says_what_empty_means(self, field: DraftField, said: str) -> None:
        assert start_placeholder(field) == said
