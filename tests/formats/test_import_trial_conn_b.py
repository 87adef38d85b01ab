"""Trial "conn" findings 2, 9, 10 and 12: WTracker and RPG Companion imports, ids and slugs."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from imported_fields import field_of

from trackerkit import decode_tracker
from trackerkit.cli import main
from trackerkit.formats import import_rpg_companion, import_wtracker
from trackerkit.formats.names import FieldNames, piece_id
from trackerkit.formats.wtracker_export import export_wtracker
from trackerkit.formats.wtracker_import import wtracker_from_data

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


class TestListWithoutNameKey:
    """Finding 9: rows keyed by the first text key when none is name-like."""

    TEXT = _preset(
        {
            "inventory": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "item": {"type": "string"},
                        "count": {"type": "integer", "minimum": 0},
                    },
                    "required": ["item"],
                },
            }
        },
        name="Bag",
    )

    def test_the_first_text_key_names_the_rows(self) -> None:
        """`item` keys the rows, reported as guessed, and `count` is the list's field."""
        imported = import_wtracker("p.json", self.TEXT)
        (bag,) = imported.trackers
        assert (bag.name, bag.layout, [f.name for f in bag.fields]) == ("Bag", "list", ["count"])
        assert _lines(self.TEXT)[0] == (
            "guessed: schemaPresets.d.value.properties.inventory.items.properties.item -> Bag: "
            'keyed list: rows keyed by "item", guessed: the first text key (no name, title or id '
            "key)"
        )

    def test_no_text_key_still_says_why(self) -> None:
        """An array of objects with no text key at all is left behind, and says so."""
        text = _preset(
            {
                "rolls": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"n": {"type": "number"}}},
                }
            }
        )
        assert _lines(text) == [
            "unmapped: schemaPresets.d.value.properties.rolls: an array of objects with no text "
            "key to key rows by",
        ]


class TestOneOfConsts:
    """Finding 9: `oneOf` of `const` values (an enum with a meaning per value) is a choice."""

    TEXT = _preset(
        {
            "phase": {
                "type": "string",
                "description": "The time of day.",
                "oneOf": [
                    {"const": "dawn", "description": "early"},
                    {"const": "dusk", "description": "late"},
                ],
                "default": "dusk",
            }
        }
    )

    def test_becomes_a_choice_with_each_meaning(self) -> None:
        """The consts are the choices; each one's description joins the field's meaning."""
        imported = import_wtracker("p.json", self.TEXT)
        assert field_of(imported, "Dice", "phase") == {
            "name": "phase",
            "description": "The time of day. dawn: early; dusk: late",
            "type": "choice",
            "choices": ["dawn", "dusk"],
            "default": "dusk",
        }
        assert _lines(self.TEXT) == [
            "exact: schemaPresets.d.value.properties.phase -> Dice.phase: choice of 2; the "
            "choices read from oneOf const values, each one's description kept in the meaning",
        ]

    def test_other_one_of_stays_unmapped(self) -> None:
        """A oneOf of schemas (not all consts) is still left behind, as before."""
        text = _preset({"x": {"oneOf": [{"const": "a"}, {"type": "number"}]}})
        assert _lines(text)[0] == (
            "unmapped: schemaPresets.d.value.properties.x: uses oneOf, which trackerkit fields "
            "cannot express"
        )


class TestDefaultOutsideRange:
    """Finding 9: a number default outside its range is brought inside it (TR-18), and said."""

    @pytest.mark.parametrize(
        ("default", "start", "why"),
        [
            (50, 10, "its default 50 lies above max 10, so it starts at 10"),
            (-3, 0, "its default -3 lies below min 0, so it starts at 0"),
        ],
        ids=["above-the-top", "below-the-bottom"],
    )
    def test_held_inside(self, default: int, start: int, why: str) -> None:
        """TR-18: hp default 50 with maximum 10 starts at 10, not at the minimum."""
        text = _preset({"hp": {"type": "number", "minimum": 0, "maximum": 10, "default": default}})
        assert field_of(import_wtracker("p.json", text), "Dice", "hp")["default"] == start
        assert _lines(text) == [
            f"guessed: schemaPresets.d.value.properties.hp -> Dice.hp: number min 0 max 10; {why}"
        ]


class TestNothingImported:
    """Finding 9: an import that makes no tracker says so and exits 1."""

    def test_cli_exits_1(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """The report is printed, then one sentence on stderr; nothing is written."""
        source = tmp_path / "rolls.json"
        source.write_text(
            _preset(
                {
                    "rolls": {
                        "type": "array",
                        "items": {"type": "object", "properties": {"n": {"type": "number"}}},
                    }
                }
            )
        )
        data = tmp_path / "data"
        assert main(["import", str(source), "--into", str(data)]) == 1
        out, err = capsys.readouterr()
        assert out.startswith(f"{source}: WTracker, 0 trackers (0 exact, 0 guessed, 1 unmapped)\n")
        assert err == (
            f"trackerkit: nothing imported: no part of {source} could be made a tracker (the "
            "unmapped lines above say why); nothing was written\n"
        )
        assert not (data / "trackers").exists()


def _ship() -> dict[str, object]:
    return {
        "kind": "tracker",
        "id": "ship",
        "revision": 0,
        "name": "Ship «Étoile»",
        "description": "The airship",
        "body": {
            "layout": "record",
            "fields": [{"name": "hull", "description": "", "type": "number", "min": 0}],
            "note": "",
        },
    }


class TestIdsComeBack:
    """Finding 10: `export --to wtracker` keys presets by id, and the import reads it back."""

    def test_a_renamed_tracker_keeps_its_id(self) -> None:
        """Tracker `ship` named "Ship «Étoile»" is preset `ship` and comes back as `ship`."""
        settings = export_wtracker([decode_tracker(_ship())]).settings
        assert list(settings["schemaPresets"]) == ["ship"]
        assert settings["schemaPresets"]["ship"]["name"] == "Ship «Étoile»"
        imported = wtracker_from_data(orjson.loads(orjson.dumps(settings)), "rt.json")
        assert [(t.id, t.name) for t in imported.trackers] == [("ship", "Ship «Étoile»")]
        assert imported.scene_links == ("ship",)

    def test_every_bundled_tracker_keeps_its_id(self) -> None:
        """Each bundled tracker, exported together with the others, reads back under its id."""
        bundled = [decode_tracker(json.loads(p.read_text())) for p in sorted(DATA.glob("*.json"))]
        settings = export_wtracker(bundled).settings
        imported = wtracker_from_data(orjson.loads(orjson.dumps(settings)), "rt.json")
        assert [t.id for t in imported.trackers] == [t.id for t in bundled]

    def test_two_trackers_of_one_id_get_two_keys(self) -> None:
        """Trackers of one id (from two folders) are two presets, the second key numbered."""
        ship = decode_tracker(_ship())
        assert list(export_wtracker([ship, ship]).settings["schemaPresets"]) == ["ship", "ship-2"]

    def test_a_key_that_is_no_id_falls_back_to_the_name(self) -> None:
        """A preset key that is not a valid id (a space in it) gives an id made from the name."""
        schema = {"type": "object", "properties": {"n": {"type": "number"}}}
        data = {"schemaPresets": {"my preset": {"name": "Vitals", "value": schema}}}
        assert [t.id for t in wtracker_from_data(data, "p.json").trackers] == ["vitals"]

    def test_a_key_taken_by_another_tracker_s_name(self) -> None:
        """A key wins its id; a tracker whose name makes the same id gets the next one."""
        schema = {"type": "object", "properties": {"n": {"type": "number"}}}
        data = {
            "schemaPresets": {
                "the crew": {"name": "Crew", "value": schema},
                "crew": {"name": "Ship", "value": schema},
            }
        }
        trackers = wtracker_from_data(data, "p.json").trackers
        assert [(t.name, t.id) for t in trackers] == [("Crew", "crew-2"), ("Ship", "crew")]


class TestAcronymPlurals:
    """Finding 10: an acronym's plural is one word; an acronym before a word is two."""

    @pytest.mark.parametrize(
        ("key", "slug"),
        [
            ("NPCs", "npcs"),
            ("IDs", "ids"),
            ("URLs", "urls"),
            ("MyURLs", "my-urls"),
            ("NPCsList", "npcs-list"),
            ("HTMLParser", "html-parser"),
            ("ASeries", "a-series"),
        ],
        ids=lambda value: str(value),
    )
    def test_piece_ids(self, key: str, slug: str) -> None:
        """`NPCs` -> `npcs`, while `HTMLParser` -> `html-parser`."""
        assert piece_id(key, set()) == slug
        assert FieldNames().name(key) == slug.replace("-", "_")


class TestZeroMaxValue:
    """Finding 12: an RPG Companion stat with maxValue 0 is not held at 0, and says so."""

    def test_read_as_no_top(self) -> None:
        """maxValue 0 would pin the stat at 0: the field has no top, reported as guessed."""
        text = json.dumps(
            {"trackerConfig": {"userStats": {"customStats": [{"id": "mana", "maxValue": 0}]}}}
        )
        imported = import_rpg_companion("r.json", text)
        assert field_of(imported, "User stats", "mana") == {
            "name": "mana",
            "description": "",
            "type": "number",
            "min": 0,
        }
        assert [str(line) for line in imported.report.lines] == [
            "guessed: trackerConfig.userStats.customStats[0] -> User stats.mana: number from 0, "
            "no top; not kept: its maxValue 0 (a top of 0 would hold the stat at 0 for good)",
        ]
