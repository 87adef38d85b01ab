"""WTracker JSON Schema presets to trackers (issue 16 item 1)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import orjson
import pytest
from imported_fields import field_of

from trackerkit import ImportRefusedError, Library, decode_tracker, encode_tracker
from trackerkit.formats import import_wtracker

FIXTURE = Path(__file__).parent / "fixtures" / "wtracker_settings.json"


class TestFixture:
    """The fixture, written from the format's documented shape and as messy as real files."""

    def test_report_lines(self) -> None:
        """Every source key has its line: exact, guessed (from what) or unmapped (why)."""
        assert [str(line) for line in import_wtracker(FIXTURE).report.lines] == [
            "unmapped: schemaPresets.default.html: an HTML display template; a trackerkit template is macro text, so write one",
            "unmapped: schemaPreset: a WTracker setting (prompt, mode or option), not a schema",
            "unmapped: prompt: a WTracker setting (prompt, mode or option), not a schema",
            "exact: schemaPresets.default.value.properties.time -> Default.time: text",
            "guessed: schemaPresets.default.value.properties.location -> Default.location: text; maxLength not kept (a text field has no limits)",
            "guessed: schemaPresets.default.value.properties.tension -> Default.tension: number min 0 max 10; integer (a trackerkit number may hold fractions)",
            "guessed: schemaPresets.default.value.properties.temperature -> Default.temperature: number min -60 max 60; exclusiveMinimum -60 read as an inclusive min",
            "exact: schemaPresets.default.value.properties.weather -> Default.weather: choice of 4",
            "exact: schemaPresets.default.value.properties.is_night -> Default.is_night: boolean",
            "guessed: schemaPresets.default.value.properties.danger -> Default.danger: number min 1 max 5; integer (a trackerkit number may hold fractions); null allowed in the source, but a field always holds a value",
            'guessed: schemaPresets.default.value.properties.topics.properties.primaryTopic -> Default.topics_primary_topic: text; flattened from a nested object as "topics.primaryTopic"',
            'guessed: schemaPresets.default.value.properties.topics.properties.emotionalTone -> Default.topics_emotional_tone: choice of 2; flattened from a nested object as "topics.emotionalTone"',
            'guessed: schemaPresets.default.value.properties.tags -> Default.tags: text, guessed: an array of plain values kept as one text, joined with ", "',
            "unmapped: schemaPresets.default.value.properties.ref: uses $ref, which trackerkit fields cannot express",
            "unmapped: schemaPresets.default.value.properties.mood: uses anyOf, which trackerkit fields cannot express",
            'exact: schemaPresets.default.value.properties.characters.items.properties.name -> Default characters: keyed list: rows keyed by "name"',
            "exact: schemaPresets.default.value.properties.characters.items.properties.hair -> Default characters.hair: text",
            "exact: schemaPresets.default.value.properties.characters.items.properties.outfit -> Default characters.outfit: text",
            "exact: schemaPresets.default.value.properties.characters.items.properties.hp -> Default characters.hp: number min 0 max 100",
            "unmapped: schemaPresets.default.value.properties.characters.items.properties.pose: an object inside a row; a row holds plain fields only",
            'unmapped: schemaPresets.default.value.properties.events: rows keyed by "what" with no other field that could be imported; a list needs one besides the row\'s name, so no tracker was made',
            "guessed: schemaPresets.ledger.value.properties.gold -> Ledger.gold: number min 0; integer (a trackerkit number may hold fractions)",
        ]

    def test_every_tracker_passes_the_strict_decoder(self) -> None:
        """TR-12: each tracker decodes from its own encoding; links follow the trackers."""
        imported = import_wtracker(FIXTURE)
        for tracker in imported.trackers:
            assert decode_tracker(encode_tracker(tracker)) == tracker
        assert imported.scene_links == tuple(t.id for t in imported.trackers)

    def test_number_choice_and_keyed_list(self) -> None:
        """minimum/maximum become the range; enum a choice with its default; arrays of named objects a list."""
        imported = import_wtracker(FIXTURE)
        assert field_of(imported, "Default", "tension") == {
            "name": "tension",
            "description": "How tense the scene is",
            "type": "number",
            "min": 0,
            "max": 10,
            "default": 2,
        }
        assert field_of(imported, "Default", "weather") == {
            "name": "weather",
            "description": "",
            "type": "choice",
            "choices": ["clear", "rain", "snow", "fog"],
            "default": "fog",
        }
        characters = next(t for t in imported.trackers if t.name == "Default characters")
        assert (characters.layout, [f.name for f in characters.fields]) == (
            "list",
            ["hair", "outfit", "hp"],
        )

    def test_bare_schema(self) -> None:
        """A schema on its own is one record named by its title."""
        text = '{"title": "Vitals", "type": "object", "properties": {"ok": {"type": "boolean"}}}'
        imported = import_wtracker("vitals.json", text)
        assert [(t.name, [f.name for f in t.fields]) for t in imported.trackers] == [
            ("Vitals", ["ok"])
        ]

    def test_empty_object_and_name_only_rows_are_reported(self) -> None:
        """An object with no properties, and rows with nothing but a name, each get a line."""
        schema = {
            "type": "object",
            "properties": {
                "pose": {"type": "object", "properties": {}},
                "npcs": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}},
                },
                "ok": {"type": "boolean"},
            },
        }
        imported = import_wtracker("s.json", orjson.dumps(schema).decode())
        assert [str(line) for line in imported.report.lines] == [
            "unmapped: properties.pose: an object with no properties",
            'unmapped: properties.npcs: rows keyed by "name" with no other field that could be '
            "imported; a list needs one besides the row's name, so no tracker was made",
            "exact: properties.ok -> s.ok: boolean",
        ]


class TestRefused:
    """What is no schema is refused, naming the file."""

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            ("[1]", "is not a WTracker preset or JSON Schema (an object)"),
            ('{"schemaPresets": {"a": 1}}', "holds no WTracker schema (an object with properties)"),
        ],
        ids=["list", "preset-not-object"],
    )
    def test_refused(self, text: str, reason: str) -> None:
        """One sentence with the file's name."""
        with pytest.raises(ImportRefusedError) as caught:
            import_wtracker("wt.json", text)
        assert str(caught.value) == f"wt.json: {reason}"


class TestWhatIsLostIsSaid:
    """A default or bound the field cannot hold is named, and its line is not exact (a trial:
    default 150 above maximum 100, "z" outside the enum, "5" for a number, `minimum: "5"` and
    `minimum: true` were dropped while the lines said exact)."""

    @pytest.mark.parametrize(
        ("prop", "line"),
        [
            (
                {"type": "number", "minimum": 0, "maximum": 100, "default": 150},
                "guessed: properties.f -> s.f: number min 0 max 100; its default 150 lies above "
                "max 100, so it starts at 100",
            ),
            (
                {"type": "string", "enum": ["a", "b"], "default": "z"},
                'guessed: properties.f -> s.f: choice of 2; not kept: its default the text "z" '
                "(not one of the choices), so it starts at its first choice",
            ),
            (
                {"type": "integer", "default": "5"},
                "guessed: properties.f -> s.f: number; integer (a trackerkit number may hold "
                'fractions); not kept: its default the text "5" (not a number), so it starts at 0',
            ),
            (
                {"type": "number", "minimum": "5"},
                'guessed: properties.f -> s.f: number; not kept: minimum the text "5" (not a '
                "number)",
            ),
            (
                {"type": "number", "minimum": True},
                "guessed: properties.f -> s.f: number; not kept: minimum true (not a number)",
            ),
            (
                {"type": "number", "minimum": 5, "maximum": 1, "default": 3},
                "guessed: properties.f -> s.f: number; not kept: the range: minimum 5 lies above "
                "maximum 1, so it starts at its default 3",
            ),
            (
                {"type": "number", "minimum": 2, "default": 1},
                "guessed: properties.f -> s.f: number min 2; its default 1 lies below min 2, so "
                "it starts at 2",
            ),
            (
                {"type": "boolean", "default": 1},
                "guessed: properties.f -> s.f: boolean; not kept: its default 1 (not true or "
                "false), so it starts false",
            ),
            (
                {"type": "string", "default": 5},
                "guessed: properties.f -> s.f: text; not kept: its default 5 (not a text), so it "
                "starts empty",
            ),
        ],
        ids=[
            "above-max",
            "not-a-choice",
            "text-number",
            "text-minimum",
            "flag-minimum",
            "min-above-max",
            "below-min",
            "flag-not-bool",
            "text-not-text",
        ],
    )
    def test_line(self, prop: dict[str, object], line: str) -> None:
        schema = {"type": "object", "properties": {"f": prop}}
        imported = import_wtracker("s.json", orjson.dumps(schema).decode())
        assert [str(x) for x in imported.report.lines] == [line]
        # TR-18: a number default outside its range is held inside it; other lost defaults go.
        held = {150: 100, 1: 2, 3: 3}.get(prop.get("default")) if prop["type"] == "number" else None
        assert field_of(imported, "s", "f").get("default") == held

    @pytest.mark.parametrize(
        ("prop", "start", "said"),
        [
            (
                '"minimum": 0, "maximum": 100, "default": 1e16',
                100,
                "number min 0 max 100; its default 1e+16 lies above max 100, so it starts at 100",
            ),
            (
                '"minimum": 0, "maximum": 100, "default": -1e16',
                0,
                "number min 0 max 100; its default -1e+16 lies below min 0, so it starts at 0",
            ),
            (
                '"maximum": 100, "default": 1000000000000000000000000000000',
                100,
                "number max 100; its default 1e+30 lies above max 100, so it starts at 100",
            ),
            (
                '"minimum": 0, "default": 1e16',
                None,
                "number min 0; not kept: its default 1e+16 (not a finite number within 2^53), so "
                "it starts at 0",
            ),
            (
                '"minimum": 0, "maximum": 100, "default": 1e400',
                None,
                "number min 0 max 100; not kept: its default inf (not a finite number within "
                "2^53), so it starts at 0",
            ),
            (
                '"minimum": 1e16, "exclusiveMaximum": 1e16',
                None,
                "number; not kept: minimum 1e+16 (not a finite number within 2^53); "
                "exclusiveMaximum 1e+16 (not a finite number within 2^53)",
            ),
        ],
        ids=["past-2^53", "below-2^53", "long-whole", "no-top", "infinite", "bounds"],
    )
    def test_a_number_past_2_53_is_a_number(self, prop: str, start: int | None, said: str) -> None:
        """Found by a trial: a default of 1e16 with maximum 100 was called "not a number" and
        started at 0, while 150 was held at 100. TR-18: a number beyond the range is held inside
        it, at the top or the bottom; one no bound brings in (no top, or not finite) is not kept,
        in the words the RPG Companion importer uses for it."""
        text = f'{{"type": "object", "properties": {{"f": {{"type": "number", {prop}}}}}}}'
        imported = import_wtracker("s.json", text)
        assert field_of(imported, "s", "f").get("default") == start
        assert [str(x) for x in imported.report.lines] == [f"guessed: properties.f -> s.f: {said}"]

    def test_what_fits_stays_exact(self) -> None:
        schema = {
            "type": "object",
            "properties": {"f": {"type": "number", "minimum": 0, "maximum": 9, "default": 9}},
        }
        imported = import_wtracker("s.json", orjson.dumps(schema).decode())
        assert [str(x) for x in imported.report.lines] == [
            "exact: properties.f -> s.f: number min 0 max 9"
        ]


class TestRangeAboveItself:
    """A range whose minimum lies above its maximum is dropped; a default kept without it is
    said, where it once started the field without a word."""

    COUNT: ClassVar[dict[str, object]] = {
        "type": "integer",
        "minimum": 10,
        "maximum": 5,
        "default": 7,
    }
    LINE = (
        "number; integer (a trackerkit number may hold fractions); not kept: the range: minimum "
        "10 lies above maximum 5, so it starts at its default 7"
    )

    def test_a_record_field(self) -> None:
        """Found when tried: `count` started at 7 and its line named only the range dropped."""
        schema = {"type": "object", "properties": {"count": self.COUNT}}
        imported = import_wtracker("s.json", orjson.dumps(schema).decode())
        assert field_of(imported, "s", "count")["default"] == 7
        assert [str(x) for x in imported.report.lines] == [
            f"guessed: properties.count -> s.count: {self.LINE}"
        ]

    def test_a_list_column(self) -> None:
        """A column of a keyed list says it the same way."""
        row = {"type": "object", "properties": {"name": {"type": "string"}, "count": self.COUNT}}
        schema = {"type": "object", "properties": {"bag": {"type": "array", "items": row}}}
        imported = import_wtracker("s.json", orjson.dumps(schema).decode())
        assert field_of(imported, "s", "count")["default"] == 7
        assert f"guessed: properties.bag.items.properties.count -> s.count: {self.LINE}" in [
            str(x) for x in imported.report.lines
        ]

    def test_no_default_says_no_start(self) -> None:
        """With no default the field starts at 0, as any number without one, and the line says
        only the range."""
        count = {k: v for k, v in self.COUNT.items() if k != "default"}
        schema = {"type": "object", "properties": {"count": count}}
        imported = import_wtracker("s.json", orjson.dumps(schema).decode())
        assert [str(x) for x in imported.report.lines] == [
            "guessed: properties.count -> s.count: number; integer (a trackerkit number may hold "
            "fractions); not kept: the range: minimum 10 lies above maximum 5"
        ]


class TestExportRoundTrip:
    """`export --to wtracker` then import gives a list back under its own name, and the report
    says only what was written (a trial: "Inventory" came back "Inventory rows" beside the line
    "Inventory: no field of it could be imported, so no tracker was made")."""

    def test_a_list_comes_back_by_its_name(self) -> None:
        from trackerkit.formats.wtracker_export import export_wtracker
        from trackerkit.formats.wtracker_import import wtracker_from_data

        bag = decode_tracker(
            {
                "kind": "tracker",
                "id": "inventory",
                "revision": 0,
                "name": "Inventory",
                "description": "What the player carries",
                "body": {
                    "layout": "list",
                    "fields": [
                        {"name": "qty_max", "description": "", "type": "number", "min": 0},
                        {
                            "name": "qty",
                            "description": "How many",
                            "type": "number",
                            "min": 0,
                            "maxField": "qty_max",
                        },
                    ],
                    "note": "",
                },
            }
        )
        settings = orjson.loads(orjson.dumps(export_wtracker([bag]).settings))
        imported = wtracker_from_data(settings, "presets.json")
        (back,) = imported.trackers
        assert (back.name, back.layout, back.description) == (
            "Inventory",
            "list",
            "What the player carries",
        )
        assert encode_tracker(back)["body"]["fields"] == encode_tracker(bag)["body"]["fields"]
        lines = [str(x) for x in imported.report.lines]
        assert not any("no tracker was made" in x for x in lines)
        assert lines[1:] == [
            "exact: schemaPresets.inventory.value.properties.rows.items.properties.name -> "
            'Inventory: keyed list: rows keyed by "name"',
            "exact: schemaPresets.inventory.value.properties.rows.items.properties.qty_max -> "
            "Inventory.qty_max: number min 0",
            "guessed: schemaPresets.inventory.value.properties.rows.items.properties.qty -> "
            'Inventory.qty: number min 0; its top is the field qty_max, guessed from "At most '
            'qty_max." in its description',
        ]

    def test_two_lists_keep_the_property_in_their_names(self) -> None:
        rows = {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "n": {"type": "number"}},
            },
        }
        schema = {"type": "object", "properties": {"a": rows, "b": rows}}
        imported = import_wtracker("s.json", orjson.dumps(schema).decode())
        assert [t.name for t in imported.trackers] == ["s a", "s b"]
        assert not imported.report.of("unmapped")

    def test_every_bundled_tracker_keeps_its_description_and_note(self) -> None:
        """Found when tried: the export ends the one description WTracker has with the note,
        and the import kept it all as the description, so each note (the model's instruction
        in the tool line) was lost without a word. The note is named beside it and comes back."""
        from trackerkit.formats.wtracker_export import NOTE_KEY, export_wtracker
        from trackerkit.formats.wtracker_import import wtracker_from_data

        bundled = Library(Path(__file__).parents[2] / "data" / "trackers").trackers()
        assert any(t.body.note for t in bundled)
        settings = orjson.loads(orjson.dumps(export_wtracker(bundled).settings))
        for preset in settings["schemaPresets"].values():  # WTracker's model still reads both
            value = preset["value"]
            told = value if "description" in value else value["properties"]["rows"]
            assert NOTE_KEY in told
            assert told["description"].endswith(told[NOTE_KEY])
        back = {t.name: t for t in wtracker_from_data(settings, "presets.json").trackers}
        for tracker in bundled:
            assert back[tracker.name].description == tracker.description
            assert back[tracker.name].body.note == tracker.body.note
