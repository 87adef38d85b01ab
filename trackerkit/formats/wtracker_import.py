"""WTracker: draft-07 JSON Schema presets to trackers.

A preset's schema (`schemaPresets{name: {name, value: <schema>, html}}`, one preset, or a bare
schema) is an object whose plain properties make one record named after the preset: `number` and
`integer` with `minimum`/`maximum` become numbers with that range, `enum` a choice, `boolean` and
`string` themselves, and a `oneOf` of `const` values a choice (each value's description joins
the field's meaning). An array of objects becomes a keyed list of its own, its rows keyed by a
name-like text key (`name`, `title`, ...), else by its first text key (guessed). A nested object
is flattened into dotted fields and says so; any other `anyOf`, `oneOf`, `allOf`, `$ref` and
arrays below the top are reported, not guessed at. A property becomes a field as
`wtracker_properties` says, its type's default and bounds as `wtracker_types` says.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from trackerkit._pieces import check_tracker_id
from trackerkit.errors import BadRequestError, ImportRefusedError
from trackerkit.formats.detect import read_document
from trackerkit.formats.imported import Builder, Imported, ReportLine
from trackerkit.formats.leaves import NAME_KEYS, quoted
from trackerkit.formats.names import piece_id
from trackerkit.formats.wtracker_export import NOTE_KEY
from trackerkit.formats.wtracker_properties import _field, _tops
from trackerkit.tracker import Tracker

__all__ = ["import_wtracker", "wtracker_from_data"]


def import_wtracker(source: str | os.PathLike[str], text: str | None = None) -> Imported:
    """Import WTracker schema presets (the settings' `schemaPresets`, one preset, or a schema).

    Raises:
        ImportRefusedError: the file cannot be read or holds no object schema.
    """
    file, data = read_document(source, text)
    return wtracker_from_data(data, file)


def wtracker_from_data(data: object, file: str) -> Imported:
    """Import parsed WTracker data (see `import_wtracker`)."""
    if not isinstance(data, dict):
        raise ImportRefusedError(file, "is not a WTracker preset or JSON Schema (an object)")
    builder = Builder(file, "wtracker")
    # Each preset: where its schema is, its name, the schema, and its key (none outside
    # schemaPresets), which is the id of the preset's own tracker.
    presets: list[tuple[str, str, object, str]] = []
    if isinstance(data.get("schemaPresets"), dict):
        for key, preset in data["schemaPresets"].items():
            presets.append((*_preset(builder, f"schemaPresets.{key}", key, preset), key))
        for key in data:
            if key != "schemaPresets":
                builder.unmapped(key, "a WTracker setting (prompt, mode or option), not a schema")
    elif isinstance(data.get("value"), dict):
        presets.append((*_preset(builder, "", Path(file).stem, data), ""))
    elif data.get("type") == "object" and isinstance(data.get("properties"), dict):
        title = data.get("title")
        presets.append(("", title if isinstance(title, str) else Path(file).stem, data, ""))
    readable = [preset for preset in presets if isinstance(preset[2], dict)]
    if not readable:
        raise ImportRefusedError(file, "holds no WTracker schema (an object with properties)")
    own_ids: dict[str, str] = {}
    for where, name, schema, key in readable:
        assert isinstance(schema, dict)
        made = _schema(builder, where, name, schema)
        if made is not None and key:
            own_ids[made] = key
    if len(readable) == 1:  # one preset's trackers go together; several are alternatives
        builder.scene = readable[0][1]
    return _with_own_ids(builder.finish(), own_ids)


def _with_own_ids(imported: Imported, own_ids: dict[str, str]) -> Imported:
    """The import with each preset's own tracker under the preset's key, when that is a valid id
    not given to another (`export --to wtracker` keys a preset by its tracker's id, so a scene
    still links it); every other tracker keeps the id made from its name, numbered on when a key
    took it."""
    wanted: dict[str, str] = {}
    for tracker in imported.trackers:
        key = own_ids.get(tracker.name, "")
        if key and key not in wanted.values() and _is_id(key):
            wanted[tracker.name] = key
    taken = set(wanted.values())
    trackers: list[Tracker] = []
    for tracker in imported.trackers:
        new_id = wanted.get(tracker.name)
        if new_id is None:
            new_id = tracker.id if tracker.id not in taken else piece_id(tracker.name, taken)
            taken.add(new_id)
        trackers.append(tracker.model_copy(update={"id": new_id}))
    return replace(imported, trackers=tuple(trackers), scene_links=tuple(t.id for t in trackers))


def _is_id(key: str) -> bool:
    try:
        check_tracker_id(key)
    except BadRequestError:
        return False
    return True


def _preset(builder: Builder, where: str, key: str, preset: object) -> tuple[str, str, object]:
    if not isinstance(preset, dict):
        builder.unmapped(where or key, "a preset that is not an object")
        return where, key, None
    name = preset.get("name")
    for extra in preset:
        if extra == "html":
            builder.unmapped(
                f"{where}.html" if where else "html",
                "an HTML display template; a trackerkit template is macro text, so write one",
            )
        elif extra not in ("name", "value"):
            builder.unmapped(
                f"{where}.{extra}" if where else extra, "a preset setting, not a field"
            )
    prefix = f"{where}.value" if where else "value"
    return prefix, name if isinstance(name, str) and name.strip() else key, preset.get("value")


def _schema(builder: Builder, where: str, name: str, schema: dict[str, Any]) -> str | None:
    """One preset's trackers: a record of its plain properties, and a keyed list per array of
    objects. A preset whose only property is such an array (what `export --to wtracker` writes
    for a list: `rows`) is that list, named after the preset, so a list comes back by its name.
    Returns the name of the preset's own tracker (the record, or that list), if one was begun."""
    properties = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(properties, dict):
        builder.unmapped(where or name, "its schema is not an object with properties")
        return None
    about, note = _described(schema)
    lists = [key for key, prop in properties.items() if _is_rows(prop)]
    draft = None
    if len(lists) < len(properties) or not properties:
        draft = builder.tracker(name, "record", about)
        if note:
            draft.notes.append(note)
    own = draft.name if draft is not None else None
    path = f"{where}.properties" if where else "properties"
    for key, prop in properties.items():
        here = f"{path}.{key}"
        if key in lists:
            whole = len(properties) == 1
            made = _keyed_list(
                builder,
                name if whole else f"{name} {key}",
                here,
                prop,
                about if whole else "",
            )
            own = made if whole else own
        else:
            assert draft is not None
            _field(builder, draft, here, key, prop, [])
    if draft is not None:
        _tops(builder, draft)
    return own


def _described(node: dict[str, Any]) -> tuple[str, str]:
    """A schema's description, and the tracker note that ends it when `export --to wtracker`
    named it under NOTE_KEY (the description then without it); else the description whole."""
    about = node.get("description")
    about = about if isinstance(about, str) else ""
    note = node.get(NOTE_KEY)
    if isinstance(note, str) and note.strip() and about.endswith(note):
        return about[: -len(note)].rstrip(), note
    return about, ""


def _is_rows(prop: object) -> bool:
    """An array of objects: a keyed list of its own, when a key names the rows."""
    return (
        isinstance(prop, dict)
        and prop.get("type") == "array"
        and isinstance(prop.get("items"), dict)
        and prop["items"].get("type") == "object"
    )


def _keyed_list(
    builder: Builder, name: str, where: str, prop: dict[str, Any], about: str = ""
) -> str | None:
    """A keyed list of the array's rows; returns its name, or None when none was made."""
    items = prop["items"]
    properties = items.get("properties")
    if not isinstance(properties, dict):
        builder.unmapped(where, "an array of objects with no properties")
        return None
    # Rows are keyed by a text key: a name-like one, else the first (as SillyTavern-Tracker's
    # ARRAY_OBJECT import does), which is then a guess.
    texts = [k for k, v in properties.items() if isinstance(v, dict) and v.get("type") == "string"]
    key = next((k for k in NAME_KEYS if k in texts), texts[0] if texts else None)
    if key is None:
        builder.unmapped(where, "an array of objects with no text key to key rows by")
        return None
    own, note = _described(prop)
    draft = builder.tracker(name, "list", own if own.strip() else about, where)
    if note:
        draft.notes.append(note)
    first = len(builder.lines)
    for column, column_prop in properties.items():
        if column == key:
            continue
        here = f"{where}.items.properties.{column}"
        if isinstance(column_prop, dict) and column_prop.get("type") in ("object",):
            builder.unmapped(here, "an object inside a row; a row holds plain fields only")
            continue
        _field(builder, draft, here, column, column_prop, [])
    if not draft.fields:  # a list needs a field besides the row's name: no tracker is made
        builder.drafts.remove(draft)
        builder.unmapped(
            where,
            f"rows keyed by {quoted(key)} with no other field that could be imported; a list "
            "needs one besides the row's name, so no tracker was made",
        )
        return None
    guessed = key not in NAME_KEYS
    builder.lines.insert(
        first,
        ReportLine(
            "guessed" if guessed else "exact",
            f"{where}.items.properties.{key}",
            draft.name,
            f"keyed list: rows keyed by {quoted(key)}"
            + (", guessed: the first text key (no name, title or id key)" if guessed else ""),
        ),
    )
    _tops(builder, draft)
    return draft.name
