"""RPG Companion trackerConfig to trackers (issue 16 item 1)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from imported_fields import field_of

from trackerkit import ImportRefusedError, decode_tracker, encode_tracker
from trackerkit.formats import Imported, import_rpg_companion

FIXTURE = Path(__file__).parent / "fixtures" / "rpg_companion_settings.json"


class TestFixture:
    """The fixture, written from the format's documented shape and as messy as real files."""

    def test_report_lines(self) -> None:
        """Every source key has its line: exact, guessed (from what) or unmapped (why)."""
        assert [str(line) for line in import_rpg_companion(FIXTURE).report.lines] == [
            "unmapped: enabled: an RPG Companion setting outside trackerConfig",
            "unmapped: theme: an RPG Companion setting outside trackerConfig",
            "exact: trackerConfig.userStats.customStats[0] -> User stats.health: number from 0 to maxValue 100; persistInHistory not kept (trackerkit keeps every value's history); starts full at 100, as RPG Companion starts a stat",
            "exact: trackerConfig.userStats.customStats[1] -> User stats.satiety: number from 0 to maxValue 100; persistInHistory not kept (trackerkit keeps every value's history); starts full at 100, as RPG Companion starts a stat",
            "exact: trackerConfig.userStats.customStats[2] -> User stats.arousal: number from 0 to maxValue 100; persistInHistory not kept (trackerkit keeps every value's history); starts at 0, as RPG Companion starts arousal; disabled in the source, imported anyway",
            'guessed: trackerConfig.userStats.customStats[3] -> User stats.mana: number from 0, no top; persistInHistory not kept (trackerkit keeps every value\'s history); not kept: its maxValue the text "lots" (not a number)',
            "unmapped: trackerConfig.userStats.statsDisplayMode: a display setting of RPG Companion's panel; trackerkit shows fields its own way",
            "unmapped: trackerConfig.userStats.showRPGAttributes: a display setting of RPG Companion's panel; trackerkit shows fields its own way",
            "guessed: trackerConfig.rpgAttributes.attributes[0] -> User stats.str: number from 0, guessed: an attribute score has no top in the source",
            "guessed: trackerConfig.rpgAttributes.attributes[1] -> User stats.dex: number from 0, guessed: an attribute score has no top in the source",
            "guessed: trackerConfig.rpgAttributes.attributes[2] -> User stats.cha: number from 0, guessed: an attribute score has no top in the source; disabled in the source, imported anyway",
            "guessed: trackerConfig.statusSection.showMoodEmoji -> User stats.mood: text, guessed: the mood the status section shows",
            "exact: trackerConfig.statusSection.customFields[0] -> User stats.conditions: text",
            "exact: trackerConfig.statusSection.customFields[1] -> User stats.injuries: text",
            "unmapped: trackerConfig.infoBox.collapsed: a display setting of RPG Companion's panel; trackerkit shows fields its own way",
            'exact: trackerConfig.infoBox.widgets.date -> Scene.date: text; format "Weekday, Month, Year" not kept (a display setting; the text holds what the model writes)',
            "exact: trackerConfig.infoBox.widgets.weather -> Scene.weather: text",
            'exact: trackerConfig.infoBox.widgets.temperature -> Scene.temperature: text; unit "C" not kept (a display setting; the text holds what the model writes)',
            "exact: trackerConfig.infoBox.widgets.time -> Scene.time: text",
            "exact: trackerConfig.infoBox.widgets.location -> Scene.location: text",
            "guessed: trackerConfig.infoBox.widgets.recentEvents -> Scene.recent_events: text, guessed: the recent events kept as one text; disabled in the source, imported anyway",
            "unmapped: trackerConfig.infoBox.widgets.moonPhase: an info-box widget trackerkit does not know",
            "exact: trackerConfig.presentCharacters.relationships -> Present characters.relationship: choice of Lover, Friend, Ally, Enemy, Neutral, Rival",
            "exact: trackerConfig.presentCharacters.customFields[0] -> Present characters.appearance: text column",
            "exact: trackerConfig.presentCharacters.customFields[1] -> Present characters.demeanor: text column",
            "exact: trackerConfig.presentCharacters.thoughts -> Present characters.thoughts: text column",
            "unmapped: trackerConfig.presentCharacters.showEmoji: a display setting of RPG Companion's panel; trackerkit shows fields its own way",
            "exact: trackerConfig.inventory.onPerson -> Inventory.qty: keyed list on person: number from 0; a new row starts at 1 (the file gives no start)",
            "exact: trackerConfig.inventory.stored -> Stored items.qty: keyed list stored: number from 0; a new row starts at 1 (the file gives no start)",
            "guessed: trackerConfig.inventory.stored -> Stored items.place: text, guessed: the place each item is stored at (stored is a map of places)",
            'unmapped: trackerConfig.inventory.showCurrency: a display setting of RPG Companion\'s panel; trackerkit shows fields its own way ("showCurrency")',
        ]

    def test_every_tracker_passes_the_strict_decoder(self) -> None:
        """TR-12: each tracker decodes from its own encoding; links follow the trackers."""
        imported = import_rpg_companion(FIXTURE)
        for tracker in imported.trackers:
            assert decode_tracker(encode_tracker(tracker)) == tracker
        assert imported.scene_links == tuple(t.id for t in imported.trackers)

    def test_stats_relationships_and_inventory(self) -> None:
        """A stat is a number from 0 to maxValue, full at the start; relationships a choice; onPerson
        a list with qty."""
        imported = import_rpg_companion(FIXTURE)
        assert field_of(imported, "User stats", "health") == {
            "name": "health",
            "description": "Health",
            "type": "number",
            "min": 0,
            "max": 100,
            "default": 100,
        }
        relationship = field_of(imported, "Present characters", "relationship")
        assert relationship["choices"] == ["Lover", "Friend", "Ally", "Enemy", "Neutral", "Rival"]
        inventory = next(t for t in imported.trackers if t.name == "Inventory")
        assert (inventory.layout, [f.name for f in inventory.fields]) == ("list", ["qty"])

    def test_a_stat_is_named_by_its_id(self) -> None:
        """Found when tried: the stat `mana` named "Mana ✨" became `mana_sparkles`, while the
        model writes stats by id (`{"id": "mana", "value": 80}`). The id names the field; the
        display name is its meaning."""
        mana = field_of(import_rpg_companion(FIXTURE), "User stats", "mana")
        assert (mana["name"], mana["description"]) == ("mana", "Mana ✨")

    def test_bare_tracker_config(self) -> None:
        """The trackerConfig object on its own reads the same way."""
        text = '{"userStats": {"customStats": [{"id": "hp", "name": "HP", "maxValue": 30}]}}'
        imported = import_rpg_companion("config.json", text)
        assert [str(line) for line in imported.report.lines] == [
            "exact: userStats.customStats[0] -> User stats.hp: number from 0 to maxValue 30; "
            "starts full at 30, as RPG Companion starts a stat",
        ]


def _stats(*stats: dict[str, object]) -> Imported:
    return import_rpg_companion(
        "rpg.json", orjson.dumps({"userStats": {"customStats": list(stats)}}).decode()
    )


class TestStatStarts:
    """A stat starts where RPG Companion starts it: full (a stat added in its editor is 100 of
    maxValue 100), arousal at 0 (its own default), and at the file's value when that fits."""

    def test_a_stat_starts_full(self) -> None:
        """Found when tried: HP with maxValue 30 started at 0, an empty bar the tool never shows
        at the start; it starts at 30, and the line says why."""
        imported = _stats({"id": "hp", "name": "HP", "maxValue": 30})
        assert field_of(imported, "User stats", "hp")["default"] == 30
        assert [str(line) for line in imported.report.lines] == [
            "exact: userStats.customStats[0] -> User stats.hp: number from 0 to maxValue 30; "
            "starts full at 30, as RPG Companion starts a stat",
        ]

    def test_arousal_starts_at_zero(self) -> None:
        """Arousal is the one stat RPG Companion starts empty; the line says so."""
        imported = _stats({"id": "arousal", "name": "Arousal", "maxValue": 100})
        assert "default" not in field_of(imported, "User stats", "arousal")
        assert [str(line) for line in imported.report.lines] == [
            "exact: userStats.customStats[0] -> User stats.arousal: number from 0 to maxValue "
            "100; starts at 0, as RPG Companion starts arousal",
        ]

    def test_a_value_above_the_top_starts_at_the_top(self) -> None:
        """TR-18: a value past the top is held at the top, and the line says so."""
        imported = _stats({"id": "mp", "maxValue": 50, "value": 90})
        assert field_of(imported, "User stats", "mp")["default"] == 50
        assert [str(line) for line in imported.report.lines] == [
            "guessed: userStats.customStats[0] -> User stats.mp: number from 0 to maxValue 50; "
            "its value 90 lies above its maxValue 50, so it starts at 50",
        ]

    @pytest.mark.parametrize(
        ("stat", "start", "said"),
        [
            (
                {"id": "health", "maxValue": 100, "value": -5},
                0,
                "number from 0 to maxValue 100; its value -5 lies below 0, so it starts at 0",
            ),
            (
                {"id": "xp", "value": -5},
                0,
                "number from 0, no top (the file gives no maxValue); its value -5 lies below 0, so "
                "it starts at 0",
            ),
            (
                {"id": "arousal", "maxValue": 100, "value": 150},
                100,
                "number from 0 to maxValue 100; its value 150 lies above its maxValue 100, so it "
                "starts at 100",
            ),
            (
                {"id": "health", "maxValue": 100, "value": 1e16},
                100,
                "number from 0 to maxValue 100; its value 1e+16 lies above its maxValue 100, so "
                "it starts at 100",
            ),
            (
                {"id": "health", "maxValue": 100, "value": -1e16},
                0,
                "number from 0 to maxValue 100; its value -1e+16 lies below 0, so it starts at 0",
            ),
        ],
        ids=["below-0", "below-0-no-top", "arousal-above-the-top", "past-2^53", "below-2^53"],
    )
    def test_a_value_outside_the_range_is_held_inside(
        self, stat: dict[str, object], start: int, said: str
    ) -> None:
        """Found by a trial: health -5 of 100 started full at 100, the opposite of a depleted
        stat. TR-18: a value outside 0..maxValue is held inside it, at 0 or at the top, as RPG
        Companion holds what it reads, and the line says so."""
        imported = _stats(stat)
        assert field_of(imported, "User stats", str(stat["id"]))["default"] == start
        assert [str(line) for line in imported.report.lines] == [
            f"guessed: userStats.customStats[0] -> User stats.{stat['id']}: {said}"
        ]

    @pytest.mark.parametrize(
        ("value", "start", "said"),
        [
            ("50", 50, 'starts at its value 50 (the text "50" read as a number)'),
            (" 12.5 ", 12.5, 'starts at its value 12.5 (the text " 12.5 " read as a number)'),
            (
                "-5",
                0,
                'its value -5 (the text "-5" read as a number) lies below 0, so it starts at 0',
            ),
            (
                "150",
                100,
                'its value 150 (the text "150" read as a number) lies above its maxValue 100, '
                "so it starts at 100",
            ),
        ],
        ids=["fits", "fraction", "below-0", "above-the-top"],
    )
    def test_a_number_written_as_text_is_read_as_that_number(
        self, value: str, start: float, said: str
    ) -> None:
        """Found by a trial: the text "50" started health full at 100. A text that is plainly a
        number is the number its author wrote (RPG Companion prints it as 50% and fills the bar
        by it), held inside the range like any value, and the line says it was read from text."""
        imported = _stats({"id": "health", "maxValue": 100, "value": value})
        assert field_of(imported, "User stats", "health")["default"] == start
        assert [str(line) for line in imported.report.lines] == [
            f"guessed: userStats.customStats[0] -> User stats.health: number from 0 to maxValue "
            f"100; {said}"
        ]

    @pytest.mark.parametrize(
        ("value", "why"),
        [
            ("50%", 'its value the text "50%" (not a number)'),
            ("1e3", 'its value the text "1e3" (not a number)'),
            ("lots", 'its value the text "lots" (not a number)'),
            (True, "its value true (not a number)"),
        ],
        ids=["percent", "exponent", "word", "boolean"],
    )
    def test_a_value_that_is_no_number_leaves_it_full(self, value: object, why: str) -> None:
        """Only a plain numeral is read from text; anything else is said to be dropped, and the
        stat starts where RPG Companion starts it (full)."""
        imported = _stats({"id": "health", "maxValue": 100, "value": value})
        assert field_of(imported, "User stats", "health")["default"] == 100
        assert [str(line) for line in imported.report.lines] == [
            "guessed: userStats.customStats[0] -> User stats.health: number from 0 to maxValue "
            f"100; starts full at 100, as RPG Companion starts a stat; not kept: {why}"
        ]

    def test_past_2_53_with_no_top_is_not_kept(self) -> None:
        """With no top, nothing holds 1e16 inside the range: it is said not kept, in the words
        every importer uses for it, and the stat starts at 0."""
        imported = _stats({"id": "xp", "value": 1e16})
        assert "default" not in field_of(imported, "User stats", "xp")
        assert [str(line) for line in imported.report.lines] == [
            "guessed: userStats.customStats[0] -> User stats.xp: number from 0, no top (the "
            "file gives no maxValue); not kept: its value 1e+16 (not a finite number within 2^53)"
        ]

    def test_no_top_starts_at_zero(self) -> None:
        """With no top there is no full: the stat starts at 0, as before."""
        imported = _stats({"id": "xp", "name": "XP"})
        assert "default" not in field_of(imported, "User stats", "xp")


class TestRefused:
    """What holds no trackerConfig is refused, naming the file."""

    def test_refused(self) -> None:
        """One sentence with the file's name."""
        with pytest.raises(ImportRefusedError) as caught:
            import_rpg_companion("rpg.json", '{"trackerConfig": 3}')
        assert str(caught.value) == (
            "rpg.json: is not RPG Companion settings: no trackerConfig with userStats, infoBox, "
            "presentCharacters or inventory"
        )
