"""Marinara Engine game states to trackers (issue 16 item 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest
from imported_fields import field_of

from trackerkit import ImportRefusedError, decode_tracker, encode_tracker
from trackerkit.formats import import_marinara

FIXTURE = Path(__file__).parent / "fixtures" / "marinara_state.json"


class TestFixture:
    """The fixture, written from the format's documented shape and as messy as real files."""

    def test_report_lines(self) -> None:
        """Every source key has its line: exact, guessed (from what) or unmapped (why)."""
        assert [str(line) for line in import_marinara(FIXTURE).report.lines] == [
            "unmapped: id: bookkeeping of the chat (ids, locks, timestamps), not state",
            "unmapped: chatId: bookkeeping of the chat (ids, locks, timestamps), not state",
            "unmapped: messageId: bookkeeping of the chat (ids, locks, timestamps), not state",
            "unmapped: swipeIndex: bookkeeping of the chat (ids, locks, timestamps), not state",
            "exact: date -> Scene.date: text",
            "exact: time -> Scene.time: text",
            "exact: location -> Scene.location: text",
            "exact: weather -> Scene.weather: text",
            "guessed: temperature -> Scene.temperature: text, guessed from a null start value (starts empty)",
            "exact: worldCustomFields[0] -> Scene.tide: text; icon lucide:waves",
            "exact: worldCustomFields[1] -> Scene.bell_count: text; its icon is not a lucide name, so not kept",
            "exact: presentCharacters[].mood -> Present characters.mood: text column (PresentCharacter mood)",
            "exact: presentCharacters[].appearance -> Present characters.appearance: text column (PresentCharacter appearance)",
            "exact: presentCharacters[].outfit -> Present characters.outfit: text column (PresentCharacter outfit)",
            "exact: presentCharacters[].thoughts -> Present characters.thoughts: text column (PresentCharacter thoughts)",
            "exact: presentCharacters[].customFields.Loyalty -> Present characters.loyalty: text column (a custom field)",
            "exact: presentCharacters[].customFields.Debt -> Present characters.debt: text column (a custom field)",
            "exact: presentCharacters[].stats.HP.max -> Present characters.hp_max: number from 0: the top of HP (CharacterStat max)",
            "exact: presentCharacters[].stats.HP.value -> Present characters.hp: number from 0 up to the column hp_max; each row held to its own top",
            "unmapped: presentCharacters[].characterId: display or bookkeeping of the character (emoji, avatar, portrait, id), not state",
            "unmapped: presentCharacters[].emoji: display or bookkeeping of the character (emoji, avatar, portrait, id), not state",
            "unmapped: presentCharacters[].avatarPath: display or bookkeeping of the character (emoji, avatar, portrait, id), not state",
            "unmapped: presentCharacters[].portraitFocusX: display or bookkeeping of the character (emoji, avatar, portrait, id), not state",
            'unmapped: presentCharacters row "Mirela": a starting row (mood="wary", appearance="tall, scarred", outfit="oilskin coat", thoughts="He is lying.", loyalty="to the guild", hp=18, hp_max=24), not kept: a list starts with no rows; the model or a person\'s edit adds it',
            'unmapped: presentCharacters row "Old Tobin": a starting row (mood="drunk", appearance=null, outfit=null, thoughts=null, debt="40 crowns"), not kept: a list starts with no rows; the model or a person\'s edit adds it',
            'guessed: recentEvents -> Scene.recent_events: text, guessed: a list of 2 plain values joined with ", "',
            "exact: playerStats.stats[0].max -> Player.hp_max: number from 0: the top of HP (CharacterStat max)",
            "exact: playerStats.stats[0].value -> Player.hp: number from 0 up to the field hp_max (CharacterStat value); its color is not kept",
            "exact: playerStats.stats[1].max -> Player.stamina_max: number from 0: the top of Stamina (CharacterStat max)",
            "exact: playerStats.stats[1].value -> Player.stamina: number from 0 up to the field stamina_max (CharacterStat value); its color is not kept",
            "guessed: playerStats.attributes.str -> Player.str: number from 0, guessed: attribute scores have no top in the source",
            "guessed: playerStats.attributes.dex -> Player.dex: number from 0, guessed: attribute scores have no top in the source",
            "guessed: playerStats.attributes.con -> Player.con: number from 0, guessed: attribute scores have no top in the source",
            "guessed: playerStats.attributes.int -> Player.int: number from 0, guessed: attribute scores have no top in the source",
            "guessed: playerStats.attributes.wis -> Player.wis: number from 0, guessed: attribute scores have no top in the source",
            "guessed: playerStats.attributes.cha -> Player.cha: number from 0, guessed: attribute scores have no top in the source",
            "guessed: playerStats.skills.Lockpicking -> Player.lockpicking: number from 0, guessed: skill scores have no top in the source",
            "guessed: playerStats.skills.Sailing -> Player.sailing: number from 0, guessed: skill scores have no top in the source",
            "unmapped: playerStats.skills.Bribery: the skill 'Bribery' is not a number",
            "exact: playerStats.inventory[].description -> Inventory.description: text column (InventoryItem description)",
            "exact: playerStats.inventory[].quantity -> Inventory.quantity: number from 0 (InventoryItem quantity); a new row starts at 1 (the file gives no start)",
            'exact: playerStats.inventory[].location -> Inventory.location: text column (InventoryItem location); a new row starts at "on_person", the first location Marinara names (the file gives no start)',
            'unmapped: playerStats.inventory row "Rope": a starting row (description="50 ft of hemp", quantity=1, location="on_person"), not kept: a list starts with no rows; the model or a person\'s edit adds it',
            'unmapped: playerStats.inventory row "Crowns": a starting row (description="coin", quantity=40, location="stored"), not kept: a list starts with no rows; the model or a person\'s edit adds it',
            "exact: playerStats.activeQuests[].currentStage -> Quests.current_stage: number from 0 (QuestProgress currentStage)",
            "guessed: playerStats.activeQuests[].objectives -> Quests.objectives: text, guessed: the objectives [{text, completed}] kept as one text (QuestProgress objectives)",
            "exact: playerStats.activeQuests[].completed -> Quests.completed: boolean (QuestProgress completed)",
            "unmapped: playerStats.activeQuests[].questEntryId: a link to a lorebook entry, which trackerkit does not hold",
            "unmapped: playerStats.activeQuests row \"Find the Eel's ledger\": a starting row (current_stage=1, objectives=a list, completed=false), not kept: a list starts with no rows; the model or a person's edit adds it",
            "exact: playerStats.status -> Player.status: text",
            "exact: playerStats.customTrackerFields[0] -> Player.reputation: text",
            "exact: playerStats.inventoryTrackerCurrencies[].qty -> Currencies.qty: number from 1 (InventoryTrackerItem qty); a new row starts at 1, as Marinara reads a qty left out",
            'unmapped: playerStats.inventoryTrackerCurrencies row "crowns": a starting row (qty=40), not kept: a list starts with no rows; the model or a person\'s edit adds it',
            "exact: playerStats.inventoryTrackerEquipped[].qty -> Equipped.qty: number from 1 (InventoryTrackerItem qty); a new row starts at 1, as Marinara reads a qty left out",
            'unmapped: playerStats.inventoryTrackerEquipped row "Cutlass": a starting row (qty=1), not kept: a list starts with no rows; the model or a person\'s edit adds it',
            "guessed: playerStats.inventoryTrackerCarried[].qty -> Carried.qty: number from 1; not in the file: made because Marinara's InventoryTrackerItem has qty; a new row starts at 1, as Marinara reads a qty left out",
            "exact: personaStats[0].max -> Persona stats.satiety_max: number from 0: the top of Satiety (CharacterStat max)",
            "exact: personaStats[0].value -> Persona stats.satiety: number from 0 up to the field satiety_max (CharacterStat value); its color is not kept",
            "unmapped: committed: bookkeeping of the chat (ids, locks, timestamps), not state",
            "unmapped: manualOverrides: bookkeeping of the chat (ids, locks, timestamps), not state",
            "unmapped: fieldLocks: bookkeeping of the chat (ids, locks, timestamps), not state",
            "unmapped: hiddenTrackerFields: bookkeeping of the chat (ids, locks, timestamps), not state",
            "unmapped: createdAt: bookkeeping of the chat (ids, locks, timestamps), not state",
        ]

    def test_every_tracker_passes_the_strict_decoder(self) -> None:
        """TR-12: each tracker decodes from its own encoding; links follow the trackers."""
        imported = import_marinara(FIXTURE)
        for tracker in imported.trackers:
            assert decode_tracker(encode_tracker(tracker)) == tracker
        assert imported.scene_links == tuple(t.id for t in imported.trackers)

    def test_stat_has_a_topfield_of(self) -> None:
        """CharacterStat{name, value, max} is a number with its top in a field of its own (TR-5)."""
        imported = import_marinara(FIXTURE)
        assert field_of(imported, "Player", "hp") == {
            "name": "hp",
            "description": "HP",
            "type": "number",
            "min": 0,
            "maxField": "hp_max",
            "default": 30,
        }
        assert field_of(imported, "Player", "hp_max")["default"] == 40

    def test_inventory_item_is_a_keyed_list(self) -> None:
        """InventoryItem{name, description, quantity, location} is a keyed list."""
        imported = import_marinara(FIXTURE)
        inventory = next(t for t in imported.trackers if t.name == "Inventory")
        assert (inventory.layout, [f.name for f in inventory.fields]) == (
            "list",
            ["description", "quantity", "location"],
        )

    def test_world_field_icon(self) -> None:
        """A world custom field's lucide icon is kept as the field's icon."""
        assert field_of(import_marinara(FIXTURE), "Scene", "tide")["icon"] == "lucide:waves"


class TestWhatTheFileSays:
    """The report says what was read from the file, and nothing it does not hold (a trial: a
    state with both items at "pack" was told the location starts "on_person" and then "pack",
    and columns no character held were reported as exact)."""

    STATE: ClassVar[dict[str, object]] = {
        "id": "gs1",
        "date": "Day 3",
        "playerStats": {
            "inventory": [
                {"name": "Rope", "description": "hemp", "quantity": 2, "location": "pack"},
                {"name": "Lamp", "description": "oil", "quantity": 1, "location": "pack"},
            ],
            "activeQuests": [{"name": "Find the key", "completed": False}],
        },
        "presentCharacters": [{"name": "Emma", "stats": [{"name": "HP", "value": 10, "max": 10}]}],
    }

    def _lines(self) -> list[str]:
        return [
            str(line) for line in import_marinara("s.json", json.dumps(self.STATE)).report.lines
        ]

    def test_a_start_the_rows_agree_on_is_the_one_start_said(self) -> None:
        """Both rows at "pack": the location line names no other start, and the column starts
        at "pack"; the quantities differ, so that column's own start is still said."""
        lines = self._lines()
        location = [line for line in lines if "Inventory.location" in line]
        assert location == [
            "exact: playerStats.inventory[].location -> Inventory.location: text column "
            "(InventoryItem location)",
            "guessed: playerStats.inventory (starting rows).location -> Inventory.location: a new "
            'row starts at "pack", guessed: all 2 starting rows hold it',
        ]
        assert not any("on_person" in line for line in lines)
        assert (
            field_of(import_marinara("s.json", json.dumps(self.STATE)), "Inventory", "location")[
                "default"
            ]
            == "pack"
        )
        assert (
            "exact: playerStats.inventory[].quantity -> Inventory.quantity: number from 0 "
            "(InventoryItem quantity); a new row starts at 1 (the file gives no start)"
        ) in lines

    def test_keys_the_file_lacks_are_said_to_be_not_in_it(self) -> None:
        """No character holds mood, appearance, outfit or thoughts: their columns are made (the
        model fills them) but guessed and said to be not in the file; no quest has a
        questEntryId or objectives, so none is reported as read."""
        lines = self._lines()
        for key in ("mood", "appearance", "outfit", "thoughts"):
            assert (
                f"guessed: presentCharacters[].{key} -> Present characters.{key}: text column; "
                f"not in the file: made because Marinara's PresentCharacter has {key}"
            ) in lines
        assert not any(line.startswith("exact: presentCharacters[].mood") for line in lines)
        assert not any("questEntryId" in line for line in lines)
        assert any(
            line.startswith("guessed: playerStats.activeQuests[].objectives")
            and "not in the file" in line
            for line in lines
        )
        assert (
            "exact: playerStats.activeQuests[].completed -> Quests.completed: boolean "
            "(QuestProgress completed)"
        ) in lines


class TestWhatIsLostIsSaid:
    """A stat's start or top that cannot be kept as written is named, and its line is not
    exact (a trial: `{"value": "12", "max": "20"}` started 0 with top 0, `value: true` was
    dropped and `value: 50, max: 10` held to 10, each under an exact line)."""

    @staticmethod
    def _lines(stat: dict[str, object]) -> list[str]:
        text = json.dumps({"playerStats": {"stats": [{"name": "Mana", **stat}]}})
        imported = import_marinara("state.json", text)
        return [str(line) for line in imported.report.lines if "Player." in str(line)]

    def test_numbers_written_as_text(self) -> None:
        assert self._lines({"value": "12", "max": "20"}) == [
            "guessed: playerStats.stats[0].max -> Player.mana_max: number from 0: the top of "
            'Mana (CharacterStat max); not kept: its max the text "20" (not a number), so the '
            "top starts at 0",
            "guessed: playerStats.stats[0].value -> Player.mana: number from 0 up to the field "
            'mana_max (CharacterStat value); not kept: its value the text "12" (not a number), '
            "so it starts at 0",
        ]

    def test_a_flag_value(self) -> None:
        assert self._lines({"value": True, "max": 1})[1] == (
            "guessed: playerStats.stats[0].value -> Player.mana: number from 0 up to the field "
            "mana_max (CharacterStat value); not kept: its value true (not a number), so it "
            "starts at 0"
        )

    def test_a_value_above_its_max(self) -> None:
        text = json.dumps({"playerStats": {"stats": [{"name": "Mana", "value": 50, "max": 10}]}})
        imported = import_marinara("state.json", text)
        assert field_of(imported, "Player", "mana")["default"] == 10
        assert [str(line) for line in imported.report.lines if "Player." in str(line)][-1] == (
            "guessed: playerStats.stats[0].value -> Player.mana: number from 0 up to the field "
            "mana_max (CharacterStat value); its value 50 lies above its top 10, so it starts "
            "at 10"
        )

    def test_a_negative_value(self) -> None:
        assert (
            "not kept: its value -3 (below 0), so it starts at 0"
            in self._lines({"value": -3, "max": 10})[1]
        )

    def test_what_fits_stays_exact(self) -> None:
        assert [line.split(":")[0] for line in self._lines({"value": 5, "max": 10})] == [
            "exact",
            "exact",
        ]

    def test_a_custom_field_that_is_no_text(self) -> None:
        text = json.dumps(
            {
                "playerStats": {
                    "customTrackerFields": [
                        {"name": "Day", "value": 3},
                        {"name": "Tags", "value": ["a"]},
                    ]
                }
            }
        )
        imported = import_marinara("state.json", text)
        assert field_of(imported, "Player", "day")["default"] == "3"
        assert [str(line) for line in imported.report.lines if "Player." in str(line)] == [
            "guessed: playerStats.customTrackerFields[0] -> Player.day: text, guessed: its value "
            "3 kept as text",
            "guessed: playerStats.customTrackerFields[1] -> Player.tags: text; not kept: its "
            "value a list (not a plain value), so it starts empty",
        ]


class TestRefused:
    """What is no game state is refused, naming the file."""

    def test_refused(self) -> None:
        """One sentence with the file's name."""
        with pytest.raises(ImportRefusedError) as caught:
            import_marinara("state.json", '{"hello": 1}')
        assert str(caught.value) == (
            "state.json: is not a Marinara Engine game state: no scene fields, playerStats, "
            "personaStats or presentCharacters"
        )


@pytest.mark.parametrize("big", [10**30, 1e300])
def test_a_number_too_large_is_said_to_be_one(big: float) -> None:
    """Found when tried: a max of 10**30 was called "not a number"; it is one, past 2^53."""
    lines = TestWhatIsLostIsSaid._lines({"value": 5, "max": big})
    lost = [line for line in lines if "not kept" in line]
    assert lost
    assert all("(not a finite number within 2^53)" in line for line in lost)
