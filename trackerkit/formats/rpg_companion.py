"""RPG Companion: a `trackerConfig` (or the settings holding one) to trackers.

`userStats.customStats` become numbers from 0 to each stat's `maxValue` in a "User stats" record
(with `rpgAttributes` and the status section's mood and custom fields), each starting at the
file's value held inside that range (TR-18; a text that is plainly a number read as it), else
where RPG Companion starts it (full; arousal at 0); the info box's widgets
(date, weather, temperature, time, location, recent events) a scene record; present characters
a keyed list whose relationship is a choice among the configured relationships, with their custom
fields and thoughts as text columns; an inventory section makes keyed lists with a `qty`
(`onPerson`) and a `place` (`stored`). Display settings are reported, not kept.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

from trackerkit.errors import ImportRefusedError
from trackerkit.fields import describe_value, is_number
from trackerkit.formats.detect import read_document
from trackerkit.formats.imported import Builder, Imported, TrackerDraft
from trackerkit.formats.leaves import number, number_fault, quoted

__all__ = ["import_rpg_companion", "rpg_companion_from_data"]

_RELATIONSHIPS = ["Lover", "Friend", "Ally", "Enemy", "Neutral"]
_WIDGETS = ("date", "weather", "temperature", "time", "location", "recentEvents")
_DISPLAY = "a display setting of RPG Companion's panel; trackerkit shows fields its own way"


def import_rpg_companion(source: str | os.PathLike[str], text: str | None = None) -> Imported:
    """Import RPG Companion's `trackerConfig`.

    Raises:
        ImportRefusedError: the file cannot be read or holds no `trackerConfig` object.
    """
    file, data = read_document(source, text)
    return rpg_companion_from_data(data, file)


def rpg_companion_from_data(data: object, file: str) -> Imported:
    """Import parsed RPG Companion settings (see `import_rpg_companion`)."""
    config = data.get("trackerConfig", data) if isinstance(data, dict) else None
    if not isinstance(config, dict) or not any(
        isinstance(config.get(k), dict)
        for k in ("userStats", "infoBox", "presentCharacters", "inventory")
    ):
        raise ImportRefusedError(
            file,
            "is not RPG Companion settings: no trackerConfig with userStats, infoBox, "
            "presentCharacters or inventory",
        )
    builder = Builder(file, "rpg-companion")
    builder.scene = Path(file).stem
    if isinstance(data, dict) and "trackerConfig" in data:
        for key in data:
            if key != "trackerConfig":
                builder.unmapped(key, "an RPG Companion setting outside trackerConfig")
    prefix = "trackerConfig." if isinstance(data, dict) and "trackerConfig" in data else ""
    handled = {
        "userStats",
        "rpgAttributes",
        "statusSection",
        "infoBox",
        "presentCharacters",
        "inventory",
    }
    stats = builder.tracker("User stats", "record", "The user's stats, from RPG Companion")
    _user_stats(builder, stats, config.get("userStats"), f"{prefix}userStats")
    _attributes(builder, stats, config.get("rpgAttributes"), f"{prefix}rpgAttributes")
    _status(builder, stats, config.get("statusSection"), f"{prefix}statusSection")
    _info_box(builder, config.get("infoBox"), f"{prefix}infoBox")
    _characters(builder, config.get("presentCharacters"), f"{prefix}presentCharacters")
    _inventory(builder, config.get("inventory"), f"{prefix}inventory")
    for key in config:
        if key not in handled:
            builder.unmapped(f"{prefix}{key}", "an RPG Companion section trackerkit does not read")
    return builder.finish()


def _label(item: dict[str, Any], fallback: str) -> str:
    for key in ("name", "label", "id"):
        if isinstance(item.get(key), str) and item[key].strip():
            return str(item[key])
    return fallback


def _enabled(item: object) -> str:
    return (
        "; disabled in the source, imported anyway"
        if isinstance(item, dict) and item.get("enabled") is False
        else ""
    )


def _stat_range(stat: dict[str, Any]) -> tuple[dict[str, Any], str, list[str]]:
    """A stat's number spec (from 0, up to its maxValue when that is a number above 0), the
    line's detail, and what of the file's top it could not keep (a maxValue of 0 would hold the
    stat at 0 for good, so it is read as no top, and said)."""
    top = number(stat.get("maxValue"))
    spec: dict[str, Any] = {"type": "number", "min": 0}
    if top is not None and top > 0:
        spec["max"] = top
        return spec, f"number from 0 to maxValue {top}", []
    if "maxValue" not in stat:
        return spec, "number from 0, no top (the file gives no maxValue)", []
    if top == 0:
        why = "a top of 0 would hold the stat at 0 for good"
    else:
        why = "below 0" if top is not None else number_fault(stat.get("maxValue"))
    return (
        spec,
        "number from 0, no top",
        [f"its maxValue {describe_value(stat.get('maxValue'))} ({why})"],
    )


#: A text that is plainly a number (`"50"`, `"-5"`, `" 12.5 "`): the number its author wrote, and
#: what RPG Companion shows for it (its panel prints the stored value as `50%` and fills the bar
#: by it). Anything else (`"50%"`, `"1e3"`) is no number.
_NUMERAL = re.compile(r"\s*-?\d+(?:\.\d+)?\s*", re.ASCII)


def _file_value(value: object) -> tuple[int | float | None, str]:
    """A stat's value as a number (a numeral text read as its number), and the words saying it
    was read from text; None when the value is no number."""
    if isinstance(value, str) and _NUMERAL.fullmatch(value) is not None:
        # Past 16 characters it may pass 2^53: read as a float, never an int of any length.
        read = float(value) if "." in value or len(value.strip()) > 16 else int(value)
        return read, f" ({describe_value(value)} read as a number)"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value, ""
    return None, ""


def _held(value: int | float, spec: dict[str, Any]) -> int | float | None:
    """`value` held inside the stat's range, from 0 up to its top (TR-18), or None when no bound
    brings it to a number trackerkit holds (not finite, or past 2^53 with no top)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    held = max(value, 0)
    held = min(held, spec["max"]) if "max" in spec else held
    return held if is_number(held) else None


def _file_start(stat: dict[str, Any], spec: dict[str, Any]) -> tuple[str, str, bool]:
    """Start a stat at the file's value held inside its range, and say so for its line: the
    words (none when there is no value to start at), what could not be kept, and whether the
    start was changed or read from text (a guess)."""
    if "value" not in stat:
        return "", "", False
    value, told = _file_value(stat["value"])
    held = None if value is None else _held(value, spec)
    if value is None or held is None:
        why = number_fault(stat["value"] if value is None else value)
        return "", f"its value {describe_value(stat['value'])} ({why})", True
    spec["default"] = held
    said = f"its value {describe_value(value)}{told}"
    if held == value:
        return f"; starts at {said}", "", bool(told)
    side = "below 0" if value < held else f"above its maxValue {spec['max']}"
    return f"; {said} lies {side}, so it starts at {held}", "", True


#: The stats RPG Companion starts empty (its `extensionSettings.userStats` in `state.js`): every
#: other stat starts full (health 100; a stat added in its editor at 100 of maxValue 100).
_EMPTY_AT_START = frozenset({"arousal"})


def _tool_start(key: str, spec: dict[str, Any]) -> str:
    """Start a stat with a top where RPG Companion starts it (full, or 0 for arousal), and say so
    for its line; a stat with no top has no full and starts at 0, unsaid."""
    if "max" not in spec:
        return ""
    if key.lower() in _EMPTY_AT_START:
        return f"; starts at 0, as RPG Companion starts {key}"
    spec["default"] = spec["max"]
    return f"; starts full at {spec['max']}, as RPG Companion starts a stat"


def _user_stats(builder: Builder, draft: TrackerDraft, section: object, where: str) -> None:
    if not isinstance(section, dict):
        return
    for key, value in section.items():
        here = f"{where}.{key}"
        if key != "customStats":
            builder.unmapped(here, _DISPLAY)
            continue
        if not isinstance(value, list):
            builder.unmapped(here, "customStats is not a list")
            continue
        for index, stat in enumerate(value):
            at = f"{here}[{index}]"
            if not isinstance(stat, dict):
                builder.unmapped(at, "a stat that is not an object")
                continue
            spec, detail, lost = _stat_range(stat)
            extra = (
                "; persistInHistory not kept (trackerkit keeps every value's history)"
                if "persistInHistory" in stat
                else ""
            )
            # The model writes a stat by its id (`{"id": "mana", "value": 80}`): the field is
            # named for it, and its display name is its meaning.
            shown = _label(stat, f"stat {index + 1}")
            ident = stat.get("id")
            key = ident if isinstance(ident, str) and ident.strip() else shown
            said, unread, changed = _file_start(stat, spec)
            extra += said or _tool_start(key, spec)
            lost += [unread] if unread else []
            if lost:
                extra += f"; not kept: {'; '.join(lost)}"
            draft.add(
                at,
                key,
                spec,
                text=shown if shown != key else "",
                detail=detail + extra + _enabled(stat),
                guessed=bool(lost) or changed,
            )


def _attributes(builder: Builder, draft: TrackerDraft, section: object, where: str) -> None:
    if section is None:
        return
    items: list[tuple[str, object]] = []
    if isinstance(section, dict):
        listed = section.get("attributes")
        if isinstance(listed, list):
            items = [(f"{where}.attributes[{i}]", a) for i, a in enumerate(listed)]
        else:
            items = [
                (f"{where}.{k}", {"name": k, **(v if isinstance(v, dict) else {})})
                for k, v in section.items()
                if k != "enabled"
            ]
    elif isinstance(section, list):
        items = [(f"{where}[{i}]", a) for i, a in enumerate(section)]
    for at, item in items:
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict):
            builder.unmapped(at, "an attribute that is neither a name nor an object")
            continue
        draft.add(
            at,
            _label(item, "attribute"),
            {"type": "number", "min": 0},
            detail="number from 0, guessed: an attribute score has no top in the source"
            + _enabled(item),
            guessed=True,
        )


def _status(builder: Builder, draft: TrackerDraft, section: object, where: str) -> None:
    if not isinstance(section, dict):
        return
    for key, value in section.items():
        here = f"{where}.{key}"
        if key == "showMoodEmoji":
            draft.add(
                here,
                "mood",
                {"type": "text"},
                text="The user's mood, as a word or an emoji",
                detail="text, guessed: the mood the status section shows",
                guessed=True,
            )
        elif key == "customFields" and isinstance(value, list):
            for index, item in enumerate(value):
                item_d = {"name": item} if isinstance(item, str) else item
                if not isinstance(item_d, dict):
                    builder.unmapped(
                        f"{here}[{index}]", "a custom field that is neither a name nor an object"
                    )
                    continue
                about = item_d.get("description")
                draft.add(
                    f"{here}[{index}]",
                    _label(item_d, "status"),
                    {"type": "text"},
                    text=about if isinstance(about, str) else "",
                    detail="text" + _enabled(item_d),
                )
        else:
            builder.unmapped(here, _DISPLAY)


def _info_box(builder: Builder, section: object, where: str) -> None:
    if not isinstance(section, dict):
        return
    draft = builder.tracker("Scene", "record", "The scene's info box, from RPG Companion")
    widgets = section.get("widgets")
    for key in section:
        if key != "widgets":
            builder.unmapped(f"{where}.{key}", _DISPLAY)
    entries: list[tuple[str, object]] = []
    if isinstance(widgets, dict):
        entries = list(widgets.items())
    elif isinstance(widgets, list):
        entries = [
            (
                w
                if isinstance(w, str)
                else _label(w, "widget")
                if isinstance(w, dict)
                else "widget",
                w,
            )
            for w in widgets
        ]
    for key, widget in entries:
        here = f"{where}.widgets.{key}"
        settings = _widget_settings(widget)
        if key == "recentEvents":
            draft.add(
                here,
                key,
                {"type": "text"},
                text="The latest events, one after another",
                detail="text, guessed: the recent events kept as one text"
                + settings
                + _enabled(widget),
                guessed=True,
            )
        elif key in _WIDGETS:
            draft.add(here, key, {"type": "text"}, detail="text" + settings + _enabled(widget))
        else:
            builder.unmapped(here, "an info-box widget trackerkit does not know")


def _widget_settings(widget: object) -> str:
    """A widget's display settings (`unit`, `format`, ...), said as not kept: the field is text."""
    if not isinstance(widget, dict):
        return ""
    shown = [f"{k} {quoted(str(v), 30)}" for k, v in widget.items() if k != "enabled"]
    if not shown:
        return ""
    return (
        f"; {', '.join(shown)} not kept (a display setting; the text holds what the model writes)"
    )


def _characters(builder: Builder, section: object, where: str) -> None:
    if not isinstance(section, dict):
        return
    draft = builder.tracker(
        "Present characters", "list", "The characters in the scene, from RPG Companion"
    )
    draft.notes.append("One row per character present; remove a row when a character leaves.")
    for key, value in section.items():
        here = f"{where}.{key}"
        if key == "relationships":
            choices = _relationships(value)
            guessed = choices is None
            draft.add(
                here,
                "relationship",
                {"type": "choice", "choices": choices or _RELATIONSHIPS},
                text="The character's relationship to the user",
                detail=f"choice of {', '.join(choices or _RELATIONSHIPS)}"
                + ("; guessed: the default relationships (none listed)" if guessed else ""),
                guessed=guessed,
            )
        elif key == "customFields" and isinstance(value, list):
            for index, item in enumerate(value):
                if not isinstance(item, dict):
                    builder.unmapped(f"{here}[{index}]", "a custom field that is not an object")
                    continue
                about = item.get("description")
                draft.add(
                    f"{here}[{index}]",
                    _label(item, "detail"),
                    {"type": "text"},
                    text=about if isinstance(about, str) else "",
                    detail="text column" + _enabled(item),
                )
        elif key == "thoughts":
            about = value.get("description") if isinstance(value, dict) else None
            draft.add(
                here,
                "thoughts",
                {"type": "text"},
                text=about if isinstance(about, str) else "What the character is thinking",
                detail="text column" + _enabled(value),
            )
        else:
            builder.unmapped(here, _DISPLAY)


def _relationships(value: object) -> list[str] | None:
    names: list[object] = []
    if isinstance(value, list):
        names = value
    elif isinstance(value, dict):
        inner = next(
            (value[k] for k in ("types", "options", "relationshipEmojis", "emojis") if k in value),
            None,
        )
        names = (
            list(inner) if isinstance(inner, dict | list) else [k for k in value if k != "enabled"]
        )
    found = [n for n in dict.fromkeys(str(n) for n in names if isinstance(n, str)) if n.strip()]
    return found or None


def _inventory(builder: Builder, section: object, where: str) -> None:
    if not isinstance(section, dict):
        return
    carried = builder.tracker("Inventory", "list", "What the user carries, from RPG Companion")
    carried.add(
        f"{where}.onPerson",
        "qty",
        {"type": "number", "min": 0, "default": 1},
        text="How many",
        detail="keyed list on person: number from 0",
        start="a new row starts at 1 (the file gives no start)",
    )
    stored = builder.tracker(
        "Stored items", "list", "What the user keeps elsewhere, from RPG Companion"
    )
    stored.add(
        f"{where}.stored",
        "qty",
        {"type": "number", "min": 0, "default": 1},
        text="How many",
        detail="keyed list stored: number from 0",
        start="a new row starts at 1 (the file gives no start)",
    )
    stored.add(
        f"{where}.stored",
        "place",
        {"type": "text"},
        text="Where it is kept",
        detail="text, guessed: the place each item is stored at (stored is a map of places)",
        guessed=True,
    )
    for key in section:
        if key not in ("onPerson", "stored"):
            builder.unmapped(f"{where}.{key}", _DISPLAY + f" ({quoted(key)})")
    carried.starting_rows(f"{where}.onPerson", _items(section.get("onPerson"), None))
    places = section.get("stored")
    for key, kind in (("onPerson", list), ("stored", dict)):
        # `true` is the config's switch for the section (mapped above); items are a list or map.
        if section.get(key) is not None and not isinstance(section[key], kind | bool):
            builder.unmapped(
                f"{where}.{key}",
                f"{key} items as {describe_value(section[key])}, not a "
                f"{'list of items' if kind is list else 'map of places to items'}: not read",
            )
    stored.starting_rows(
        f"{where}.stored",
        [
            row
            for place, items in (places.items() if isinstance(places, dict) else [])
            for row in _items(items, place)
        ],
    )


def _items(items: object, place: str | None) -> list[tuple[str, dict[str, object]]]:
    """Inventory items (`{name, quantity}`, or plain names) as starting rows by column key."""
    rows: list[tuple[str, dict[str, object]]] = []
    for item in items if isinstance(items, list) else []:
        name = item.get("name") if isinstance(item, dict) else item
        if not isinstance(name, str) or not name.strip():
            continue
        values: dict[str, object] = {}
        if isinstance(item, dict) and "quantity" in item:
            values["qty"] = item["quantity"]
        if place is not None:
            values["place"] = place
        rows.append((name, values))
    return rows
