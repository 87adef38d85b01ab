"""WTracker: draft-07 JSON Schema presets to trackers.

A preset's schema (`schemaPresets{name: {name, value: <schema>, html}}`, one preset, or a bare
schema) is an object whose plain properties make one record named after the preset: `number` and
`integer` with `minimum`/`maximum` become numbers with that range, `enum` a choice, `boolean` and
`string` themselves. An array of objects with a name-like key (`name`, `title`, ...) becomes a
keyed list of its own. A nested object is flattened into dotted fields and says so; `anyOf`,
`oneOf`, `allOf`, `$ref` and arrays below the top are reported, not guessed at.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from trackerkit._problems import MAX_TEXT
from trackerkit.errors import ImportRefusedError
from trackerkit.fields import is_number
from trackerkit.formats.detect import read_document
from trackerkit.formats.imported import Builder, Imported, TrackerDraft
from trackerkit.formats.leaves import NAME_KEYS, plain_text, quoted

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
    presets: list[tuple[str, str, object]] = []
    if isinstance(data.get("schemaPresets"), dict):
        for key, preset in data["schemaPresets"].items():
            presets.append(_preset(builder, f"schemaPresets.{key}", key, preset))
        for key in data:
            if key != "schemaPresets":
                builder.unmapped(key, "a WTracker setting (prompt, mode or option), not a schema")
    elif isinstance(data.get("value"), dict):
        presets.append(_preset(builder, "", Path(file).stem, data))
    elif data.get("type") == "object" and isinstance(data.get("properties"), dict):
        title = data.get("title")
        presets.append(("", title if isinstance(title, str) else Path(file).stem, data))
    readable = [
        (where, name, schema) for where, name, schema in presets if isinstance(schema, dict)
    ]
    if not readable:
        raise ImportRefusedError(file, "holds no WTracker schema (an object with properties)")
    for where, name, schema in readable:
        assert isinstance(schema, dict)
        _schema(builder, where, name, schema)
    if len(readable) == 1:  # one preset's trackers go together; several are alternatives
        builder.scene = readable[0][1]
    return builder.finish()


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


def _schema(builder: Builder, where: str, name: str, schema: dict[str, Any]) -> None:
    properties = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(properties, dict):
        builder.unmapped(where or name, "its schema is not an object with properties")
        return
    about = schema.get("description")
    draft = builder.tracker(name, "record", about if isinstance(about, str) else "")
    path = f"{where}.properties" if where else "properties"
    for key, prop in properties.items():
        here = f"{path}.{key}"
        if (
            isinstance(prop, dict)
            and prop.get("type") == "array"
            and isinstance(prop.get("items"), dict)
            and prop["items"].get("type") == "object"
        ):
            _keyed_list(builder, f"{name} {key}", here, prop)
        else:
            _field(builder, draft, here, key, prop, [])


def _field(
    builder: Builder, draft: TrackerDraft, where: str, key: str, prop: object, path: list[str]
) -> None:
    if not isinstance(prop, dict):
        builder.unmapped(where, "a property schema that is not an object")
        return
    used = [k for k in _UNMAPPED_KEYWORDS if k in prop]
    if used:
        builder.unmapped(where, f"uses {', '.join(used)}, which trackerkit fields cannot express")
        return
    dotted = ".".join([*path, key])
    how = f"; flattened from a nested object as {quoted(dotted)}" if path else ""
    kind = prop.get("type")
    if isinstance(kind, list):
        types = [t for t in kind if t != "null"]
        if len(types) != 1:
            builder.unmapped(where, f"a type union {kind}, which no field type holds")
            return
        kind = types[0]
        how += "; null allowed in the source, but a field always holds a value"
    text = prop.get("description")
    meaning = text if isinstance(text, str) else ""
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
    draft.add(where, dotted, spec, text=meaning, detail=detail + how, guessed=guessed or bool(path))


def _spec(prop: dict[str, Any], kind: object) -> tuple[dict[str, Any], str, bool] | str:
    default = prop.get("default")
    enum = prop.get("enum")
    if isinstance(enum, list):
        choices = list(dict.fromkeys(v if isinstance(v, str) else plain_text(v) for v in enum))
        if not choices or any(not c for c in choices) or any(len(c) > MAX_TEXT for c in choices):
            return "an enum with no usable values"
        spec: dict[str, Any] = {"type": "choice", "choices": choices}
        if isinstance(default, str) and default in choices:
            spec["default"] = default
        mixed = any(not isinstance(v, str) for v in enum)
        return (
            spec,
            f"choice of {len(choices)}"
            + ("; guessed: non-text enum values written as text" if mixed else ""),
            mixed,
        )
    if kind in ("number", "integer"):
        return _number(prop, kind, default)
    if kind == "boolean":
        spec = {"type": "boolean"}
        if isinstance(default, bool):
            spec["default"] = default
        return spec, "boolean", False
    if kind == "string":
        spec = {"type": "text"}
        if isinstance(default, str) and len(default) <= MAX_TEXT:
            spec["default"] = default
        dropped = [k for k in ("maxLength", "minLength", "pattern", "format") if k in prop]
        extra = f"; {', '.join(dropped)} not kept (a text field has no limits)" if dropped else ""
        return spec, "text" + extra, False
    if kind == "array":
        items = prop.get("items")
        if isinstance(items, dict) and items.get("type") in (
            "string",
            "number",
            "integer",
            "boolean",
        ):
            spec = {"type": "text"}
            if isinstance(default, list):
                spec["default"] = ", ".join(plain_text(v) for v in default)
            return (
                spec,
                'text, guessed: an array of plain values kept as one text, joined with ", "',
                True,
            )
        return "an array below the top of the schema, or of objects without a name key"
    return f"no type trackerkit maps (type {plain_text(kind)})"


def _number(
    prop: dict[str, Any], kind: object, default: object
) -> tuple[dict[str, Any], str, bool]:
    spec: dict[str, Any] = {"type": "number"}
    notes: list[str] = []
    guessed = False
    for bound, exclusive, key in (
        ("minimum", "exclusiveMinimum", "min"),
        ("maximum", "exclusiveMaximum", "max"),
    ):
        if is_number(prop.get(bound)):
            spec[key] = prop[bound]
        elif is_number(prop.get(exclusive)):
            spec[key] = prop[exclusive]
            notes.append(f"{exclusive} {prop[exclusive]} read as an inclusive {key}")
            guessed = True
    if "min" in spec and "max" in spec and spec["min"] > spec["max"]:
        notes.append(f"minimum {spec.pop('min')} above maximum {spec.pop('max')}: range not kept")
    if is_number(default) and spec.get("min", default) <= default <= spec.get("max", default):
        spec["default"] = default
    if kind == "integer":
        notes.append("integer (a trackerkit number may hold fractions)")
    bounds = [f"{key} {spec[key]}" for key in ("min", "max") if key in spec]
    detail = " ".join(["number", *bounds]) + "".join(f"; {n}" for n in notes)
    return spec, detail, guessed


def _keyed_list(builder: Builder, name: str, where: str, prop: dict[str, Any]) -> None:
    items = prop["items"]
    properties = items.get("properties")
    if not isinstance(properties, dict):
        builder.unmapped(where, "an array of objects with no properties")
        return
    key = next(
        (
            k
            for k in NAME_KEYS
            if isinstance(properties.get(k), dict) and properties[k].get("type") == "string"
        ),
        None,
    )
    if key is None:
        builder.unmapped(
            where,
            "an array of objects with no name-like text key (name, title, id) to key rows by",
        )
        return
    about = prop.get("description")
    draft = builder.tracker(name, "list", about if isinstance(about, str) else "", where)
    builder.line(
        "exact",
        f"{where}.items.properties.{key}",
        draft.name,
        f"keyed list: rows keyed by {quoted(key)}",
    )
    for column, column_prop in properties.items():
        if column == key:
            continue
        here = f"{where}.items.properties.{column}"
        if isinstance(column_prop, dict) and column_prop.get("type") in ("object",):
            builder.unmapped(here, "an object inside a row; a row holds plain fields only")
            continue
        _field(builder, draft, here, column, column_prop, [])
