"""What Save sends, in words (trial nu3, finding 7: the page showed the patch as a Python repr)."""

from __future__ import annotations

import json

import pytest
from conftest import DATA_TRACKERS

from trackerkit import Draft, Library
from trackerkit.design import edit_lines, move_field, patch_text


@pytest.fixture
def health() -> Draft:
    return Draft.open(Library(DATA_TRACKERS).get("health"))


class TestEditLines:
    def test_nothing_edited(self, health: Draft) -> None:
        """A draft as opened says nothing."""
        assert edit_lines(health) == []

    def test_a_rename_is_one_line(self, health: Draft) -> None:
        """The trial's rename hp → vigor: the tops that followed it are no edit of their own (TR-47)."""
        draft = health.rename_field(health.key("hp"), "vigor")
        draft = draft.rename_field(draft.key("hp_max"), "top")
        assert edit_lines(draft) == ["renames field hp → vigor", "renames field hp_max → top"]

    def test_the_trackers_settings_by_their_labels(self, health: Draft) -> None:
        """Each setting reads as its box is labelled, old value then new; free text quoted."""
        draft = health.rename_tracker("Vitals").set(
            description="", layout="list", template="{{tracker::Vitals}}"
        )
        assert edit_lines(draft) == [
            'Name: "Health" → "Vitals"',
            'What it tracks: "Vera\'s condition" → (empty)',
            "Shape: record → list",
            'Prompt line: (none) → "{{tracker::Vitals}}"',
        ]

    @pytest.mark.parametrize(
        ("edit", "said"),
        [
            (lambda d: d.add_field(type="number"), ["adds field field (number)"]),
            (
                lambda d: d.delete_field(d.key("hp_max")),
                ["deletes field hp_max", "hp's To (another field): hp_max → (none)"],
            ),
            (lambda d: d.set_type(d.key("hp"), "text"), ["hp's Type: number → text"]),
            (
                lambda d: d.set_field(d.key("mood"), choices=["calm"]),
                ['mood\'s Choices: ["calm", "tense"] → ["calm"]'],
            ),
            (
                lambda d: d.set_field(d.key("hp"), max_field=None, max=20),
                ["hp's To (a number): (none) → 20", "hp's To (another field): hp_max → (none)"],
            ),
            (
                lambda d: move_field(d, d.key("mood"), -1),
                ["moves the fields into the order hp, mood, hp_max"],
            ),
        ],
        ids=["add", "delete frees a top", "retype", "choices", "top", "move"],
    )
    def test_the_fields(self, health: Draft, edit: object, said: list[str]) -> None:
        """A field added, deleted, retyped, moved or set reads as one line each."""
        assert callable(edit)
        assert edit_lines(edit(health)) == said

    def test_a_new_fields_settings(self, health: Draft) -> None:
        """A field added says the settings it was given with its type."""
        draft = health.add_field(type="number")
        key = draft.fields[-1].key
        draft = draft.rename_field(key, "ammo").set_field(key, max=12, description="Rounds.")
        assert edit_lines(draft) == [
            'adds field ammo (number; What it means "Rounds."; To (a number) 12)'
        ]

    def test_long_text_is_cut(self, health: Draft) -> None:
        """A long value is quoted up to 60 characters, then cut with an ellipsis."""
        (line,) = edit_lines(health.set(note="x" * 200))
        assert (
            line
            == 'How the AI should update it: "Lower hp when Vera is hurt." → "' + "x" * 58 + "…"
        )


class TestPatchText:
    def test_indented_json_of_the_patch(self, health: Draft) -> None:
        """The patch Save sends as indented JSON (double quotes), letters as written."""
        draft = health.rename_tracker("Здоровье")
        text = patch_text(draft)
        assert json.loads(text) == draft.patch() == {"name": "Здоровье"}
        assert text == '{\n  "name": "Здоровье"\n}'
