"""Trial "conn" findings 2, 9, 10 and 12: WTracker and RPG Companion imports, ids and slugs."""

from __future__ import annotations

import json
from pathlib import Path

from imported_fields import field_of

from trackerkit.formats import import_wtracker

DATA = Path(__file__).resolve().parents[2] / "data" / "trackers"


def _preset(properties: dict[str, object], name: str = "Dice") -> str:
    """One WTracker preset of these properties, as its settings file holds it."""
    schema = {"type": "object", "properties": properties}
    return json.dumps({"schemaPresets": {"d": {"name": name, "value": schema}}})


def _lines(text: str) -> list[str]:
    return [str(line) for line in import_wtracker("p.json", text).report.lines]


class TestNumericEnumDefault:
    """Finding 2: an enum's default is written as text the way its choices are."""

    def test_a_number_default_among_number_choices(self) -> None:
        """enum [1, 2, 3] with default 2 starts at "2", and the report names no lost default."""
        text = _preset({"difficulty": {"type": "integer", "enum": [1, 2, 3], "default": 2}})
        imported = import_wtracker("p.json", text)
        assert field_of(imported, "Dice", "difficulty")["default"] == "2"
        assert _lines(text) == [
            "guessed: schemaPresets.d.value.properties.difficulty -> Dice.difficulty: choice of 3; "
            "guessed: non-text enum values written as text",
        ]

    def test_a_default_outside_the_choices_is_still_reported(self) -> None:
        """A default that is not among the choices, once written as text, is named as lost."""
        text = _preset({"difficulty": {"type": "integer", "enum": [1, 2, 3], "default": 4}})
        assert _lines(text) == [
            "guessed: schemaPresets.d.value.properties.difficulty -> Dice.difficulty: choice of 3; "
            "guessed: non-text enum values written as text; not kept: its default 4 (not one of "
            "the choices), so it starts at its first choice",
        ]
