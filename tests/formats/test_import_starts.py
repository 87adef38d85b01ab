"""Starting values and rows: what a tracker can hold is taken, every row is reported.

A record's starting values become its fields' defaults (exact). A list holds no rows (TR-19: it
starts empty and a new row starts from the fields' defaults), so a column its starting rows agree
on (two or more rows, a value that fits) starts there, marked guessed; each row is reported on its
own line with its values.
"""

from __future__ import annotations

from typing import Any, ClassVar

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from imported_fields import field_of

from trackerkit.formats import (
    Imported,
    import_marinara,
    import_mvu,
    import_rpg_companion,
    import_sillytavern_tracker,
)
from trackerkit.formats.imported import quoted_row


def _lines(imported: Imported, *starts: str) -> list[str]:
    return [str(line) for line in imported.report.lines if str(line).startswith(starts)]


class TestMvu:
    """An extensible object's entries."""

    SOURCE: ClassVar[dict[str, Any]] = {
        "同伴": {
            "$meta": {"extensible": True},
            "老周": {"关系": "朋友", "好感": [10, "[0,100]"], "在场": True},
            "阿绿": {"关系": "朋友", "好感": [40, "[0,100]"], "在场": True},
            "小白": {"关系": "朋友", "好感": [40, "[0,100]"], "在场": True},
        }
    }

    def test_agreeing_columns_start_there(self) -> None:
        """关系 and 在场 agree on every row: guessed starts; 好感 differs: no start."""
        imported = import_mvu("li.json", orjson.dumps(self.SOURCE).decode())
        assert field_of(imported, "同伴", "guan_xi").get("default") == "朋友"
        assert field_of(imported, "同伴", "zai_chang").get("default") is True
        assert "default" not in field_of(imported, "同伴", "hao_gan")
        assert _lines(imported, "guessed: 同伴 (starting rows)", "unmapped: 同伴 row") == [
            'guessed: 同伴 (starting rows).关系 -> 同伴.guan_xi: a new row starts at "朋友", '
            "guessed: all 3 starting rows hold it",
            "guessed: 同伴 (starting rows).在场 -> 同伴.zai_chang: a new row starts at true, "
            "guessed: all 3 starting rows hold it",
            *(
                f'unmapped: 同伴 row "{row}": a starting row (guan_xi="朋友", hao_gan={n}, '
                "zai_chang=true), not kept: a list starts with no rows; the model or a "
                "person's edit adds it"
                for row, n in (("老周", 10), ("阿绿", 40), ("小白", 40))
            ),
        ]

    def test_one_row_is_no_evidence(self) -> None:
        """A single starting row says what that row holds, not what every row starts with."""
        source = {"任务": {"$meta": {"extensible": True}, "找钥匙": {"状态": "进行中"}}}
        imported = import_mvu("q.json", orjson.dumps(source).decode())
        assert "default" not in field_of(imported, "任务", "zhuang_tai")
        assert len(_lines(imported, "unmapped: 任务 row")) == 1

    def test_rows_agree_by_the_one_equality(self) -> None:
        """Rows holding 6 and 6.0 agree (the same number, as `same_value` has it); a flag never
        agrees with a number."""
        same = {"背包": {"$meta": {"extensible": True}, "J-35": 6, "绷带": 6.0}}
        imported = import_mvu("bag.json", orjson.dumps(same).decode())
        assert field_of(imported, "背包", "quantity")["default"] == 6
        apart = {"同伴": {"$meta": {"extensible": True}, "甲": {"x": 1}, "乙": {"x": True}}}
        imported = import_mvu("mixed.json", orjson.dumps(apart).decode())
        assert "default" not in (field_of(imported, "同伴", "x") or {})

    def test_quantities(self) -> None:
        """Entries mapping a key to a number: each row's quantity is reported."""
        source = {"背包": {"$meta": {"extensible": True}, "J-35": 6, "绷带": 6}}
        imported = import_mvu("bag.json", orjson.dumps(source).decode())
        assert field_of(imported, "背包", "quantity")["default"] == 6
        assert _lines(imported, "unmapped: 背包 row")[0].startswith(
            'unmapped: 背包 row "J-35": a starting row (quantity=6), not kept'
        )


class TestRpgCompanion:
    """A stat's value is its start (exact); inventory items are rows."""

    CONFIG: ClassVar[dict[str, Any]] = {
        "trackerConfig": {
            "userStats": {
                "customStats": [
                    {"id": "health", "name": "Health", "maxValue": 100, "value": 80},
                    {"id": "mana", "name": "Mana", "maxValue": 50, "value": 90},
                ]
            },
            "inventory": {
                "onPerson": [{"name": "Rope", "quantity": 2}, {"name": "Torch", "quantity": 2}],
                "stored": {"Ship": [{"name": "Crate", "quantity": 3}, "Sail"]},
            },
        }
    }

    def test_stat_value_is_the_start(self) -> None:
        """80 fits 0..100 and is kept; 90 is past Mana's 50, so Mana starts at 50 (TR-18)."""
        imported = import_rpg_companion("rpg.json", orjson.dumps(self.CONFIG).decode())
        assert field_of(imported, "User stats", "health") == {
            "name": "health",
            "description": "Health",
            "type": "number",
            "min": 0,
            "max": 100,
            "default": 80,
        }
        assert field_of(imported, "User stats", "mana")["default"] == 50
        assert _lines(
            imported,
            "exact: trackerConfig.userStats.customStats",
            "guessed: trackerConfig.userStats.customStats",
        ) == [
            "exact: trackerConfig.userStats.customStats[0] -> User stats.health: number from 0 "
            "to maxValue 100; starts at its value 80",
            "guessed: trackerConfig.userStats.customStats[1] -> User stats.mana: number from 0 "
            "to maxValue 50; its value 90 lies above its maxValue 50, so it starts at 50",
        ]

    def test_items_are_rows(self) -> None:
        """onPerson items agree on qty 2 (a guessed start); stored items carry their place."""
        imported = import_rpg_companion("rpg.json", orjson.dumps(self.CONFIG).decode())
        assert field_of(imported, "Inventory", "qty")["default"] == 2
        on_person = (
            "exact: trackerConfig.inventory.onPerson",
            "guessed: trackerConfig.inventory.onPerson",
        )
        assert _lines(imported, *on_person) == [
            "exact: trackerConfig.inventory.onPerson -> Inventory.qty: keyed list on person: "
            "number from 0",  # its own start (1) is not said beside the rows' 2
            "guessed: trackerConfig.inventory.onPerson (starting rows).qty -> Inventory.qty: "
            "a new row starts at 2, guessed: all 2 starting rows hold it",
        ]
        assert _lines(imported, "unmapped: trackerConfig.inventory.onPerson row") == [
            f'unmapped: trackerConfig.inventory.onPerson row "{row}": a starting row (qty=2), '
            "not kept: a list starts with no rows; the model or a person's edit adds it"
            for row in ("Rope", "Torch")
        ]
        assert field_of(imported, "Stored items", "place")["default"] == "Ship"
        assert [
            line.split(":")[1]
            for line in _lines(imported, "unmapped: trackerConfig.inventory.stored")
        ] == [
            ' trackerConfig.inventory.stored row "Crate"',
            ' trackerConfig.inventory.stored row "Sail"',
        ]


class TestSillyTavernTracker:
    """A keyed field's defaultValue: a map of rows, or a placeholder reported."""

    @pytest.mark.parametrize(
        ("default", "expected"),
        [
            (
                {"Emma": {"Hair": "red", "Outfit": "coat"}, "Lars": {"Hair": "red"}},
                [
                    "guessed: Characters.defaultValue (starting rows).Hair -> Characters.hair: a "
                    'new row starts at "red", guessed: all 2 starting rows hold it',
                    'unmapped: Characters.defaultValue row "Emma": a starting row (hair="red", '
                    'outfit="coat"), not kept: a list starts with no rows; the model or a '
                    "person's edit adds it",
                    'unmapped: Characters.defaultValue row "Lars": a starting row (hair="red"), '
                    "not kept: a list starts with no rows; the model or a person's edit "
                    "adds it",
                ],
            ),
            (
                "<Character Name>",
                [
                    'unmapped: Characters.defaultValue: a start "<Character Name>" for the whole '
                    "list; a row starts from its columns' defaults"
                ],
            ),
        ],
        ids=["rows", "placeholder"],
    )
    def test_default_rows(self, default: object, expected: list[str]) -> None:
        """Each default row is reported; an agreeing column starts there."""
        definition = {
            "field-0": {
                "name": "Characters",
                "type": "FOR_EACH_OBJECT",
                "defaultValue": default,
                "nestedFields": {
                    "field-1": {"name": "Hair", "type": "STRING"},
                    "field-2": {"name": "Outfit", "type": "STRING"},
                },
            }
        }
        imported = import_sillytavern_tracker("st.json", orjson.dumps(definition).decode())
        assert (
            _lines(imported, "guessed: Characters.default", "unmapped: Characters.default")
            == expected
        )


class TestMarinara:
    """Inventory items are rows; an agreeing location starts there."""

    def test_inventory(self) -> None:
        """Both items are on_person, already the column's start: no line for it."""
        state = {
            "playerStats": {
                "inventory": [
                    {"name": "Rope", "quantity": 1, "location": "stored", "description": ""},
                    {"name": "Coin", "quantity": 9, "location": "stored", "description": ""},
                ]
            }
        }
        imported = import_marinara("m.json", orjson.dumps(state).decode())
        assert field_of(imported, "Inventory", "location")["default"] == "stored"
        assert "default" not in field_of(
            imported, "Inventory", "description"
        )  # "" is its own start
        assert field_of(imported, "Inventory", "quantity")["default"] == 1
        assert len(_lines(imported, "unmapped: playerStats.inventory row")) == 2


def test_rpg_companion_items_of_another_shape_are_reported() -> None:
    """onPerson written as one text is said to be unread, not skipped silently."""
    config = {"trackerConfig": {"inventory": {"onPerson": "Rope, Torch", "stored": []}}}
    imported = import_rpg_companion("rpg.json", orjson.dumps(config).decode())
    assert _lines(imported, "unmapped: trackerConfig.inventory") == [
        'unmapped: trackerConfig.inventory.onPerson: onPerson items as the text "Rope, Torch", '
        "not a list of items: not read",
        "unmapped: trackerConfig.inventory.stored: stored items as a list, not a map of "
        "places to items: not read",
    ]


_row_names = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="$"), min_size=1, max_size=12
).filter(lambda s: s.strip() and s != "$meta")
_cells = st.dictionaries(
    st.sampled_from(["关系", "hp", "在场", "Hair"]),
    st.integers(-5, 5) | st.booleans() | st.text(max_size=5),
    min_size=1,
    max_size=3,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_row_names, _cells, min_size=1, max_size=6))
def test_every_mvu_entry_is_reported_as_a_row(entries: dict[str, dict[str, object]]) -> None:
    """Each entry of an extensible object has its own row line; a start is set only when all agree."""
    source = {"名单": {"$meta": {"extensible": True}, **entries}}
    imported = import_mvu("x.json", orjson.dumps(source).decode())
    rows = _lines(imported, "unmapped: 名单 row ")
    assert [line.split(": a starting row")[0] for line in rows] == [
        f"unmapped: 名单 row {quoted_row(name)}" for name in entries
    ]
    tracker = next(t for t in imported.trackers if t.name == "名单")
    for line in _lines(imported, "guessed: 名单 (starting rows)."):
        key = line.split("(starting rows).")[1].split(" ->")[0]
        values = [row.get(key) for row in entries.values()]
        assert len(entries) >= 2
        assert all(v == values[0] and type(v) is type(values[0]) for v in values)
        field = tracker.field(line.split("-> 名单.")[1].split(":")[0])
        assert field is not None
        assert field.default == values[0]
