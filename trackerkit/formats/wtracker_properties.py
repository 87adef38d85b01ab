"""WTracker property schemas to fields: one property, its `oneOf` consts, and its top.

A property's `type` picks the field (see `wtracker_types`); a `oneOf` of `const` values is read as
an enum, each value's description joining the field's meaning; a nested object is flattened into
dotted fields and says so; a property using `$ref`, `anyOf`, `oneOf`, `allOf`, `not` or `if`
otherwise, or a type union, is reported, not guessed at. A number whose meaning ends "At most
hp_max." takes its top from that number field (TR-5), as `export --to wtracker` writes such a top.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from trackerkit.formats.imported import Builder, TrackerDraft
from trackerkit.formats.leaves import plain_text, quoted
from trackerkit.formats.wtracker_types import _as_choice, _boolean, _choice, _joined, _number, _text

__all__: list[str] = []  # its helpers serve `wtracker_import` only

_UNMAPPED_KEYWORDS = ("$ref", "anyOf", "oneOf", "allOf", "not", "if")


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
