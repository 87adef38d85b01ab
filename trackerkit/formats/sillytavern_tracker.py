"""SillyTavern-Tracker: a `trackerDef` (or a preset holding one) to trackers.

The root's `STRING` and `ARRAY` fields make one record named after the preset; an `OBJECT` is a
record of its own, a `FOR_EACH_OBJECT` a keyed list with text columns (`Characters: {"Emma":
{Hair, Outfit, StateOfDress}}`), a `FOR_EACH_ARRAY` a keyed list with one text column and an
`ARRAY_OBJECT` a keyed list by its name-like sub-field. `ARRAY` values become one text, joined.
`prompt` is the field's meaning, `defaultValue` its start; `exampleValues` and the presence are
kept in the report (the source has no number, yes/no or choice type, so every field is text).
A `defaultValue` that is one `<...>` placeholder (`<Updated time if changed>`) is the shape the
source shows the model, not a value: such a field starts empty, and the report says so.
A starting row (a `defaultValue` key) is reported with its values, an `OBJECT` sub-field's by its
dotted column; a key of a row that is none of the nested fields becomes a text column, reported
as guessed and naming the rows that hold it, as the MVU importer does with a key its template
lacks (see `trackerkit.formats.mvu`), so no key of a row is left without a line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from trackerkit._problems import MAX_TEXT
from trackerkit.errors import ImportRefusedError
from trackerkit.formats.detect import read_document
from trackerkit.formats.imported import Builder, Imported, TrackerDraft, quoted_row
from trackerkit.formats.leaves import NAME_KEYS, quoted, rows_named

__all__ = ["import_sillytavern_tracker", "sillytavern_tracker_from_data"]

#: A tuple, not a set: a type written as a list or an object must not make membership raise.
_TYPES = ("STRING", "ARRAY", "OBJECT", "FOR_EACH_OBJECT", "FOR_EACH_ARRAY", "ARRAY_OBJECT")
#: One `<...>` and nothing else: the source's placeholder for what the model writes.
_PLACEHOLDER = re.compile(r"<[^<>]+>")
_PRESENCE = {
    "STATIC": "; presence STATIC: the source never updates it, trackerkit lets the model update it",
    "EPHEMERAL": "; presence EPHEMERAL: the source keeps it for one message, trackerkit keeps it",
}


def import_sillytavern_tracker(source: str | os.PathLike[str], text: str | None = None) -> Imported:
    """Import a SillyTavern-Tracker `trackerDef`, or a preset holding one.

    Raises:
        ImportRefusedError: the file cannot be read, or holds no `trackerDef` map of fields.
    """
    file, data = read_document(source, text)
    return sillytavern_tracker_from_data(data, file)


def sillytavern_tracker_from_data(data: object, file: str) -> Imported:
    """Import parsed SillyTavern-Tracker data (see `import_sillytavern_tracker`)."""
    if not isinstance(data, dict):
        raise ImportRefusedError(
            file, "is not a SillyTavern-Tracker trackerDef or preset (an object)"
        )
    builder = Builder(file, "sillytavern-tracker")
    definition: object = data
    title = Path(file).stem
    if "trackerDef" in data:
        definition = data["trackerDef"]
        title = _preset(builder, data, title)
    builder.scene = title
    if not isinstance(definition, dict) or not any(
        isinstance(v, dict) and v.get("type") in _TYPES for v in definition.values()
    ):
        raise ImportRefusedError(
            file, 'holds no trackerDef: a map of fields such as "field-0" with a name and a type'
        )
    _fields(builder, definition, title)
    return builder.finish()


def _preset(builder: Builder, data: dict[str, Any], title: str) -> str:
    """A preset's title (its first name of `presetName`, `name`, `title`); its other keys reported."""
    for key in ("presetName", "name", "title"):
        if isinstance(data.get(key), str) and data[key].strip():
            title = data[key]
            break
    for key in data:
        if key in ("presetName", "name", "title") and data[key] == title:
            builder.line(
                "exact", key, title, "the preset's name names the record of its root fields"
            )
        elif key != "trackerDef":
            builder.unmapped(key, "a preset setting (prompt, template or option), not a field")
    return title


def _fields(builder: Builder, definition: dict[str, Any], title: str) -> None:
    """Each field of the trackerDef: texts into one record named `title`, objects into their own."""
    root: TrackerDraft | None = None
    for key, spec in definition.items():
        name = _name(key, spec)
        kind = spec.get("type") if isinstance(spec, dict) else None
        if not isinstance(spec, dict) or kind not in _TYPES:
            builder.unmapped(name, _not_a_field(spec, kind))
        elif kind in ("STRING", "ARRAY"):
            if root is None:
                root = builder.tracker(
                    title, "record", f"SillyTavern-Tracker preset {quoted(title)}"
                )
            _text(builder, root, name, name, spec, "")
        elif kind == "OBJECT":
            draft = builder.tracker(name, "record", _about(spec), name)
            _nested(builder, draft, spec, name, [])
        else:
            _keyed(builder, name, spec, kind)


def _not_a_field(spec: object, kind: object) -> str:
    """Why an entry is no field: no definition, no type, or a type the source does not have."""
    types = ", ".join(sorted(_TYPES))
    if not isinstance(spec, dict):
        return f"not a field definition (an object with a type: {types})"
    if kind is None:
        return f"a field definition without a type ({types})"
    return f"its type {quoted(str(kind), 20)} is none SillyTavern-Tracker has ({types})"


def _name(key: str, spec: object) -> str:
    name = spec.get("name") if isinstance(spec, dict) else None
    return name if isinstance(name, str) and name.strip() else key


def _about(spec: dict[str, Any]) -> str:
    prompt = spec.get("prompt")
    return prompt if isinstance(prompt, str) else ""


def _nested_specs(spec: dict[str, Any]) -> list[tuple[str, object]]:
    nested = spec.get("nestedFields")
    if isinstance(nested, dict):
        return [(_name(k, v), v) for k, v in nested.items()]
    return []


def _kinds(spec: dict[str, Any]) -> dict[str, object]:
    """Each nested field's name and its type (None when it has none)."""
    return {n: v.get("type") if isinstance(v, dict) else None for n, v in _nested_specs(spec)}


def _examples(spec: dict[str, Any]) -> str:
    examples = spec.get("exampleValues")
    if isinstance(examples, list) and examples:
        shown = " | ".join(quoted(_joined(e), 30) for e in examples[:3])
        return f"; examples {shown}"
    return ""


def _joined(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(_joined(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_joined(v)}" for k, v in value.items())
    return "" if value is None else str(value)


def _text(
    builder: Builder, draft: TrackerDraft, source: str, key: str, spec: dict[str, Any], how: str
) -> None:
    """A STRING (exact) or ARRAY (joined, guessed) field as text."""
    kind = spec.get("type")
    default = spec.get("defaultValue")
    start = _joined(default) if default is not None else None
    if start is not None and len(start) > MAX_TEXT:
        builder.unmapped(source, f"its default is longer than {MAX_TEXT:,} characters")
        return
    placeholder = start is not None and _PLACEHOLDER.fullmatch(start.strip()) is not None
    field: dict[str, Any] = {"type": "text"}
    if start and not placeholder:
        field["default"] = start
    detail = (
        "text"
        if kind == "STRING"
        else 'text, guessed: an ARRAY kept as one text, items joined with ", "'
    )
    presence = spec.get("presence")
    detail += (
        how + _examples(spec) + (_PRESENCE.get(presence, "") if isinstance(presence, str) else "")
    )
    if placeholder:
        detail += (
            f"; starts empty: its default {quoted(start or '', 40)} is a placeholder for the model"
        )
    draft.add(source, key, field, text=_about(spec), detail=detail, guessed=kind != "STRING")


def _nested(
    builder: Builder, draft: TrackerDraft, spec: dict[str, Any], source: str, path: list[str]
) -> None:
    """An OBJECT's sub-fields as text fields, nested OBJECTs flattened with dotted names."""
    for name, inner in _nested_specs(spec):
        here = f"{source}.{name}"
        kind = inner.get("type") if isinstance(inner, dict) else None
        if not isinstance(inner, dict) or kind not in _TYPES:
            builder.unmapped(here, _not_a_field(inner, kind))
        elif kind in ("STRING", "ARRAY"):
            dotted = ".".join([*path, name])
            how = f"; flattened as {quoted(dotted)}" if path else ""
            _text(builder, draft, here, dotted, inner, how)
        elif kind == "OBJECT" and not _nested_specs(inner):
            builder.unmapped(here, "an OBJECT with no nested fields: nothing in it to make a field")
        elif kind == "OBJECT":
            _nested(builder, draft, inner, here, [*path, name])
        else:
            builder.unmapped(
                here, f"a {kind} inside an object or row: a field cannot hold rows of its own"
            )


def _keyed(builder: Builder, name: str, spec: dict[str, Any], kind: str) -> None:
    draft = builder.tracker(name, "list", _about(spec), name)
    presence = spec.get("presence")
    if kind == "FOR_EACH_OBJECT":
        draft.notes.append(f"One row per key of {name}.")
        builder.line(
            "exact",
            name,
            draft.name,
            "keyed list: one row per key (FOR_EACH_OBJECT)"
            + (_PRESENCE.get(presence, "") if isinstance(presence, str) else ""),
        )
        _nested(builder, draft, spec, name, [])
        _default_rows(builder, draft, name, spec.get("defaultValue"), None, _kinds(spec))
    elif kind == "FOR_EACH_ARRAY":
        builder.line("guessed", name, draft.name, "keyed list: one row per key (FOR_EACH_ARRAY)")
        draft.add(
            name,
            "items",
            {"type": "text"},
            text=_about(spec),
            detail='text, guessed: each key\'s array kept as one text, items joined with ", "',
            guessed=True,
        )
        _default_rows(builder, draft, name, spec.get("defaultValue"), "items", {})
    else:
        nested = _nested_specs(spec)
        # Rows are keyed by a text sub-field: a name-like one first, else the first text one.
        names = [n for n, v in nested if isinstance(v, dict) and v.get("type") == "STRING"]
        key = next((k for k in NAME_KEYS if k in names), names[0] if names else None)
        if key is None:
            builder.unmapped(name, "an ARRAY_OBJECT with no text sub-field to key its rows by")
            return
        builder.line(
            "guessed",
            f"{name}.{key}",
            draft.name,
            f"keyed list (ARRAY_OBJECT): rows keyed by the sub-field {quoted(key)}",
        )
        # The text sub-field itself: another sub-field (an OBJECT) may bear the same name.
        keyed = next(
            k
            for k, v in spec["nestedFields"].items()
            if isinstance(v, dict) and v.get("type") == "STRING" and _name(k, v) == key
        )
        rest = {k: v for k, v in spec["nestedFields"].items() if k != keyed}
        _nested(builder, draft, {"nestedFields": rest}, name, [])
        default = spec.get("defaultValue")
        if isinstance(default, list) and all(
            isinstance(r, dict) and isinstance(r.get(key), str) and r[key].strip() for r in default
        ):
            default = {r[key]: {k: v for k, v in r.items() if k != key} for r in default}
        _default_rows(builder, draft, name, default, None, _kinds(spec))


def _default_rows(
    builder: Builder,
    draft: TrackerDraft,
    name: str,
    default: object,
    column: str | None,
    fields: dict[str, object],
) -> None:
    """A keyed field's `defaultValue`: rows by key (`{"Emma": {"Hair": ...}}`), else reported.

    A row key that names no nested field becomes a text column (guessed); a row that is no
    object of sub-fields is reported with its value.

    Args:
        column: the one column a row's plain value goes to (FOR_EACH_ARRAY's `items`), or None
            when each row is an object of sub-fields.
        fields: the nested fields' names and types, which a row's keys are read by.
    """
    where = f"{name}.defaultValue"
    if default is None or default == "" or default == [] or default == {}:
        return
    if not isinstance(default, dict):
        builder.unmapped(
            where,
            f"a start {quoted(_joined(default), 40)} for the whole list; a row starts from its "
            "columns' defaults",
        )
        return
    rows: list[tuple[str, dict[str, object]]] = []
    holders: dict[str, list[str]] = {}
    for row, values in default.items():
        if column is not None:
            rows.append((row, {column: _joined(values)}))
        elif isinstance(values, dict):
            held: dict[str, object] = {}
            for key, value in values.items():
                if fields.get(key) == "OBJECT":
                    held.update(_flat(key, value))
                else:
                    held[key] = _joined(value)
                if key not in fields:
                    holders.setdefault(key, []).append(row)
            rows.append((row, held))
        else:
            if values is not None:  # a null row holds nothing to leave behind
                builder.unmapped(
                    f"{where} row {quoted_row(row)}",
                    f"its value {quoted(_joined(values), 40)} is not an object of the nested "
                    "fields, so no column holds it",
                )
            rows.append((row, {}))
    for key, names in holders.items():
        who = f"{rows_named(names)} {'holds' if len(names) == 1 else 'hold'}"
        draft.add(
            f"{where}.*.{key}",
            key,
            {"type": "text"},
            detail=f"text, guessed: none of the nested fields: {who} it",
            guessed=True,
        )
    draft.starting_rows(where, rows)


def _flat(key: str, value: object) -> list[tuple[str, str]]:
    """A row's value by its column key: an `OBJECT`'s sub-values by their dotted keys."""
    if isinstance(value, dict) and value:
        return [pair for k, v in value.items() for pair in _flat(f"{key}.{k}", v)]
    return [(key, _joined(value))]
