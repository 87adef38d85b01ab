"""Trackers out to WTracker presets: lossy, says what it left behind, and reads back field by field."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from strategies import trackers

from trackerkit import Tracker, decode_tracker
from trackerkit.fields import ChoiceField, NumberField
from trackerkit.formats.wtracker_export import ROWS_KEY, export_wtracker
from trackerkit.formats.wtracker_import import wtracker_from_data
from trackerkit.values import AnyField

DATA = Path(__file__).resolve().parents[2] / "data" / "trackers"
BUNDLED = {p.stem: decode_tracker(json.loads(p.read_text())) for p in sorted(DATA.glob("*.json"))}


def _shape(field: AnyField) -> tuple[object, ...]:
    """What the law keeps: type, range and choices (a top from another field is left behind)."""
    if isinstance(field, NumberField):
        return ("number", field.min, field.max)
    if isinstance(field, ChoiceField):
        return ("choice", tuple(field.choices))
    return (field.type,)


def _read_back(tracker: Tracker) -> Tracker:
    """The export of one tracker, through a JSON file and the WTracker importer."""
    settings_ = json.loads(json.dumps(export_wtracker([tracker]).settings, ensure_ascii=False))
    imported = wtracker_from_data(settings_, "presets.json")
    (back,) = [t for t in imported.trackers if t.layout == tracker.layout]
    return back


class TestRoundTrip:
    """Importing the export gives back every field with its type, range and choices."""

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(trackers())
    def test_every_field_comes_back(self, tracker: Tracker) -> None:
        """Same layout, the fields in order, each with its type, range and choices.

        Names are not part of the law: the importer re-slugs some valid names (`a_` reads as `a`).
        """
        # The importer refuses an enum holding an empty text (not a usable choice there).
        assume(all("" not in f.choices for f in tracker.fields if isinstance(f, ChoiceField)))
        back = _read_back(tracker)
        assert [_shape(f) for f in back.fields] == [_shape(f) for f in tracker.fields]

    def test_bundled_trackers(self) -> None:
        """Every bundled tracker reads back field by field, names included."""
        for tracker in BUNDLED.values():
            back = _read_back(tracker)
            assert [f.name for f in back.fields] == [f.name for f in tracker.fields]
            assert [_shape(f) for f in back.fields] == [_shape(f) for f in tracker.fields]


class TestPresets:
    """What the presets hold, on Health (a record with a top) and Inventory (a list)."""

    def test_a_record_preset(self) -> None:
        """A record's fields are the schema's properties, with ranges, choices, meanings, defaults."""
        presets = export_wtracker([BUNDLED["health"]]).settings["schemaPresets"]
        assert list(presets) == ["health"]
        preset = presets["health"]
        assert preset["name"] == "Health"
        schema = preset["value"]
        assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
        assert schema["description"] == "Vera's condition Lower hp when Vera is hurt."
        assert schema["required"] == ["hp", "hp_max", "mood"]
        assert schema["properties"] == {
            "hp": {"type": "number", "minimum": 0, "description": "Hit points. At most hp_max."},
            "hp_max": {"type": "number", "minimum": 1, "description": "Most hit points.", "default": 30},
            "mood": {"type": "string", "enum": ["calm", "tense"], "description": "How she feels."},
        }  # fmt: skip
        assert "{{data.hp}}" in preset["html"]

    def test_a_list_preset(self) -> None:
        """A list is an array of rows keyed by name."""
        schema = export_wtracker([BUNDLED["inventory"]]).settings["schemaPresets"]["inventory"][
            "value"
        ]
        rows = schema["properties"][ROWS_KEY]
        assert schema["required"] == [ROWS_KEY]
        assert rows["type"] == "array"
        assert rows["items"]["required"] == ["name", "qty", "weight", "equipped", "notes"]
        assert rows["items"]["properties"]["weight"] == {
            "type": "number",
            "minimum": 0,
            "maximum": 500,
            "description": "Weight of one, in pounds.",
        }

    def test_what_is_left_behind_is_said(self) -> None:
        """Tops, icons, templates and changes styles are each named, per tracker and field."""
        left = export_wtracker([BUNDLED["health"], BUNDLED["stamina"]]).left_behind
        assert left == (
            "Health.hp: its top from hp_max (a JSON Schema has no limit taken from another "
            "field); written into its description, and not enforced",
            "Health: its icons (hp lucide:heart)",
            "Health: its changes style chips",
            "Stamina.stamina: its top from stamina_max (a JSON Schema has no limit taken from "
            "another field); written into its description, and not enforced",
            "Stamina: its icons (the tracker's lucide:activity, stamina lucide:zap)",
            "Stamina: its template (trackerkit macro text; the preset gets a plain HTML table)",
        )

    def test_names_get_unique_keys_and_safe_html(self) -> None:
        """Two trackers of one name get two keys; a name with markup or braces is shown as text."""
        doc = json.loads((DATA / "health.json").read_text())
        doc["name"] = "<b>{{x}}</b>"
        odd = decode_tracker(doc)
        presets = export_wtracker([odd, odd]).settings["schemaPresets"]
        assert len(presets) == 2
        first = next(iter(presets.values()))
        assert "<h4>&lt;b&gt;&#123;&#123;x&#125;&#125;&lt;/b&gt;</h4>" in first["html"]
