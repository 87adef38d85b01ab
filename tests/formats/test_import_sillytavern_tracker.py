"""SillyTavern-Tracker trackerDef presets to trackers (issue 16 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from imported_fields import field_of

from trackerkit import ImportRefusedError, decode_tracker, encode_tracker
from trackerkit.formats import import_sillytavern_tracker
from trackerkit.formats.sillytavern_tracker import sillytavern_tracker_from_data

FIXTURE = Path(__file__).parent / "fixtures" / "st_tracker_preset.json"


class TestFixture:
    """The fixture, written from the format's documented shape and as messy as real files."""

    def test_report_lines(self) -> None:
        """Every source key has its line: exact, guessed (from what) or unmapped (why)."""
        assert [str(line) for line in import_sillytavern_tracker(FIXTURE).report.lines] == [
            "exact: presetName -> Default-SingleStage (edited): the preset's name names the record of its root fields",
            "unmapped: generateContextTemplate: a preset setting (prompt, template or option), not a field",
            "unmapped: trackerFormat: a preset setting (prompt, template or option), not a field",
            "unmapped: mesTrackerTemplate: a preset setting (prompt, template or option), not a field",
            'exact: Time -> Default-SingleStage (edited).time: text; examples "09:15:30; 10/16/2024 (Wedne..." | "18:45:50; 10/16/2024 (Wedne..." | "15:10:20; 10/16/2024 (Wedne..."; starts empty: its default "<Updated time if changed>" is a placeholder for the model',
            'exact: Location -> Default-SingleStage (edited).location: text; examples "Food court, Mall of America..." | "Conference Room B, Building..." | "Hotel Room 512, Grand Hyatt..."; presence STATIC: the source never updates it, trackerkit lets the model update it; starts empty: its default "<Updated location if changed>" is a placeholder for the model',
            'exact: Topics.PrimaryTopic -> Topics.primary_topic: text; examples "Presentation" | "Dining" | "Negotiation"; starts empty: its default "<Updated primary topic if changed>" is a placeholder for the model',
            'exact: Topics.EmotionalTone -> Topics.emotional_tone: text; examples "Tense" | "Relaxed" | "Curious"; presence EPHEMERAL: the source keeps it for one message, trackerkit keeps it; starts empty: its default "<Updated tone if changed>" is a placeholder for the model',
            'guessed: CharactersPresent -> Default-SingleStage (edited).characters_present: text, guessed: an ARRAY kept as one text, items joined with ", "; examples "Emma Thompson, James Miller" | "Mark Davis" | "Sarah Johnson, Tom Brown"; starts empty: its default "<List of characters present if changed>" is a placeholder for the model',
            "exact: Characters -> Characters: keyed list: one row per key (FOR_EACH_OBJECT)",
            'exact: Characters.Hair -> Characters.hair: text; examples "Shoulder-length blonde hair..." | "Short black hair, neatly co..." | "Long curly brown hair, pull..."; starts empty: its default "<Updated hair description if changed>" is a placeholder for the model',
            'exact: Characters.Outfit -> Characters.outfit: text; examples "Navy blazer, white blouse, ..." | "Dark grey suit, light blue ..." | "Cream-colored sweater, dark..."; starts empty: its default "<Updated outfit if changed>" is a placeholder for the model',
            'exact: Characters.StateOfDress -> Characters.state_of_dress: text; examples "Professionally dressed, nea..." | "Casually dressed, slightly ..." | "Hair tousled, shirt untucked"; starts empty: its default "<Current state of dress if no update ..." is a placeholder for the model',
            'exact: Characters.PostureAndInteraction -> Characters.posture_and_interaction: text; examples "Standing at the podium" | "Sitting at the table" | "Leaning against the wall"; starts empty: its default "<Current posture and interaction if n..." is a placeholder for the model',
            'guessed: Characters.Accessories -> Characters.accessories: text, guessed: an ARRAY kept as one text, items joined with ", "; examples "Watch" | "" | "Umbrella, Scarf"',
            'exact: Characters.Mood.Name -> Characters.mood_name: text; flattened as "Mood.Name"; examples "calm" | "wary" | "angry"',
            "unmapped: Characters.Secrets: a FOR_EACH_OBJECT inside an object or row: a field cannot hold rows of its own",
            'unmapped: Characters.defaultValue: a start "<Character Name>" for the whole list; a row starts from its columns\' defaults',
            "guessed: Scars -> Scars: keyed list: one row per key (FOR_EACH_ARRAY)",
            'guessed: Scars -> Scars.items: text, guessed: each key\'s array kept as one text, items joined with ", "',
            'guessed: Items.name -> Items: keyed list (ARRAY_OBJECT): rows keyed by the sub-field "name"',
            'exact: Items.Owner -> Items.owner: text; examples "" | "" | ""',
            'unmapped: Weather: its type "NUMBER" is none SillyTavern-Tracker has (ARRAY, ARRAY_OBJECT, FOR_EACH_ARRAY, FOR_EACH_OBJECT, OBJECT, STRING)',
        ]

    def test_every_tracker_passes_the_strict_decoder(self) -> None:
        """TR-12: each tracker decodes from its own encoding; links follow the trackers."""
        imported = import_sillytavern_tracker(FIXTURE)
        for tracker in imported.trackers:
            assert decode_tracker(encode_tracker(tracker)) == tracker
        assert imported.scene_links == tuple(t.id for t in imported.trackers)

    def test_trackers(self) -> None:
        """STRING and ARRAY at the root make one record; OBJECT a record; FOR_EACH a keyed list."""
        imported = import_sillytavern_tracker(FIXTURE)
        assert [(t.name, t.layout, [f.name for f in t.fields]) for t in imported.trackers] == [
            ("Default-SingleStage (edited)", "record", ["time", "location", "characters_present"]),
            ("Topics", "record", ["primary_topic", "emotional_tone"]),
            (
                "Characters",
                "list",
                [
                    "hair",
                    "outfit",
                    "state_of_dress",
                    "posture_and_interaction",
                    "accessories",
                    "mood_name",
                ],
            ),
            ("Scars", "list", ["items"]),
            ("Items", "list", ["owner"]),
        ]

    def test_prompt_is_the_meaning_and_a_placeholder_no_start(self) -> None:
        """`StateOfDress` keeps its key in the meaning, its prompt after it. Its defaultValue,
        `<Current state of dress if no update is needed>`, is the shape the source shows the
        model, not a value (found when tried: the model's block showed it as the state): no start."""
        field = field_of(import_sillytavern_tracker(FIXTURE), "Characters", "state_of_dress")
        assert field == {
            "name": "state_of_dress",
            "description": "StateOfDress: Describe how put-together or disheveled the character appears, including removed clothing.",
            "type": "text",
        }

    @pytest.mark.parametrize(
        ("default", "start"),
        [
            ("Noon", "Noon"),
            (["Emma", "Mark"], "Emma, Mark"),
            ("<Updated time if changed>", None),
            (["<List of characters present if changed>"], None),
            ("<b>bold</b> text", "<b>bold</b> text"),  # more than one placeholder: a value
        ],
    )
    def test_a_default_is_the_start_unless_a_placeholder(
        self, default: object, start: object
    ) -> None:
        """A value starts the field (an ARRAY's list joined); one `<...>` placeholder does not."""
        definition = {"field-0": {"name": "Time", "type": "ARRAY", "defaultValue": default}}
        imported = sillytavern_tracker_from_data(definition, "def.json")
        field = imported.trackers[0].fields[0].model_dump(exclude_none=True)
        assert field.get("default") == start


class TestRefused:
    """What is no trackerDef is refused, naming the file."""

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            ('["a"]', "is not a SillyTavern-Tracker trackerDef or preset (an object)"),
            (
                '{"trackerDef": []}',
                'holds no trackerDef: a map of fields such as "field-0" with a name and a type',
            ),
            ("{}", 'holds no trackerDef: a map of fields such as "field-0" with a name and a type'),
        ],
        ids=["list", "def-is-list", "empty"],
    )
    def test_refused(self, text: str, reason: str) -> None:
        """One sentence with the file's name."""
        with pytest.raises(ImportRefusedError) as caught:
            import_sillytavern_tracker("preset.json", text)
        assert str(caught.value) == f"preset.json: {reason}"
