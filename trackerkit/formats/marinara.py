"""Marinara Engine: a game-state snapshot to trackers.

The scene fields (date, time, location, weather, temperature, the world's custom fields, recent
events) make a "Scene" record; `playerStats` a "Player" record where each
`CharacterStat{name, value, max}` is a number whose top is a field of its own (`hp` up to
`hp_max`, TR-5), with the attributes, skills, status and custom fields beside them;
`InventoryItem{name, description, quantity, location}` a keyed "Inventory" list; quests and the
inventory tracker's groups keyed lists; present characters a keyed list with their stats and
custom fields as columns. The snapshot's values are the fields' starts; a column the starting rows
agree on starts there (guessed), and each row is reported, since a tracker starts with no rows; bookkeeping (ids, locks, timestamps) is reported, not kept.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from trackerkit._problems import MAX_TEXT
from trackerkit.errors import ImportRefusedError
from trackerkit.fields import ICON_PATTERN, describe_value
from trackerkit.formats.detect import read_document
from trackerkit.formats.imported import Builder, Imported, TrackerDraft
from trackerkit.formats.leaves import leaf, number, number_fault, plain_text

__all__ = ["import_marinara", "marinara_from_data"]

_SCENE = ("date", "time", "location", "weather", "temperature")
_BOOKKEEPING = frozenset(
    {
        "id",
        "chatId",
        "messageId",
        "swipeIndex",
        "committed",
        "manualOverrides",
        "fieldLocks",
        "hiddenTrackerFields",
        "createdAt",
    }
)
_GROUPS = {
    "inventoryTrackerCurrencies": "Currencies",
    "inventoryTrackerEquipped": "Equipped",
    "inventoryTrackerCarried": "Carried",
}


def import_marinara(source: str | os.PathLike[str], text: str | None = None) -> Imported:
    """Import a Marinara Engine game-state snapshot.

    Raises:
        ImportRefusedError: the file cannot be read or is not a game-state object.
    """
    file, data = read_document(source, text)
    return marinara_from_data(data, file)


def marinara_from_data(data: object, file: str) -> Imported:
    """Import a parsed Marinara Engine game state (see `import_marinara`)."""
    if not isinstance(data, dict) or not any(
        k in data for k in (*_SCENE, "playerStats", "presentCharacters", "personaStats")
    ):
        raise ImportRefusedError(
            file,
            "is not a Marinara Engine game state: no scene fields, playerStats, "
            "personaStats or presentCharacters",
        )
    builder = Builder(file, "marinara")
    builder.scene = Path(file).stem
    scene = builder.tracker("Scene", "record", "Where and when, from Marinara Engine")
    for key, value in data.items():
        if key in _SCENE:
            _text(builder, scene, key, key, value)
        elif key == "worldCustomFields":
            _custom(builder, scene, key, value)
        elif key == "recentEvents":
            _text(builder, scene, key, key, value)
        elif key == "playerStats":
            _player(builder, value)
        elif key == "personaStats":
            persona = builder.tracker("Persona stats", "record", "The persona's status bars")
            _stats(builder, persona, key, value)
        elif key == "presentCharacters":
            _characters(builder, value)
        elif key in _BOOKKEEPING:
            builder.unmapped(key, "bookkeeping of the chat (ids, locks, timestamps), not state")
        else:
            builder.unmapped(key, "a game-state key trackerkit does not know")
    return builder.finish()


def _text(builder: Builder, draft: TrackerDraft, where: str, key: str, value: object) -> None:
    found = leaf(value)
    if isinstance(found, str):
        builder.unmapped(where, found)
        return
    spec = found.spec if found.spec["type"] == "text" else {"type": "text", "default": str(value)}
    draft.add(
        where,
        key,
        spec,
        detail=found.detail
        if found.spec["type"] == "text"
        else f"text, guessed: the {found.spec['type']} start kept as text",
        guessed=found.guessed or found.spec["type"] != "text",
    )


def _name_of(item: object) -> str | None:
    """The item's `name` when it is an object naming itself with non-blank text, else None."""
    if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"].strip():
        return str(item["name"])
    return None


def _custom(builder: Builder, draft: TrackerDraft, where: str, items: object) -> None:
    if not isinstance(items, list):
        builder.unmapped(where, "custom fields that are not a list")
        return
    for index, item in enumerate(items):
        at = f"{where}[{index}]"
        if _name_of(item) is None:
            builder.unmapped(at, "a custom field without a name")
            continue
        value = item.get("value")
        spec: dict[str, Any] = {"type": "text"}
        detail = "text"
        guessed = False
        if isinstance(value, str) and len(value) <= MAX_TEXT:
            spec["default"] = value
        elif isinstance(value, bool | int | float) and len(plain_text(value)) <= MAX_TEXT:
            spec["default"] = plain_text(value)
            detail += f", guessed: its value {describe_value(value)} kept as text"
            guessed = True
        elif value is not None:
            why = "longer than a text holds" if isinstance(value, str) else "not a plain value"
            detail += f"; not kept: its value {describe_value(value)} ({why}), so it starts empty"
            guessed = True
        icon = item.get("icon")
        if isinstance(icon, str) and ICON_PATTERN.fullmatch(f"lucide:{icon}"):
            spec["icon"] = f"lucide:{icon}"
            detail += f"; icon lucide:{icon}"
        elif icon:
            detail += "; its icon is not a lucide name, so not kept"
        draft.add(at, item["name"], spec, detail=detail, guessed=guessed)


def _stats(builder: Builder, draft: TrackerDraft, where: str, stats: object) -> None:
    if stats is None:
        return
    if not isinstance(stats, list):
        builder.unmapped(where, "stats that is not a list")
        return
    for index, stat in enumerate(stats):
        at = f"{where}[{index}]"
        if _name_of(stat) is None:
            builder.unmapped(at, "a CharacterStat without a name")
            continue
        name = stat["name"]
        top_spec: dict[str, Any] = {"type": "number", "min": 0}
        most = number(stat.get("max"))
        top_lost = ""
        if most is not None and most >= 0:
            top_spec["default"] = most
        elif "max" in stat:
            why = "below 0" if most is not None else number_fault(stat.get("max"))
            top_lost = (
                f"; not kept: its max {describe_value(stat.get('max'))} ({why}), so the top "
                "starts at 0"
            )
        color = "; its color is not kept" if "color" in stat else ""
        top = draft.add(
            f"{at}.max",
            f"{name} max",
            top_spec,
            text=f"The top of {name}",
            detail=f"number from 0: the top of {name} (CharacterStat max){top_lost}",
            guessed=bool(top_lost),
        )
        spec: dict[str, Any] = {"type": "number", "min": 0, "maxField": top}
        value = number(stat.get("value"))
        ceiling = top_spec.get("default", 0)
        lost = ""
        if value is not None and 0 <= value <= ceiling:
            spec["default"] = value
        elif value is not None and value > ceiling:
            spec["default"] = ceiling
            lost = f"; its value {value} lies above its top {ceiling}, so it starts at {ceiling}"
        elif "value" in stat:
            why = "below 0" if value is not None else number_fault(stat.get("value"))
            lost = (
                f"; not kept: its value {describe_value(stat.get('value'))} ({why}), so it "
                "starts at 0"
            )
        draft.add(
            f"{at}.value",
            name,
            spec,
            detail=f"number from 0 up to the field {top} (CharacterStat value){color}{lost}",
            guessed=bool(lost),
        )


def _numbers(builder: Builder, draft: TrackerDraft, where: str, values: object, what: str) -> None:
    if values is None:
        return
    if not isinstance(values, dict):
        builder.unmapped(where, f"{what}s that are not an object of numbers")
        return
    for key, value in values.items():
        at = f"{where}.{key}"
        value = number(value)
        if value is None:
            builder.unmapped(at, f"the {what} {key!r} is not a number")
            continue
        spec: dict[str, Any] = (
            {"type": "number", "min": 0, "default": value}
            if value >= 0
            else {"type": "number", "default": value}
        )
        draft.add(
            at,
            key,
            spec,
            detail=f"number{' from 0' if value >= 0 else ''}, guessed: {what} scores have no top in the source",
            guessed=True,
        )


def _player(builder: Builder, stats: object) -> None:
    if stats is None:
        return
    if not isinstance(stats, dict):
        builder.unmapped("playerStats", "playerStats that is not an object")
        return
    player = builder.tracker("Player", "record", "The player's stats, from Marinara Engine")
    for key, value in stats.items():
        where = f"playerStats.{key}"
        if key == "stats":
            _stats(builder, player, where, value)
        elif key == "attributes":
            _numbers(builder, player, where, value, "attribute")
        elif key == "skills":
            _numbers(builder, player, where, value, "skill")
        elif key == "status":
            _text(builder, player, where, key, value)
        elif key == "customTrackerFields":
            _custom(builder, player, where, value)
        elif key == "inventory":
            _inventory(builder, where, value)
        elif key == "activeQuests":
            _quests(builder, where, value)
        elif key in _GROUPS:
            _group(builder, where, _GROUPS[key], value)
        else:
            builder.unmapped(where, "a player-stats key trackerkit does not know")


def _rows(draft: TrackerDraft, where: str, items: object) -> None:
    """Each named item as a starting row, its values by column key (a character's stats and
    custom fields flattened as their columns are)."""
    rows: list[tuple[str, dict[str, object]]] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        values: dict[str, object] = {k: v for k, v in item.items() if k != "name"}
        custom = item.get("customFields")
        if isinstance(custom, dict):
            values.update(custom)
        stats = item.get("stats")
        for stat in stats if isinstance(stats, list) else []:
            if (name := _name_of(stat)) is not None:
                values[name] = stat.get("value")
                values[f"{name} max"] = stat.get("max")
        rows.append((item["name"], values))
    draft.starting_rows(where, rows)


def _held(items: object, key: str) -> bool:
    """Whether any item of the list the file gives holds `key`."""
    return isinstance(items, list) and any(isinstance(i, dict) and key in i for i in items)


def _column(
    draft: TrackerDraft,
    where: str,
    items: object,
    key: str,
    spec: dict[str, Any],
    *,
    of: str,
    detail: str,
    text: str = "",
    guessed: bool = False,
    start: str = "",
) -> None:
    """A column Marinara's `of` type defines: exact when a row of the file holds its key, else
    guessed, and said to be not in the file (the column is there for the model to fill)."""
    if _held(items, key):
        draft.add(
            f"{where}[].{key}",
            key,
            spec,
            text=text,
            detail=f"{detail} ({of} {key})",
            guessed=guessed,
            start=start,
        )
        return
    draft.add(
        f"{where}[].{key}",
        key,
        spec,
        text=text,
        detail=f"{detail}; not in the file: made because Marinara's {of} has {key}",
        guessed=True,
        start=start,
    )


def _inventory(builder: Builder, where: str, items: object) -> None:
    draft = builder.tracker("Inventory", "list", "The player's items, from Marinara Engine")
    of = "InventoryItem"
    _column(draft, where, items, "description", {"type": "text"}, of=of, detail="text column")
    _column(
        draft,
        where,
        items,
        "quantity",
        {"type": "number", "min": 0, "default": 1},
        of=of,
        detail="number from 0",
        start="a new row starts at 1 (the file gives no start)",
    )
    _column(
        draft,
        where,
        items,
        "location",
        {"type": "text", "default": "on_person"},
        of=of,
        detail="text column",
        start='a new row starts at "on_person", the first location Marinara names (the file '
        "gives no start)",
    )
    _rows(draft, where, items)


def _quests(builder: Builder, where: str, items: object) -> None:
    draft = builder.tracker("Quests", "list", "The player's active quests, from Marinara Engine")
    of = "QuestProgress"
    _column(
        draft,
        where,
        items,
        "currentStage",
        {"type": "number", "min": 0},
        of=of,
        detail="number from 0",
    )
    _column(
        draft,
        where,
        items,
        "objectives",
        {"type": "text"},
        of=of,
        text="Each objective, marked done or not",
        detail="text, guessed: the objectives [{text, completed}] kept as one text",
        guessed=True,
    )
    _column(draft, where, items, "completed", {"type": "boolean"}, of=of, detail="boolean")
    if _held(items, "questEntryId"):
        builder.unmapped(
            f"{where}[].questEntryId", "a link to a lorebook entry, which trackerkit does not hold"
        )
    _rows(draft, where, items)


def _group(builder: Builder, where: str, title: str, items: object) -> None:
    draft = builder.tracker(title, "list", f"{title}, from Marinara Engine's inventory tracker")
    _column(
        draft,
        where,
        items,
        "qty",
        {"type": "number", "min": 1, "default": 1},
        of="InventoryTrackerItem",
        detail="number from 1",
        start="a new row starts at 1, as Marinara reads a qty left out",
    )
    _rows(draft, where, items)


def _characters(builder: Builder, characters: object) -> None:
    where = "presentCharacters"
    if not isinstance(characters, list):
        builder.unmapped(where, "presentCharacters that is not a list")
        return
    draft = builder.tracker(
        "Present characters", "list", "Who is in the scene, from Marinara Engine"
    )
    for key in ("mood", "appearance", "outfit", "thoughts"):
        _column(
            draft,
            where,
            characters,
            key,
            {"type": "text"},
            of="PresentCharacter",
            detail="text column",
        )
    custom: dict[str, None] = {}
    stats: dict[str, None] = {}
    ignored: dict[str, None] = {}
    for index, character in enumerate(characters):
        if not isinstance(character, dict):
            continue
        fields = character.get("customFields")
        if isinstance(fields, dict):
            custom.update(dict.fromkeys(fields))
        found = character.get("stats")
        if found is not None and not isinstance(found, list):
            builder.unmapped(f"{where}[{index}].stats", "stats that is not a list")
        for stat in found if isinstance(found, list) else []:
            if (name := _name_of(stat)) is not None:
                stats.setdefault(name, None)
        ignored.update(
            dict.fromkeys(
                k
                for k in character
                if k
                not in ("name", "mood", "appearance", "outfit", "thoughts", "customFields", "stats")
            )
        )
    for key in custom:
        draft.add(
            f"{where}[].customFields.{key}",
            key,
            {"type": "text"},
            detail="text column (a custom field)",
        )
    for name in stats:
        top = draft.add(
            f"{where}[].stats.{name}.max",
            f"{name} max",
            {"type": "number", "min": 0},
            text=f"The top of {name}",
            detail=f"number from 0: the top of {name} (CharacterStat max)",
        )
        draft.add(
            f"{where}[].stats.{name}.value",
            name,
            {"type": "number", "min": 0, "maxField": top},
            detail=f"number from 0 up to the column {top}; each row held to its own top",
        )
    for key in ignored:
        builder.unmapped(
            f"{where}[].{key}",
            "display or bookkeeping of the character (emoji, avatar, portrait, id), not state",
        )
    _rows(draft, where, characters)
