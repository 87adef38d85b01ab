"""Telling an import's format by its content, once `formats.document` has read it.

A character card is told first (by its `spec`, or a V1 card's `name` and `first_mes`), then each
tool's own marks: RPG Companion's `trackerConfig`, SillyTavern-Tracker's field definitions,
WTracker's JSON schema, Marinara's `playerStats`, MagVarUpdate's `[InitVar]` entries or
`[value, meaning]` pairs. trackerkit's own trackers and scenes, and cards holding no trackers,
are refused with what to do instead. The reading names (`read_document`, `parse_document`, ...)
and the world-info ones (`entry_name`, ...) are re-exported here, where the importers take them.
"""

from __future__ import annotations

import os
import shlex
from typing import Any, Literal, TypeAlias

from trackerkit.errors import ImportRefusedError
from trackerkit.formats.document import (
    MAX_BYTES,
    parse_card_text,
    parse_document,
    png_card,
    read_document,
)
from trackerkit.formats.worldbook import (
    entry_name,
    has_init_var_entries,
    init_var_entries,
    is_init_var_name,
)

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "MAX_BYTES",
    "Format",
    "detect_format",
    "detected",
    "entry_name",
    "init_var_entries",
    "is_character_card",
    "is_init_var_name",
    "known_formats",
    "parse_card_text",
    "parse_document",
    "piece_kind",
    "png_card",
    "read_document",
    "sniff",
    "unknown_format",
]

Format: TypeAlias = Literal[
    "mvu", "sillytavern-tracker", "wtracker", "rpg-companion", "marinara", "card"
]
#: The formats `import_file` and `trackerkit import --from` know, by their short names.
FORMATS: tuple[Format, ...] = (
    "mvu",
    "sillytavern-tracker",
    "wtracker",
    "rpg-companion",
    "marinara",
    "card",
)
#: Each format's name as its users know it.
FORMAT_NAMES: dict[str, str] = {
    "mvu": "MagVarUpdate",
    "sillytavern-tracker": "SillyTavern-Tracker",
    "wtracker": "WTracker",
    "rpg-companion": "RPG Companion",
    "marinara": "Marinara Engine",
    "card": "Character Card V2 with trackerkit trackers",
}
#: A tuple, not a set: a type written as a list or an object must not make membership raise.
_ST_TYPES = ("STRING", "ARRAY", "OBJECT", "FOR_EACH_OBJECT", "FOR_EACH_ARRAY", "ARRAY_OBJECT")
_EXTENSIBLE_MARK = "$__META_EXTENSIBLE__$"


def detect_format(source: str | os.PathLike[str], text: str | None = None) -> Format:
    """Which format a file holds, told by its content (not its name).

    Raises:
        ImportRefusedError: the file cannot be read, is trackerkit's own tracker or scene or a
            character card holding no trackers, or holds none of `FORMATS`.
    """
    file, data = read_document(source, text)
    return detected(file, data)


def detected(file: str, data: object) -> Format:
    """The format of a read file's data (see `detect_format`).

    Raises:
        ImportRefusedError: trackerkit's own tracker or scene, a character card holding no
            trackers (no trackerkit object, no `[InitVar]` entry), or none of `FORMATS`.
    """
    own = piece_kind(data)
    if own is not None:  # read as another tool's, it would become junk trackers
        where = "trackers" if own == "tracker" else "scenes"
        raise ImportRefusedError(
            file,
            f"is already a trackerkit {own}: it needs no import; copy it into the {where} "
            f"folder of your data folder (trackerkit check reads trackers)",
        )
    found = sniff(data)
    if found is None:
        raise unknown_format(file, data)
    if found == "card" and isinstance(data, dict) and not _has_card_trackers(data):
        raise ImportRefusedError(file, _plain_card_reason(file))
    return found


def _plain_card_reason(file: str) -> str:
    """Why a character card with neither kind of tracker in it imports nothing, and what to do."""
    out = " --out NEW.png" if file.lower().endswith(".png") else ""  # a PNG is written to a file
    export = f"trackerkit export --to card --card {shlex.quote(file)}{out} TRACKER.json ..."
    return (
        "holds no trackers: it is a character card with no data.extensions.trackerkit object "
        "and no MagVarUpdate [InitVar] entry in its book, so there is nothing to import "
        f"(to put trackers in it, run {export})"
    )


def piece_kind(data: object) -> str | None:
    """`"tracker"` or `"scene"` when parsed JSON has the shape of that kind of piece, else None.

    Told by the keys only a piece of that kind has (a tracker's `kind: "tracker"` or `body`, a
    scene's `title` with its links or turns), so a command given the other kind can say so in one
    line before any list of unknown keys.
    """
    if not isinstance(data, dict):
        return None
    if data.get("kind") == "tracker" or ("body" in data and "title" not in data):
        return "tracker"
    if (
        "title" in data
        and "body" not in data
        and any(key in data for key in ("prompting", "turns", "card", "toolAccess", "window"))
    ):
        return "scene"
    return None


def unknown_format(file: str, data: object = None) -> ImportRefusedError:
    """The error for a file whose format cannot be told by its content.

    When `data` has the shape of MagVarUpdate variables written with plain values only (an
    object of objects of values, `{"Li": {"hp": 5}}`, with no `[value, meaning]` pair or `$meta`
    to tell it by, so guessing would take much other JSON for MVU), the error names the flag
    that imports it as such.
    """
    known = known_formats()
    if (
        isinstance(data, dict)
        and _plain_variables(data, 0)
        and any(isinstance(v, dict) for v in data.values())
    ):
        hint = (
            "It has the shape of MagVarUpdate variables with plain values only (no "
            "[value, meaning] pair or $meta to tell them by): if that is what it is, add "
            "--from mvu"
        )
    else:
        hint = "If it is one of them, name it with --from FORMAT"
    return ImportRefusedError(
        file, f"is not a tracker format trackerkit can tell by content; it reads {known}. {hint}"
    )


def known_formats() -> str:
    """The formats import reads, as its messages list them: `MagVarUpdate (mvu), ...`."""
    return ", ".join(f"{FORMAT_NAMES[f]} ({f})" for f in FORMATS)


def _plain_variables(node: object, depth: int) -> bool:
    """Whether `node` is a non-empty object of plain values, lists of them and such objects."""
    if not isinstance(node, dict) or not node or depth > 20:
        return False
    for value in node.values():
        if isinstance(value, dict) and not _plain_variables(value, depth + 1):
            return False
        if isinstance(value, list) and any(isinstance(i, dict | list) for i in value):
            return False
    return True


def sniff(data: object) -> Format | None:
    """The format of parsed data, or None.

    A character card is told before any other format, so its own text is never guessed at (two
    tags look like an MVU `[value, meaning]` pair): `card` when it carries trackerkit trackers,
    else `mvu` when its book holds `[InitVar]` entries, else `card` (which holds no trackers;
    `detected` and the card importer say so).
    """
    if not isinstance(data, dict):
        return "mvu" if _has_mvu_marks(data, 0) else None
    if _has_card_trackers(data):  # before MVU: a card may also carry a book of [InitVar] entries
        return "card"
    if is_character_card(data):
        return "mvu" if has_init_var_entries(data) else "card"
    config = data.get("trackerConfig")
    if isinstance(config, dict) or (
        isinstance(data.get("userStats"), dict)
        and (
            isinstance(data.get("infoBox"), dict) or isinstance(data.get("presentCharacters"), dict)
        )
    ):
        return "rpg-companion"
    if isinstance(data.get("trackerDef"), dict) or _is_tracker_def(data):
        return "sillytavern-tracker"
    if _is_wtracker(data):
        return "wtracker"
    if (
        isinstance(data.get("playerStats"), dict)
        or isinstance(data.get("personaStats"), list)
        or (isinstance(data.get("presentCharacters"), list))
    ):
        return "marinara"
    if has_init_var_entries(data) or _has_mvu_marks(data, 0):
        return "mvu"
    return None


def _has_card_trackers(data: dict[str, Any]) -> bool:
    """A Character Card V2 or V3 whose `data.extensions.trackerkit` is an object (trackerkit's)."""
    inner = data.get("data")
    extensions = inner.get("extensions") if isinstance(inner, dict) else None
    return (
        data.get("spec") in _CARD_SPECS
        and isinstance(extensions, dict)
        and isinstance(extensions.get("trackerkit"), dict)
    )


_CARD_SPECS = ("chara_card_v2", "chara_card_v3")


def is_character_card(data: object) -> bool:
    """Whether parsed data is a character card: `spec` `chara_card_v2` or `chara_card_v3`, or a
    V1 card (no `spec`; a text `name` and `first_mes`, the greeting every V1 card has)."""
    if not isinstance(data, dict):
        return False
    if data.get("spec") in _CARD_SPECS:
        return True
    return (
        "spec" not in data
        and isinstance(data.get("name"), str)
        and isinstance(data.get("first_mes"), str)
    )


def _is_tracker_def(data: dict[str, Any]) -> bool:
    values = list(data.values())
    return bool(values) and all(
        isinstance(v, dict) and v.get("type") in _ST_TYPES and isinstance(v.get("name"), str)
        for v in values
    )


def _is_schema(data: object) -> bool:
    return isinstance(data, dict) and (
        "$schema" in data
        or (data.get("type") == "object" and isinstance(data.get("properties"), dict))
    )


def _is_wtracker(data: dict[str, Any]) -> bool:
    if isinstance(data.get("schemaPresets"), dict):
        return True
    return _is_schema(data) or _is_schema(data.get("value"))


def _has_mvu_marks(node: object, depth: int) -> bool:
    """A `[value, "description"]` leaf, a `$meta` object or an extensible array anywhere."""
    if depth > 20:
        return False
    if isinstance(node, dict):
        if "$meta" in node or (
            set(node) == {"value", "description"} and isinstance(node["description"], str)
        ):
            return True
        return any(_has_mvu_marks(v, depth + 1) for v in node.values())
    if isinstance(node, list):
        if len(node) == 2 and isinstance(node[1], str) and not isinstance(node[0], dict | list):
            return True
        return _EXTENSIBLE_MARK in node or any(_has_mvu_marks(v, depth + 1) for v in node)
    return False
