"""WTracker: draft-07 JSON Schema presets to trackers.

A preset's schema (`schemaPresets{name: {name, value: <schema>, html}}`, one preset, or a bare
schema) is an object whose plain properties make one record named after the preset: `number` and
`integer` with `minimum`/`maximum` become numbers with that range, `enum` a choice, `boolean` and
`string` themselves, and a `oneOf` of `const` values a choice (each value's description joins
the field's meaning). An array of objects becomes a keyed list of its own, its rows keyed by a
name-like text key (`name`, `title`, ...), else by its first text key (guessed). A nested object
is flattened into dotted fields and says so; any other `anyOf`, `oneOf`, `allOf`, `$ref` and
arrays below the top are reported, not guessed at.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from trackerkit._pieces import check_tracker_id
from trackerkit._problems import MAX_TEXT
from trackerkit.errors import BadRequestError, ImportRefusedError
from trackerkit.fields import describe_value, is_number
from trackerkit.formats.detect import read_document
from trackerkit.formats.imported import Builder, Imported, ReportLine, TrackerDraft, own_start
from trackerkit.formats.leaves import NAME_KEYS, number_fault, plain_text, quoted
from trackerkit.formats.names import piece_id
from trackerkit.formats.wtracker_export import NOTE_KEY
from trackerkit.line import line_of
from trackerkit.tracker import Tracker

__all__ = ["import_wtracker", "wtracker_from_data"]

_UNMAPPED_KEYWORDS = ("$ref", "anyOf", "oneOf", "allOf", "not", "if")


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


_TOP = re.compile(r"^(.*?)\s*At most (\S+)\.$", re.DOTALL)


def _tops(builder: Builder, draft: TrackerDraft) -> None:
    """A number whose meaning ends "At most hp_max." with hp_max a number field of the tracker
    takes its top from that field (TR-5): how `export --to wtracker` writes such a top, which a
    JSON Schema cannot hold. Read from text, so the report line says guessed."""
    for spec in draft.fields:
        found = _TOP.match(str(spec.get("description", "")))
        if spec.get("type") != "number" or found is None or "max" in spec:
            continue
        top_key = found.group(2)
        top = draft.columns.get(top_key, top_key)
        target = draft.field_named(top)
        if target is None or target.get("type") != "number" or top == spec["name"]:
            continue
        if _reaches(draft, top, spec["name"]):
            continue  # a loop of tops; left as written
        spec["maxField"] = top
        spec["description"] = found.group(1)
        target_line = f"{draft.name}.{spec['name']}"
        for index, line in enumerate(builder.lines):
            if line.target == target_line:
                builder.lines[index] = replace(
                    line,
                    kind="guessed",
                    detail=f"{line.detail}; its top is the field {top}, guessed from "
                    f'"At most {top_key}." in its description',
                )


def _reaches(draft: TrackerDraft, start: str, goal: str) -> bool:
    """Whether following tops (maxField) from the field `start` comes to `goal`."""
    seen: set[str] = set()
    here: str | None = start
    while here is not None and here not in seen:
        if here == goal:
            return True
        seen.add(here)
        spec = draft.field_named(here)
        here = spec.get("maxField") if spec is not None else None
    return False


def _field(
    builder: Builder, draft: TrackerDraft, where: str, key: str, prop: object, path: list[str]
) -> None:
    if not isinstance(prop, dict):
        builder.unmapped(where, "a property schema that is not an object")
        return
    told = ""
    consts = _consts(prop)
    if consts is not None:
        prop, told = consts
    used = [k for k in _UNMAPPED_KEYWORDS if k in prop]
    if used:
        builder.unmapped(where, f"uses {', '.join(used)}, which trackerkit fields cannot express")
        return
    dotted = ".".join([*path, key])
    how = f"; flattened from a nested object as {quoted(dotted)}" if path else ""
    nullable = False
    kind = prop.get("type")
    if isinstance(kind, list):
        types = [t for t in kind if t != "null"]
        if len(types) != 1:
            builder.unmapped(where, f"a type union {kind}, which no field type holds")
            return
        kind = types[0]
        how += "; null allowed in the source, but a field always holds a value"
        nullable = True
    text = prop.get("description")
    meaning = " ".join(part for part in (text if isinstance(text, str) else "", told) if part)
    if consts is not None:
        how += "; the choices read from oneOf const values" + (
            ", each one's description kept in the meaning" if told else ""
        )
    if kind == "object":
        inner = prop.get("properties")
        if not isinstance(inner, dict) or not inner:
            builder.unmapped(where, "an object with no properties")
            return
        for sub, sub_prop in inner.items():
            _field(builder, draft, f"{where}.properties.{sub}", sub, sub_prop, [*path, key])
        return
    spec_or_reason = _spec(prop, kind)
    if isinstance(spec_or_reason, str):
        builder.unmapped(where, spec_or_reason)
        return
    spec, detail, guessed = spec_or_reason
    draft.add(
        where,
        dotted,
        spec,
        text=meaning,
        detail=detail + how,
        guessed=guessed or bool(path) or nullable,
    )


_CONST_KEYS = frozenset(("const", "description", "title"))


def _consts(prop: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """A `oneOf` of `const` values (an enum that gives each value a description): the property
    with that enum in its place, and the values' descriptions as one text (`dawn: early`);
    None for any other property."""
    branches = prop.get("oneOf")
    if (
        "enum" in prop
        or not isinstance(branches, list)
        or not branches
        or not all(isinstance(b, dict) and "const" in b and set(b) <= _CONST_KEYS for b in branches)
    ):
        return None
    told = [
        f"{_as_choice(b['const'])}: {about}"
        for b in branches
        for about in [b.get("description", b.get("title"))]
        if isinstance(about, str) and about.strip()
    ]
    enum = {key: value for key, value in prop.items() if key != "oneOf"}
    enum["enum"] = [b["const"] for b in branches]
    return enum, "; ".join(told)


def _spec(prop: dict[str, Any], kind: object) -> tuple[dict[str, Any], str, bool] | str:
    """The field for a property, how it was read, and whether guessed (a loss makes it so: a
    default or bound the field cannot hold is named in the detail, never dropped unsaid)."""
    if isinstance(prop.get("enum"), list):
        return _choice(prop)
    if kind in ("number", "integer"):
        return _number(prop, kind, prop.get("default"))
    if kind == "boolean":
        return _boolean(prop)
    if kind == "string":
        return _text(prop)
    if kind == "array":
        items = prop.get("items")
        if isinstance(items, dict) and items.get("type") in (
            "string",
            "number",
            "integer",
            "boolean",
        ):
            return _joined(prop)
        return "an array below the top of the schema, or of objects without a name key"
    return f"no type trackerkit maps (type {plain_text(kind)})"


def _choice(prop: dict[str, Any]) -> tuple[dict[str, Any], str, bool] | str:
    enum, default = prop["enum"], prop.get("default")
    choices = list(dict.fromkeys(_as_choice(v) for v in enum))
    if not choices or any(not c for c in choices) or any(len(c) > MAX_TEXT for c in choices):
        return "an enum with no usable values"
    spec: dict[str, Any] = {"type": "choice", "choices": choices}
    lost: list[str] = []
    if "default" in prop and _as_choice(default) in choices:
        spec["default"] = _as_choice(default)
    elif "default" in prop:
        lost.append(f"its default {describe_value(default)} (not one of the choices)")
    mixed = any(not isinstance(v, str) for v in enum)
    detail = f"choice of {len(choices)}" + (
        "; guessed: non-text enum values written as text" if mixed else ""
    )
    detail += _merged(enum)
    return spec, detail + _lost(lost, "starts at its first choice"), mixed or bool(lost)


def _merged(enum: list[object]) -> str:
    """`; 2 and the text "2" both became the choice "2"` for each choice that two or more
    different enum values became, or nothing."""
    sources: dict[str, dict[str, None]] = {}  # each choice's values, told apart as described
    for value in enum:
        sources.setdefault(_as_choice(value), {})[describe_value(value)] = None
    told = ""
    for choice, found in sources.items():
        if len(found) > 1:
            *first, last = found
            both = "both" if len(found) == 2 else "all"
            told += f"; {', '.join(first)} and {last} {both} became the choice {quoted(choice, 40)}"
    return told


def _as_choice(value: object) -> str:
    """An enum value as the text a choice holds: a text as it is, a plain value as written
    (`2` -> "2"), an object or a list as its JSON (never a Python repr), so a default is read
    the way the choices are."""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return value if isinstance(value, str) else plain_text(value)


def _boolean(prop: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
    default = prop.get("default")
    if isinstance(default, bool):
        return {"type": "boolean", "default": default}, "boolean", False
    if "default" in prop:
        lost = [f"its default {describe_value(default)} (not true or false)"]
        return {"type": "boolean"}, "boolean" + _lost(lost, "starts false"), True
    return {"type": "boolean"}, "boolean", False


def _text(prop: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
    default = prop.get("default")
    spec: dict[str, Any] = {"type": "text"}
    lost: list[str] = []
    if isinstance(default, str) and len(default) <= MAX_TEXT:
        spec["default"] = default
    elif "default" in prop:
        why = "longer than a text holds" if isinstance(default, str) else "not a text"
        lost.append(f"its default {describe_value(default)} ({why})")
    dropped = [k for k in ("maxLength", "minLength", "pattern", "format") if k in prop]
    extra = f"; {', '.join(dropped)} not kept (a text field has no limits)" if dropped else ""
    return spec, "text" + extra + _lost(lost, "starts empty"), bool(lost or dropped)


def _joined(prop: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
    default = prop.get("default")
    spec: dict[str, Any] = {"type": "text"}
    lost: list[str] = []
    if isinstance(default, list) and all(not isinstance(v, dict | list) for v in default):
        joined = ", ".join(plain_text(v) for v in default)
        if len(joined) <= MAX_TEXT:
            spec["default"] = joined
        else:
            lost.append("its default (longer than a text holds)")
    elif "default" in prop:
        lost.append(f"its default {describe_value(default)} (not a list of plain values)")
    detail = 'text, guessed: an array of plain values kept as one text, joined with ", "'
    return spec, detail + _lost(lost, "starts empty"), True


def _lost(lost: list[str], start: str) -> str:
    """The end of a report line naming what could not be kept, or nothing."""
    if not lost:
        return ""
    starts = f", so it {start}" if any(item.startswith("its default") for item in lost) else ""
    return f"; not kept: {'; '.join(lost)}{starts}"


def _number(
    prop: dict[str, Any], kind: object, default: object
) -> tuple[dict[str, Any], str, bool]:
    spec: dict[str, Any] = {"type": "number"}
    notes: list[str] = []
    lost: list[str] = []
    guessed = False
    for bound, exclusive, key in (
        ("minimum", "exclusiveMinimum", "min"),
        ("maximum", "exclusiveMaximum", "max"),
    ):
        if is_number(prop.get(bound)) and not isinstance(prop[bound], bool):
            spec[key] = prop[bound]
            if exclusive in prop:
                lost.append(f"{exclusive} {describe_value(prop[exclusive])} beside {bound}")
        elif is_number(prop.get(exclusive)) and not isinstance(prop[exclusive], bool):
            spec[key] = prop[exclusive]
            notes.append(f"{exclusive} {prop[exclusive]} read as an inclusive {key}")
            guessed = True
            if bound in prop:
                lost.append(f"{bound} {describe_value(prop[bound])} ({number_fault(prop[bound])})")
        else:
            lost.extend(
                f"{name} {describe_value(prop[name])} ({number_fault(prop[name])})"
                for name in (bound, exclusive)
                if name in prop
            )
    dropped = None
    if "min" in spec and "max" in spec and spec["min"] > spec["max"]:
        dropped = f"the range: minimum {spec.pop('min')} lies above maximum {spec.pop('max')}"
        lost.append(dropped)
    held = _held(default, spec)
    if held is not None:
        assert isinstance(default, int | float)
        spec["default"] = held
        if held != default:
            side = f"above max {spec['max']}" if default > held else f"below min {spec['min']}"
            notes.append(
                f"its default {describe_value(default)} lies {side}, so it starts at {held}"
            )
            guessed = True
    elif "default" in prop:
        lost.append(f"its default {describe_value(default)} ({number_fault(default)})")
    if dropped is not None and "default" in spec:
        # No range holds the default now: say where the field starts, as a held default says.
        lost[lost.index(dropped)] += f", so it starts at its default {line_of(spec['default'])}"
    if kind == "integer":
        notes.append("integer (a trackerkit number may hold fractions)")
        guessed = True
    bounds = [f"{key} {spec[key]}" for key in ("min", "max") if key in spec]
    start = f"starts at {line_of(own_start(spec))}"
    detail = " ".join(["number", *bounds]) + "".join(f"; {n}" for n in notes)
    return spec, detail + _lost(lost, start), guessed or bool(lost)


def _held(default: object, spec: dict[str, Any]) -> int | float | None:
    """A number default held inside the field's range (TR-18), as a stored value would be: one
    past 2^53 too, at the top (or the bottom, for a very negative one). None for what is no
    number, and for one no bound brings to a number trackerkit holds (not finite, or past 2^53
    with no bound on its side)."""
    if not isinstance(default, int | float) or isinstance(default, bool):
        return None
    if isinstance(default, float) and not math.isfinite(default):
        return None
    held = max(default, spec["min"]) if "min" in spec else default
    held = min(held, spec["max"]) if "max" in spec else held
    return held if is_number(held) else None


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
